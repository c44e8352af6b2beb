#!/usr/bin/env node
// Proves the release works as a user meets it: the workspace's packages are published to a real
// npm registry on loopback (verdaccio, started and stopped here; everything else proxied to the
// npm registry), and from there, in fresh directories outside the workspace:
//   1. npm: `npm create kindex@<version> -- npm-app --yes`, `npm install` (no warnings a user
//      could avoid), `npm run build`, `npm test` (the generated suite on the embedded API
//      server), `npm run manifests`;
//   2. the Dockerfile's steps outside a container: `npm ci` and the build in a copy, then
//      `npm ci --omit=dev` in another with the build's dist/, which must load the operator;
//   3. pnpm: `pnpm create kindex@<version> pnpm-app --yes --webhook`, `pnpm install`, test, and
//      `pnpm run manifests` (the build, then the webhooks' configurations and certificates too),
//      and the pnpm Dockerfile's runtime stage (`pnpm install --frozen-lockfile --prod`) in a copy.
// Prints the figures (wall time from `npm create` to a passing suite, the suite's time, the size
// of node_modules without devDependencies). Needs a built workspace (`tsc -b`) and the network
// (third-party packages). Exits non-zero on the first failure.
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { removeUnknownNpmConfig } from './npm-env.mjs';
import { startLocalRegistry } from './create-kindex/local-registry.mjs';
import { PNPM, installWarnings, publishWorkspace, run, seconds } from './create-kindex/harness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
removeUnknownNpmConfig(process.env);

/** Warnings no user can act on. */
const UNAVOIDABLE = [];

function expectNoWarnings(step, output) {
  const warnings = installWarnings(output, UNAVOIDABLE);
  if (warnings.length > 0) throw new Error(`${step} warned:\n  ${warnings.join('\n  ')}`);
}

function expectFiles(dir, files) {
  const present = new Set(readdirSync(dir, { recursive: true }).map(String));
  const missing = files.filter((f) => !present.has(f));
  if (missing.length > 0) throw new Error(`${dir} lacks ${missing.join(', ')}`);
}

/**
 * npx and pnpm dlx keep the packages they ran, by name and version: a create-kindex of the same
 * version from an earlier run would scaffold from its old template. Drop npx's copies (pnpm dlx
 * is told to fetch again with dlx-cache-max-age=0); the package caches stay warm.
 */
function forgetCachedInitializers(env) {
  const npx = join(spawnSync('npm', ['config', 'get', 'cache'], { env, encoding: 'utf8' }).stdout.trim(), '_npx');
  for (const entry of existsSync(npx) ? readdirSync(npx) : []) {
    if (existsSync(join(npx, entry, 'node_modules', 'create-kindex'))) rmSync(join(npx, entry), { recursive: true, force: true });
  }
}

