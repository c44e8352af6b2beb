import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { KubeConfig, type Cluster, type Context, type User } from '@kubernetes/client-node';
import { assertUsableKubeConfig } from '../assert-usable-kube-config.js';
import {
  KubeConfigContextError,
  KubeConfigFileNotFoundError,
  KubeConfigNotFoundError,
  KubeConfigParseError,
} from '../kube-config-errors.js';
import type { LoadKubeConfigOptions } from '../load-kube-config-options.js';

/** Where a pod's service account is mounted (client-node's and client-go's SERVICEACCOUNT_ROOT). */
const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * `loadKubeConfig()` with the service account files under `serviceAccountPrefix`, as client-node's
 * `loadFromCluster(pathPrefix)` takes them: tests put a token in a temporary directory.
 */
export function loadKubeConfigWithPrefix(options: LoadKubeConfigOptions, serviceAccountPrefix: string): KubeConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const kubeConfig = new KubeConfig();
  let origin: string;
  if (options.kubeconfig) {
    const path = resolve(cwd, options.kubeconfig);
    if (!existsSync(path)) throw new KubeConfigFileNotFoundError([path], '--kubeconfig', options.kubeconfig);
    loadFile(kubeConfig, path);
    origin = `kubeconfig ${path}`;
  } else if (env['KUBECONFIG']) {
    origin = loadKubeconfigVariable(kubeConfig, env['KUBECONFIG'], cwd);
  } else {
    const home = homeDirectory(env);
    const file = home === undefined ? undefined : join(home, '.kube', 'config');
    if (file !== undefined && existsSync(file)) {
      loadFile(kubeConfig, file);
      origin = `kubeconfig ${file}`;
    } else {
      const host = env['KUBERNETES_SERVICE_HOST'];
      const port = env['KUBERNETES_SERVICE_PORT'];
      const token = `${serviceAccountPrefix}${SERVICE_ACCOUNT_TOKEN}`;
      if (!host || !port || !existsSync(token)) {
        throw notFound(file, host, port, token);
      }
      // client-node reads KUBERNETES_SERVICE_HOST/PORT from process.env itself.
      withEnv({ KUBERNETES_SERVICE_HOST: host, KUBERNETES_SERVICE_PORT: port }, () => kubeConfig.loadFromCluster(serviceAccountPrefix));
      origin = `the in-cluster configuration (${kubeConfig.getCurrentCluster()?.server}, token ${token})`;
    }
  }
  if (options.context) {
    const names = kubeConfig.getContexts().map((c) => c.name);
    if (!names.includes(options.context)) {
      throw new KubeConfigContextError(
        `context "${options.context}" given with --context is not in ${origin}; it has ${names.length ? `contexts: ${names.join(', ')}` : 'no contexts'}`,
        options.context,
        names,
        names.length
          ? `pass one of ${names.join(', ')} to --context (\`kubectl config get-contexts\` lists them).`
          : 'add the context with `kubectl config set-context`.',
      );
    }
    kubeConfig.setCurrentContext(options.context);
  }
  assertUsableKubeConfig(kubeConfig, origin);
  return kubeConfig;
}

/** Loads and merges the files `KUBECONFIG` lists, as kubectl does; returns how messages name them. */
function loadKubeconfigVariable(kubeConfig: KubeConfig, variable: string, cwd: string): string {
  const paths = variable
    .split(delimiter)
    .filter((p) => p !== '')
    .map((p) => resolve(cwd, p));
  // kubectl skips the files that do not exist and fails only when none does.
  const present = paths.filter((p) => existsSync(p));
  if (present.length === 0) throw new KubeConfigFileNotFoundError(paths, 'KUBECONFIG', variable);
  if (present.length === 1) {
    loadFile(kubeConfig, present[0]!);
    return `kubeconfig ${present[0]} (from KUBECONFIG)`;
  }
  const loaded = present.map((p) => {
    const one = new KubeConfig();
    loadFile(one, p);
    return one;
  });
  // kubectl's merge: the first file to define a name wins, and the first current-context set wins.
  kubeConfig.loadFromOptions({
    clusters: firstByName<Cluster>(loaded.flatMap((k) => k.getClusters())),
    users: firstByName<User>(loaded.flatMap((k) => k.getUsers())),
    contexts: firstByName<Context>(loaded.flatMap((k) => k.getContexts())),
    currentContext: loaded.map((k) => k.getCurrentContext()).find((c) => !!c) ?? '',
  });
  return `the kubeconfig merged from KUBECONFIG (${present.join(', ')})`;
}

