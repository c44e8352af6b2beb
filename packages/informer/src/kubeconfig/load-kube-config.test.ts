import { expect } from 'chai';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { UnknownOptionError } from '@kindex/core';
import {
  KubeConfigContextError,
  KubeConfigError,
  KubeConfigFileNotFoundError,
  KubeConfigInsecureServerError,
  KubeConfigNotFoundError,
  KubeConfigParseError,
  KubeClient,
  Operator,
  loadKubeConfig,
} from '@kindex/informer';

/** A kubeconfig with one context per entry of `contexts` (context name = cluster name = user name). */
function kubeconfigYaml(options: { server?: string; contexts?: string[]; current?: string; skipTls?: boolean } = {}): string {
  const contexts = options.contexts ?? ['dev'];
  const server = options.server ?? 'https://dev.example.com:6443';
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    ...contexts.flatMap((c) => [
      `- name: ${c}`,
      '  cluster:',
      `    server: ${server}`,
      ...(options.skipTls ? ['    insecure-skip-tls-verify: true'] : []),
    ]),
    'users:',
    ...contexts.flatMap((c) => [`- name: ${c}`, '  user:', `    token: token-${c}`]),
    'contexts:',
    ...contexts.flatMap((c) => [`- name: ${c}`, '  context:', `    cluster: ${c}`, `    user: ${c}`]),
    ...(options.current === '' ? [] : [`current-context: ${options.current ?? contexts[0]}`]),
    '',
  ].join('\n');
}