const started = Date.now();
const work = mkdtempSync(join(tmpdir(), 'kindex-create-'));
const registry = await startLocalRegistry(root);
const figures = [];
try {
  // The user's environment: the registry, and nothing of the workspace's test run.
  const env = { ...process.env, ...registry.env };
  for (const name of ['npm_config_user_agent', 'KINDEX_APISERVER', 'INIT_CWD']) delete env[name];
  const version = await publishWorkspace(root, registry, env);
  console.log(`published @kindex/core, @kindex/informer, @kindex/testing and create-kindex ${version} to ${registry.url}`);

  forgetCachedInitializers(env);

  // 1. npm
  const created = Date.now();
  run('npm', ['create', '--yes', `kindex@${version}`, '--', 'npm-app', '--yes'], { cwd: work, env });
  const app = join(work, 'npm-app');
  expectNoWarnings(
    'npm install',
    run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: app, env, capture: true }).stderr,
  );
  run('npm', ['run', 'build'], { cwd: app, env });
  const suite = run('npm', ['test'], { cwd: app, env });
  figures.push(`wall time from npm create to a passing generated suite (npm, embedded server): ${seconds(created)} s`);
  figures.push(`generated suite on the embedded server (npm test): ${suite.seconds.toFixed(1)} s`);
  run('npm', ['run', 'manifests'], { cwd: app, env });
  expectFiles(join(app, 'config'), ['kustomization.yaml']);

  // 2. The Dockerfile's stages, outside a container.
  const build = join(work, 'image-build');
  for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src'])
    cpSync(join(app, f), join(build, f), { recursive: true });
  run('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: build, env });
  run('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: build, env });
  const runtime = join(work, 'image-runtime');
  for (const f of ['package.json', 'package-lock.json']) cpSync(join(app, f), join(runtime, f));
  expectNoWarnings(
    'npm ci --omit=dev',
    run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: runtime, env, capture: true }).stderr,
  );
  cpSync(join(build, 'dist'), join(runtime, 'dist'), { recursive: true });
  // The runtime image has no devDependencies: the operator's module must load with what is left.
  run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "const d = (await import('./dist/operator.js')).default; if (d.name !== 'npm-app') throw new Error('definition ' + d.name);",
    ],
    {
      cwd: runtime,
      env,
    },
  );
  const kib = Number(spawnSync('du', ['-sk', join(runtime, 'node_modules')], { encoding: 'utf8' }).stdout.split('\t')[0]);
  figures.push(`node_modules with --omit=dev: ${(kib / 1024).toFixed(1)} MiB`);

  // 3. pnpm, with the webhooks.
  const pnpmCreated = Date.now();
  run('npx', [...PNPM, '--config.dlx-cache-max-age=0', 'create', `kindex@${version}`, 'pnpm-app', '--yes', '--webhook'], {
    cwd: work,
    env,
  });
  const pnpmApp = join(work, 'pnpm-app');
  expectNoWarnings('pnpm install', run('npx', [...PNPM, 'install', '--prefer-offline'], { cwd: pnpmApp, env, capture: true }).stdout);
  run('npx', [...PNPM, 'test'], { cwd: pnpmApp, env });
  figures.push(`wall time from pnpm create to a passing generated suite (pnpm, webhooks, embedded server): ${seconds(pnpmCreated)} s`);
  // `manifests` builds first (tsc), so this is the pnpm project's build too.
  run('npx', [...PNPM, 'run', 'manifests'], { cwd: pnpmApp, env });
  expectFiles(join(pnpmApp, 'config'), ['kustomization.yaml', 'webhooks.yaml']);
  // The pnpm Dockerfile's runtime stage: a frozen production install of the lock file, with the build's dist/.
  const pnpmRuntime = join(work, 'pnpm-image-runtime');
  for (const f of ['package.json', 'pnpm-lock.yaml']) cpSync(join(pnpmApp, f), join(pnpmRuntime, f));
  expectNoWarnings(
    'pnpm install --frozen-lockfile --prod',
    run('npx', [...PNPM, 'install', '--frozen-lockfile', '--prod', '--prefer-offline'], { cwd: pnpmRuntime, env, capture: true }).stdout,
  );
  cpSync(join(pnpmApp, 'dist'), join(pnpmRuntime, 'dist'), { recursive: true });
  run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "const d = (await import('./dist/operator.js')).default; if (d.name !== 'pnpm-app') throw new Error('definition ' + d.name);",
    ],
    { cwd: pnpmRuntime, env },
  );

  console.log(`\ncreate-kindex from a registry: npm and pnpm projects built and tested in ${seconds(started)} s`);
  for (const figure of figures) console.log(`  ${figure}`);
} catch (error) {
  console.error(`\ncreate-kindex check failed: ${error instanceof Error ? error.message : String(error)}`);
  const logged = registry.output().trim();
  if (logged) console.error(`verdaccio said:\n${logged.split('\n').slice(-20).join('\n')}`);
  process.exitCode = 1;
} finally {
  await registry.stop();
  rmSync(work, { recursive: true, force: true });
}
