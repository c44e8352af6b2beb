#!/usr/bin/env node
// Proves the publishable packages work outside this workspace, as a user gets them:
//   1. `pnpm pack` core, informer and testing (pnpm applies publishConfig: exports -> dist/);
//   2. publint and @arethetypeswrong/cli on each tarball (no broken exports; types resolve for
//      node16/nodenext and bundlers; the packages are ESM only, hence attw's esm-only profile);
//   3. installs the tarballs with npm into a fresh project outside the workspace (no workspace
//      links), with the README's minimal project of "Use kindex in your own project" (its
//      package.json, tsconfig.json and main.ts, each marked `<!-- consumer-project: FILE -->`, so
//      the README stays true), compiles it with plain tsc and runs it with plain node against the
//      embedded API server of the packed @kindex/testing;
//   4. on Node < 22.19, installs client-node 2.x there and expects the import of @kindex/informer
//      to fail with kindex's UnsupportedRuntimeError rather than a crash inside undici.
// Needs a built workspace (`tsc -b`) and the npm registry. Exits non-zero on the first failure.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PACKAGES = ['core', 'informer', 'testing'];
const PNPM = ['--yes', 'pnpm@10.34.8'];

function run(command, args, options = {}) {
  const started = Date.now();
  console.log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal}) in ${options.cwd ?? process.cwd()}`);
  }
  console.log(`  (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return result;
}

// The consumer uses the versions the workspace is tested with: whatever client-node is installed
// (1.4.0 by default; the Node 24 CI cell swaps in 2.x), and the root's TypeScript and @types/node.
const requireFromInformer = createRequire(join(root, 'packages', 'informer', 'package.json'));
const clientNodeVersion = JSON.parse(readFileSync(requireFromInformer.resolve('@kubernetes/client-node/package.json'), 'utf8')).version;
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const typescriptVersion = rootManifest.devDependencies.typescript;
const typesNodeVersion = process.env.KINDEX_TYPES_NODE_VERSION ?? rootManifest.devDependencies['@types/node'];

/** The fenced block right after `<!-- consumer-project: NAME -->` in the README. */
function consumerFile(readme, name) {
  const marker = `<!-- consumer-project: ${name} -->`;
  const at = readme.indexOf(marker);
  const block = at < 0 ? null : /^\s*```\w*\n([^]*?)\n```/.exec(readme.slice(at + marker.length));
  if (block === null) throw new Error(`README.md has no ${marker} followed by a fenced code block (the consumer project's ${name})`);
  return `${block[1]}\n`;
}
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const CONSUMER_FILES = ['package.json', 'tsconfig.json', 'main.ts'];

const work = mkdtempSync(join(tmpdir(), 'kindex-packages-'));
const started = Date.now();
try {
  const packs = join(work, 'packs');
  mkdirSync(packs);
  for (const name of PACKAGES) {
    run('npx', [...PNPM, 'pack', '--pack-destination', packs], { cwd: join(root, 'packages', name) });
  }
  const tarballs = readdirSync(packs)
    .filter((f) => f.endsWith('.tgz'))
    .map((f) => join(packs, f));
  if (tarballs.length !== PACKAGES.length) throw new Error(`expected ${PACKAGES.length} tarballs in ${packs}, found ${tarballs.length}`);

  for (const tarball of tarballs) {
    const listing = spawnSync('tar', ['tzf', tarball], { encoding: 'utf8' }).stdout.split('\n');
    for (const required of [
      'package/dist/index.js',
      'package/dist/index.d.ts',
      'package/dist/index.js.map',
      'package/dist/index.d.ts.map',
    ]) {
      if (!listing.includes(required)) throw new Error(`${tarball} lacks ${required}`);
    }
    // Tests and type tests (`x.test.ts`, `x.test-d.ts`) and what they compile to stay out.
    const tests = listing.filter((f) => /\.test(-d)?\.(js|ts|d\.ts)/.test(f));
    if (tests.length > 0) throw new Error(`${tarball} ships test files, e.g. ${tests[0]}; exclude them in package.json "files"`);
    run('npx', ['publint', '--strict', tarball], { cwd: root });
    run('npx', ['attw', '--profile', 'esm-only', '--no-emoji', '--no-color', tarball], { cwd: root });
  }

  const consumer = join(work, 'consumer');
  mkdirSync(consumer);
  for (const name of CONSUMER_FILES) writeFileSync(join(consumer, name), consumerFile(readme, name));
  const npmInstall = ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
  run(
    'npm',
    [
      ...npmInstall,
      ...tarballs,
      `@kubernetes/client-node@${clientNodeVersion}`,
      `typescript@${typescriptVersion}`,
      `@types/node@${typesNodeVersion}`,
      // The README's tsconfig checks libraries (skipLibCheck: false): client-node's declarations import ws.
      '@types/ws@8',
    ],
    { cwd: consumer },
  );
  run(join(consumer, 'node_modules', '.bin', 'tsc'), ['-p', '.'], { cwd: consumer });
  run(process.execPath, ['dist/main.js'], { cwd: consumer });

  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 19)) {
    run('npm', [...npmInstall, '@kubernetes/client-node@2.0.1'], { cwd: consumer });
    const probe = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('@kindex/informer')"], {
      cwd: consumer,
      encoding: 'utf8',
    });
    if (probe.status === 0 || !probe.stderr.includes('UnsupportedRuntimeError') || !probe.stderr.includes('needs Node.js 22.19')) {
      throw new Error(
        `importing @kindex/informer with client-node 2.0.1 on Node ${process.versions.node} should fail with UnsupportedRuntimeError; got exit ${probe.status}:\n${probe.stderr}`,
      );
    }
    console.log(`client-node 2.0.1 on Node ${process.versions.node}: UnsupportedRuntimeError at import, as expected`);
  }
  console.log(
    `\npackages: core, informer, testing pass publint, attw and the consumer test (client-node ${clientNodeVersion}, Node ${process.versions.node}) in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
} catch (error) {
  console.error(`\npackage check failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
