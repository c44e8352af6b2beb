import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main, VERSION, type CliEnvironment } from './cli.js';
import { clientNodeRange } from './scaffold.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const root = join(packageDir, '..', '..');

/**
 * Projects are generated under this package's node_modules, so that their imports of @kindex/*,
 * typebox and the test tools resolve to the workspace's: the generated code is type-checked
 * against the current sources, as a user's project is against the published packages.
 */
function workDir(): string {
  const cache = join(packageDir, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  return mkdtempSync(join(cache, 'create-kindex-'));
}

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const environment: CliEnvironment = {
    cwd,
    env,
    interactive: false,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    nodeVersion: '20.20.2',
  };
  return main(args, environment).then((code) => ({ code, out, err }));
}

function typeCheck(project: string): void {
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--noEmit'], {
    cwd: project,
    encoding: 'utf8',
  });
  expect(tsc.stdout + tsc.stderr, `tsc in ${project}`).to.equal('');
  expect(tsc.status).to.equal(0);
}

describe('create-kindex', function () {
  // Each type check of a generated project is a full tsc run over @kindex/*'s sources.
  this.timeout(300_000);
  let work: string;
  before(() => (work = workDir()));
  after(() => rmSync(work, { recursive: true, force: true }));

  it('writes the default project (Widget, example.com/v1alpha1, npm), which type-checks against the workspace packages', async () => {
    const { code, out } = await run(['my-operator', '--yes'], work);
    expect(code).to.equal(0);
    expect(out.join('\n')).to.include('Created my-operator: Widget (widgets.example.com/v1alpha1), 13 files.');
    const project = join(work, 'my-operator');
    expect(readdirSync(join(project, 'src')).sort()).to.deep.equal([
      'main.ts',
      'operator.ts',
      'widget-reconciler.test.ts',
      'widget-reconciler.ts',
      'widget.ts',
    ]);
    for (const file of [
      '.gitignore',
      '.dockerignore',
      'Dockerfile',
      'README.md',
      'tsconfig.json',
      'tsconfig.build.json',
      '.mocharc.json',
    ]) {
      expect(existsSync(join(project, file)), file).to.equal(true);
    }
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
    expect(manifest.dependencies).to.include({ '@kindex/core': VERSION, '@kindex/informer': VERSION, '@kubernetes/client-node': '^1.4.0' });
    expect(manifest.devDependencies['@kindex/testing']).to.equal(VERSION);
    expect(Object.keys(manifest.scripts as object)).to.include.members(['build', 'test', 'manifests', 'start']);
    const dockerfile = readFileSync(join(project, 'Dockerfile'), 'utf8');
    expect(dockerfile).to.include('FROM node:20.20.2-bookworm-slim AS build').and.include('npm ci --omit=dev').and.not.include('pnpm');
    expect(dockerfile).not.to.include('kindex:');
    expect(readFileSync(join(project, 'src', 'operator.ts'), 'utf8')).not.to.include('webhook');
    typeCheck(project);
  });

  it('renames the kind throughout and adds the webhooks and pnpm files with --webhook --package-manager pnpm', async () => {
    const { code } = await run(
      [
        'db-operator',
        '--group',
        'db.acme.io',
        '--kind',
        'DatabasePolicy',
        '--api-version',
        'v1beta1',
        '--webhook',
        '--package-manager',
        'pnpm',
      ],
      work,
      { npm_config_user_agent: 'pnpm/10.34.8 npm/? node/v20.20.2 linux x64' },
    );
    expect(code).to.equal(0);
    const project = join(work, 'db-operator');
    expect(readdirSync(join(project, 'src'))).to.include.members([
      'database-policy.ts',
      'database-policy-webhooks.ts',
      'database-policy-webhooks.test.ts',
    ]);
    const model = readFileSync(join(project, 'src', 'database-policy.ts'), 'utf8');
    expect(model)
      .to.include("group: 'db.acme.io'")
      .and.include("kind: 'DatabasePolicy'")
      .and.include("plural: 'databasepolicies'")
      .and.include('v1beta1: {');
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
    expect(manifest.packageManager).to.equal('pnpm@10.34.8');
    expect(manifest.scripts.manifests).to.include('--webhook-certs secret').and.include('--image db-operator:0.1.0');
    expect(readFileSync(join(project, 'Dockerfile'), 'utf8'))
      .to.include('pnpm install --frozen-lockfile --prod')
      .and.not.include('npm ci');
    const readme = readFileSync(join(project, 'README.md'), 'utf8');
    expect(readme).to.include('pnpm test').and.include('kubectl describe databasepolicy hello').and.include('db-operator-webhook-service');
    expect(readme).not.to.match(/widget|kindex:/i);
    typeCheck(project);
  });

  it('refuses bad input with one line naming the value and the fix, exit code 2, and writes nothing', async () => {
    writeFileSync(join(work, 'taken-marker'), '');
    mkdirSync(join(work, 'taken'));
    writeFileSync(join(work, 'taken', 'file'), '');
    const cases: [string[], RegExp][] = [
      [['taken', '--yes'], /^create-kindex: directory taken exists and is not empty: choose another project name, or empty it first$/],
      [
        ['fresh', '--group', 'acme'],
        /^create-kindex: --group 'acme' must be a DNS subdomain with at least one dot .*e\.g\. --group widgets\.acme\.io$/,
      ],
      [['fresh', '--group', 'Acme.io'], /^create-kindex: --group 'Acme\.io' must be a DNS subdomain/],
      [['fresh', '--kind', 'widget'], /^create-kindex: --kind 'widget' must be UpperCamelCase .*e\.g\. --kind Widget/],
      [['fresh', '--api-version', 'beta'], /^create-kindex: --api-version 'beta' must be a Kubernetes API version such as v1/],
      [['fresh', '--colour'], /^create-kindex: unknown option '--colour'; run create-kindex --help for the flags$/],
      [
        ['fresh', '--package-manager', 'yarn'],
        /^create-kindex: option .* argument 'yarn' is invalid\. Allowed choices are npm, pnpm; run create-kindex --help/,
      ],
      [['My_Operator', '--yes'], /^create-kindex: the project name 'My_Operator' .* choose a directory such as my-operator$/],
      [['--yes'], /^create-kindex: give the project directory, e\.g\. npm create kindex@latest my-operator$/],
    ];
    const before = readdirSync(work).sort();
    for (const [args, message] of cases) {
      const { code, err, out } = await run(args, work);
      expect(err, args.join(' ')).to.have.length(1);
      expect(err[0], args.join(' ')).to.match(message);
      expect(out, args.join(' ')).to.deep.equal([]);
      expect(code, args.join(' ')).to.equal(2);
    }
    expect(readdirSync(work).sort()).to.deep.equal(before);
    expect(readdirSync(join(work, 'taken'))).to.deep.equal(['file']);
  });

  it('prints its version and help with exit code 0', async () => {
    expect(await run(['--version'], work)).to.deep.include({ code: 0, out: [VERSION] });
    const help = await run(['--help'], work);
    expect(help.code).to.equal(0);
    expect(help.out.join('\n')).to.include('--api-version <version>').and.include('--package-manager <name>');
  });

  it('pins a client-node range the running Node.js can load: 2.x needs 22.19', () => {
    expect(clientNodeRange('20.20.2')).to.equal('^1.4.0');
    expect(clientNodeRange('22.18.0')).to.equal('^1.4.0');
    expect(clientNodeRange('22.19.0')).to.equal('^2.0.1');
    expect(clientNodeRange('24.1.0')).to.equal('^2.0.1');
  });

  it("gives the project the workspace's versions of the tools it is tested with", () => {
    const template = JSON.parse(readFileSync(join(packageDir, 'template', 'package.json'), 'utf8'));
    const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const informer = JSON.parse(readFileSync(join(root, 'packages', 'informer', 'package.json'), 'utf8'));
    for (const tool of ['typescript', 'mocha', 'chai', 'tsx', '@types/node', '@types/mocha', '@types/chai'])
      expect(template.devDependencies[tool], tool).to.equal(rootManifest.devDependencies[tool]);
    expect(template.dependencies.typebox).to.equal(informer.dependencies.typebox);
    expect(VERSION).to.equal(informer.version);
  });
});