function firstByName<T extends { readonly name: string }>(entries: readonly T[]): T[] {
  const seen = new Set<string>();
  return entries.filter((e) => !seen.has(e.name) && seen.add(e.name));
}

/** client-node's loadFromFile, with each failure as a KubeConfigParseError naming the file. */
function loadFile(kubeConfig: KubeConfig, path: string): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new KubeConfigParseError({ path, reason: (error as Error).message, unreadable: true }, { cause: error });
  }
  if (text.trim() === '') throw new KubeConfigParseError({ path, reason: 'the file is empty' });
  try {
    kubeConfig.loadFromString(text);
    kubeConfig.makePathsAbsolute(dirname(path));
  } catch (error) {
    throw new KubeConfigParseError({ path, ...yamlReason(error) }, { cause: error });
  }
  if (kubeConfig.getClusters().length === 0 && kubeConfig.getContexts().length === 0 && !kubeConfig.getCurrentContext()) {
    throw new KubeConfigParseError({ path, reason: 'it has no clusters, contexts or current-context (is it a kubeconfig?)' });
  }
}

/** js-yaml's YAMLException (client-node's parser) carries `reason` and a 0-based `mark`. */
function yamlReason(error: unknown): { reason: string; line?: number; column?: number } {
  const e = error as { reason?: unknown; mark?: { line?: unknown; column?: unknown }; message?: unknown };
  if (typeof e.reason === 'string' && typeof e.mark?.line === 'number') {
    return { reason: e.reason, line: e.mark.line + 1, ...(typeof e.mark.column === 'number' ? { column: e.mark.column + 1 } : {}) };
  }
  // An entry without its required field (`clusters[0].cluster.server is missing`), or YAML that
  // is not a mapping (a list, a scalar).
  const message =
    error instanceof TypeError ? 'it is not a kubeconfig (a YAML mapping with clusters, users and contexts)' : String(e.message);
  return { reason: message.split('\n')[0]! };
}

function homeDirectory(env: Record<string, string | undefined>): string | undefined {
  return env['HOME'] || (process.platform === 'win32' ? env['USERPROFILE'] || undefined : undefined);
}

function notFound(file: string | undefined, host: string | undefined, port: string | undefined, token: string): KubeConfigNotFoundError {
  const inCluster = !host
    ? 'in-cluster: KUBERNETES_SERVICE_HOST is not set (not in a pod)'
    : !port
      ? 'in-cluster: KUBERNETES_SERVICE_PORT is not set'
      : `in-cluster: ${token} does not exist (the pod mounts no service account token)`;
  const searched = [
    '--kubeconfig: not given',
    'KUBECONFIG: not set',
    file === undefined ? '~/.kube/config: HOME is not set' : `~/.kube/config: ${file} does not exist`,
    inCluster,
  ];
  return new KubeConfigNotFoundError(
    `no kubeconfig found (${searched.join('; ')})`,
    searched,
    'pass --kubeconfig <file>, set KUBECONFIG, or create ~/.kube/config (your cluster tool writes one: `kind create cluster`, `minikube start`, `gcloud container clusters get-credentials`, ...); in a pod, mount a service account token.',
  );
}

/** Runs `body` with these environment variables set in process.env, then restores them. */
function withEnv(vars: Record<string, string>, body: () => void): void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    body();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