describe('loadKubeConfig', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kindex-kubeconfig-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Writes `text` to `dir/name` and returns its path. */
  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  /** Catches what `body` throws. */
  const thrown = (body: () => unknown): Error => {
    try {
      body();
    } catch (error) {
      return error as Error;
    }
    throw new Error('expected a throw');
  };

  describe('where it looks', () => {
    it('takes the kubeconfig option (relative to cwd) over KUBECONFIG and ~/.kube/config', () => {
      file('explicit.yaml', kubeconfigYaml({ contexts: ['explicit'] }));
      const env = { KUBECONFIG: file('env.yaml', kubeconfigYaml({ contexts: ['env'] })), HOME: dir };
      const kc = loadKubeConfig({ kubeconfig: 'explicit.yaml', cwd: dir, env });
      expect(kc.getCurrentContext()).to.equal('explicit');
    });

    it('takes KUBECONFIG over ~/.kube/config, and ~/.kube/config when KUBECONFIG is unset', () => {
      mkdirSync(join(dir, '.kube'));
      file('.kube/config', kubeconfigYaml({ contexts: ['home'] }));
      const env = file('env.yaml', kubeconfigYaml({ contexts: ['env'] }));
      expect(loadKubeConfig({ env: { KUBECONFIG: env, HOME: dir } }).getCurrentContext()).to.equal('env');
      expect(loadKubeConfig({ env: { HOME: dir } }).getCurrentContext()).to.equal('home');
      expect(loadKubeConfig({ env: { HOME: dir, KUBECONFIG: '' } }).getCurrentContext()).to.equal('home');
    });

    it('merges the files KUBECONFIG lists as kubectl does: the first to define a name or current-context wins, missing files skipped', () => {
      const a = file('a.yaml', kubeconfigYaml({ contexts: ['shared', 'only-a'], current: 'only-a', server: 'https://a.example.com' }));
      const b = file('b.yaml', kubeconfigYaml({ contexts: ['shared', 'only-b'], current: 'only-b', server: 'https://b.example.com' }));
      const kc = loadKubeConfig({ env: { KUBECONFIG: [a, join(dir, 'missing.yaml'), b].join(':') } });
      expect(kc.getContexts().map((c) => c.name)).to.deep.equal(['shared', 'only-a', 'only-b']);
      expect(kc.getCurrentContext()).to.equal('only-a');
      expect(kc.getCluster('shared')?.server).to.equal('https://a.example.com');
      expect(kc.getCluster('only-b')?.server).to.equal('https://b.example.com');
    });

    it('resolves relative KUBECONFIG entries and file paths inside the kubeconfig against their directory', () => {
      mkdirSync(join(dir, 'sub'));
      file('sub/ca.crt', 'not read until a request');
      file('sub/config', kubeconfigYaml().replace('    server:', '    certificate-authority: ca.crt\n    server:'));
      const kc = loadKubeConfig({ env: { KUBECONFIG: 'sub/config' }, cwd: dir });
      expect(kc.getCurrentCluster()?.caFile).to.equal(join(dir, 'sub', 'ca.crt'));
    });

    it('with context, uses that context instead of the current-context', () => {
      const path = file('two.yaml', kubeconfigYaml({ contexts: ['dev', 'prod'] }));
      expect(loadKubeConfig({ kubeconfig: path, context: 'prod', env: {} }).getCurrentContext()).to.equal('prod');
    });

    it('rejects an unknown option, naming it', () => {
      expect(() => loadKubeConfig({ kubeConfig: 'x' } as never)).to.throw(UnknownOptionError, /kubeConfig/);
    });
  });

  describe('errors: one line, then Fix:', () => {
    it('with nothing to load, KubeConfigNotFoundError lists KUBECONFIG, the ~/.kube/config path and the in-cluster variables', () => {
      const error = thrown(() => loadKubeConfig({ env: { HOME: dir } }));
      expect(error).to.be.instanceOf(KubeConfigNotFoundError).and.instanceOf(KubeConfigError);
      expect((error as KubeConfigError).code).to.equal('KINDEX_KUBECONFIG_NOT_FOUND');
      expect(error.message).to.equal(
        `no kubeconfig found (--kubeconfig: not given; KUBECONFIG: not set; ~/.kube/config: ${join(dir, '.kube', 'config')} does not exist; in-cluster: KUBERNETES_SERVICE_HOST is not set (not in a pod))\n` +
          'Fix: pass --kubeconfig <file>, set KUBECONFIG, or create ~/.kube/config (your cluster tool writes one: `kind create cluster`, `minikube start`, `gcloud container clusters get-credentials`, ...); in a pod, mount a service account token.',
      );
      expect((error as KubeConfigNotFoundError).searched).to.have.length(4);
    });

    it('in a pod without a token, says the token is missing', () => {
      const error = thrown(() =>
        loadKubeConfig({ env: { HOME: dir, KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' } }),
      );
      expect(error).to.be.instanceOf(KubeConfigNotFoundError);
      expect(error.message).to.include('in-cluster: /var/run/secrets/kubernetes.io/serviceaccount/token does not exist');
    });

    it('KubeConfigFileNotFoundError names a missing KUBECONFIG path and where it came from', () => {
      const error = thrown(() => loadKubeConfig({ env: { KUBECONFIG: '/nonexistent', HOME: dir } }));
      expect(error).to.be.instanceOf(KubeConfigFileNotFoundError);
      expect(error).to.include({ code: 'KINDEX_KUBECONFIG_FILE_NOT_FOUND', source: 'KUBECONFIG' });
      expect(error.message).to.equal(
        'the kubeconfig file /nonexistent named by KUBECONFIG does not exist\n' +
          'Fix: point KUBECONFIG at an existing kubeconfig (paths separated by ":"), or unset it to use ~/.kube/config.',
      );
      const several = thrown(() => loadKubeConfig({ env: { KUBECONFIG: '/nonexistent:/also-missing' } }));
      expect(several.message.split('\n')[0]).to.equal(
        'none of the kubeconfig files named by KUBECONFIG exists: /nonexistent, /also-missing',
      );
    });

    it('KubeConfigFileNotFoundError names a missing --kubeconfig path, resolved against cwd', () => {
      const error = thrown(() => loadKubeConfig({ kubeconfig: 'nope.yaml', cwd: dir, env: {} }));
      expect(error).to.be.instanceOf(KubeConfigFileNotFoundError).and.include({ source: '--kubeconfig' });
      expect(error.message.split('\n')[0]).to.equal(
        `the kubeconfig file nope.yaml given with --kubeconfig does not exist (resolved to ${join(dir, 'nope.yaml')})`,
      );
      expect((error as KubeConfigFileNotFoundError).paths).to.deep.equal([join(dir, 'nope.yaml')]);
    });

    it('KubeConfigParseError gives the file, line and column of a YAML syntax error', () => {
      const path = file('bad.yaml', 'apiVersion: v1\nclusters:\n- name: a\n  cluster: {server: https://x\n');
      const error = thrown(() => loadKubeConfig({ kubeconfig: path, env: {} })) as KubeConfigParseError;
      expect(error).to.be.instanceOf(KubeConfigParseError).and.include({ code: 'KINDEX_KUBECONFIG_UNREADABLE', path });
      expect(error.line).to.be.a('number');
      expect(error.message).to.match(
        new RegExp(
          `^cannot parse kubeconfig ${path}:${error.line}:${error.column}: .+\\nFix: correct the kubeconfig at line ${error.line} `,
        ),
      );
      expect(error.message.split('\n')).to.have.length(2);
    });

    it('KubeConfigParseError names an entry missing its required field, an empty file and YAML that is not a kubeconfig', () => {
      const noServer = file('no-server.yaml', 'clusters:\n- name: a\n  cluster: {}\n');
      expect(thrown(() => loadKubeConfig({ kubeconfig: noServer, env: {} })).message.split('\n')[0]).to.equal(
        `cannot parse kubeconfig ${noServer}: clusters[0].cluster.server is missing`,
      );
      const empty = file('empty.yaml', '\n');
      expect(thrown(() => loadKubeConfig({ kubeconfig: empty, env: {} })).message.split('\n')[0]).to.equal(
        `cannot parse kubeconfig ${empty}: the file is empty`,
      );
      const list = file('list.yaml', 'just a string\n');
      const notKubeconfig = thrown(() => loadKubeConfig({ kubeconfig: list, env: {} }));
      expect(notKubeconfig).to.be.instanceOf(KubeConfigParseError);
      expect(notKubeconfig.message.split('\n')[0]).to.match(
        /^cannot parse kubeconfig .*list\.yaml: it (has no clusters|is not a kubeconfig)/,
      );
    });

    it('KubeConfigParseError says when the file cannot be read', function () {
      const error = thrown(() => loadKubeConfig({ kubeconfig: dir, env: {} }));
      expect(error).to.be.instanceOf(KubeConfigParseError);
      expect(error.message.split('\n')[0]).to.equal(`cannot read kubeconfig ${dir}: EISDIR: illegal operation on a directory, read`);
      if (process.getuid?.() === 0) return; // root reads any file
      const locked = file('locked.yaml', kubeconfigYaml());
      chmodSync(locked, 0o000);
      expect(thrown(() => loadKubeConfig({ kubeconfig: locked, env: {} })).message).to.match(/^cannot read kubeconfig .*EACCES/);
    });

    it('KubeConfigContextError lists the contexts when --context names none of them', () => {
      const path = file('two.yaml', kubeconfigYaml({ contexts: ['dev', 'prod'] }));
      const error = thrown(() => loadKubeConfig({ kubeconfig: path, context: 'staging', env: {} }));
      expect(error).to.be.instanceOf(KubeConfigContextError).and.include({ code: 'KINDEX_KUBECONFIG_CONTEXT', context: 'staging' });
      expect((error as KubeConfigContextError).contexts).to.deep.equal(['dev', 'prod']);
      expect(error.message).to.equal(
        `context "staging" given with --context is not in kubeconfig ${path}; it has contexts: dev, prod\n` +
          'Fix: pass one of dev, prod to --context (`kubectl config get-contexts` lists them).',
      );
    });

    it('KubeConfigContextError lists the contexts when the current-context is missing or unset', () => {
      const missing = file('missing.yaml', kubeconfigYaml({ contexts: ['dev', 'prod'], current: 'gone' }));
      expect(thrown(() => loadKubeConfig({ kubeconfig: missing, env: {} })).message).to.equal(
        `the current-context "gone" of kubeconfig ${missing} is not one of its contexts; it has contexts: dev, prod\n` +
          'Fix: `kubectl config use-context <name>` with one of: dev, prod, or pass --context.',
      );
      const unset = file('unset.yaml', kubeconfigYaml({ contexts: ['dev'], current: '' }));
      const error = thrown(() => loadKubeConfig({ kubeconfig: unset, env: {} }));
      expect(error).to.be.instanceOf(KubeConfigContextError).and.include({ context: undefined });
      expect(error.message.split('\n')[0]).to.equal(`kubeconfig ${unset} sets no current-context; it has contexts: dev`);
    });

    it("KubeConfigContextError names a context's undefined cluster", () => {
      const path = file('dangling.yaml', kubeconfigYaml().replace('    cluster: dev', '    cluster: elsewhere'));
      expect(thrown(() => loadKubeConfig({ kubeconfig: path, env: {} })).message.split('\n')[0]).to.equal(
        `context "dev" of kubeconfig ${path} names cluster "elsewhere", which it does not define; it has clusters: dev`,
      );
    });

    it('KubeConfigInsecureServerError names the cluster and the plain-HTTP server, unless insecure-skip-tls-verify is set', () => {
      const path = file('http.yaml', kubeconfigYaml({ server: 'http://127.0.0.1:8080' }));
      const error = thrown(() => loadKubeConfig({ kubeconfig: path, env: {} }));
      expect(error).to.be.instanceOf(KubeConfigInsecureServerError).and.include({
        code: 'KINDEX_KUBECONFIG_PLAIN_HTTP',
        cluster: 'dev',
        server: 'http://127.0.0.1:8080',
      });
      expect(error.message).to.equal(
        `cluster "dev" of kubeconfig ${path} has a plain-HTTP server http://127.0.0.1:8080 without insecure-skip-tls-verify, so client-node refuses to send requests to it\n` +
          'Fix: use the server\'s https:// URL, or set `insecure-skip-tls-verify: true` on cluster "dev" (`kubectl config set-cluster dev --insecure-skip-tls-verify=true`) if plain HTTP is really meant (credentials then travel unencrypted).',
      );
      const skip = file('http-skip.yaml', kubeconfigYaml({ server: 'http://127.0.0.1:8080', skipTls: true }));
      expect(loadKubeConfig({ kubeconfig: skip, env: {} }).getCurrentCluster()?.server).to.equal('http://127.0.0.1:8080');
    });
  });
});

describe('KubeClient and Operator with an unusable KubeConfig', () => {
  it("fail at construction on client-node's fallback cluster (loadFromDefault found nothing)", () => {
    const fallback = new KubeConfig();
    fallback.loadFromClusterAndUser({ name: 'cluster', server: 'http://localhost:8080', skipTLSVerify: false }, { name: 'user' });
    expect(() => new KubeClient(fallback)).to.throw(
      KubeConfigNotFoundError,
      "the KubeConfig holds only client-node's fallback cluster http://localhost:8080: loadFromDefault() found no kubeconfig",
    );
    expect(() => new Operator({ kubeConfig: fallback })).to.throw(KubeConfigNotFoundError);
  });

  it('fail at construction on an empty KubeConfig, one without a current context, and a plain-HTTP one', () => {
    expect(() => new KubeClient(new KubeConfig())).to.throw(KubeConfigNotFoundError, 'the KubeConfig is empty');
    const noContext = new KubeConfig();
    noContext.loadFromOptions({ clusters: [{ name: 'c', server: 'https://x' }], users: [], contexts: [], currentContext: '' });
    expect(() => new Operator({ kubeConfig: noContext })).to.throw(KubeConfigContextError, 'the KubeConfig sets no current-context');
    const http = new KubeConfig();
    http.loadFromClusterAndUser({ name: 'local', server: 'http://127.0.0.1:8001', skipTLSVerify: false }, { name: 'u' });
    expect(() => new KubeClient(http)).to.throw(KubeConfigInsecureServerError, 'cluster "local" of the KubeConfig has a plain-HTTP server');
  });
});
