#!/usr/bin/env node
// Runs every workspace test suite in order (type check first) and ends with one total line,
// "tests: N passed, N failed, N skipped", so a reader (or CI) sees the whole picture at once.
// Exits non-zero if the type check or any suite fails, or if no test ran at all.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeUnknownNpmConfig } from './ci/npm-env.mjs';
import { formatTally, readTally } from './test-tally.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// Before any npx or npm runs: no "npm warn Unknown env config" lines from pnpm's variables.
removeUnknownNpmConfig(process.env);
const suites = process.argv.slice(2).length
  ? process.argv.slice(2)
  : ['packages/core', 'packages/testing', 'packages/informer', 'integration-tests', 'packages/create-kindex'];

const tsc = spawnSync('npx', ['tsc', '-b'], { cwd: root, stdio: 'inherit' });
if (tsc.status !== 0) {
  console.error('type check failed');
  process.exit(tsc.status ?? 1);
}

const tally = join(mkdtempSync(join(tmpdir(), 'kindex-tests-')), 'tally.jsonl');
let failedSuites = [];
for (const suite of suites) {
  const cwd = join(root, suite);
  if (!existsSync(join(cwd, 'package.json'))) continue;
  console.log(`\n=== ${suite} ===`);
  const r = spawnSync('npx', ['mocha', '--config', join(root, '.mocharc.base.cjs')], {
    cwd,
    stdio: 'inherit',
    env: { ...process.env, KINDEX_TEST_TALLY: tally, KINDEX_TEST_SUITE: suite },
  });
  if (r.status !== 0) failedSuites.push(suite);
}

// Checks beyond the suites (scripts/ci/): each is one script that exits non-zero on failure.
const checks = process.argv.slice(2).length
  ? []
  : [
      'scripts/ci/check-lint.mjs',
      'scripts/ci/check-dependencies.mjs',
      'scripts/ci/check-layers.mjs',
      'scripts/ci/check-layers.test.mjs',
      'scripts/ci/check-export-lists.mjs',
      'scripts/ci/check-public-api.mjs',
      'scripts/ci/check-public-api.test.mjs',
      'scripts/ci/check-error-codes.mjs',
      'scripts/ci/check-api-docs.mjs',
      'scripts/ci/check-doc-examples.mjs',
      'scripts/ci/check-doc-examples.test.mjs',
      'scripts/ci/npm-env.test.mjs',
      'scripts/test-tally.test.mjs',
      'scripts/ci/check-packages.mjs',
      'scripts/ci/check-create-kindex.mjs',
    ];
for (const check of checks) {
  console.log(`\n=== ${check} ===`);
  const r = spawnSync(process.execPath, [join(root, check)], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) failedSuites.push(check);
}

const total = readTally(tally);
if (failedSuites.length) console.log(`\nfailed suites: ${failedSuites.join(', ')}`);
// The real kube-apiserver tier is separate (pnpm test:real); say so in one line, and why.
const hasGo = spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;
console.log(
  hasGo
    ? '\nnote: these suites ran on the embedded API server; `pnpm test:real` runs them on a real kube-apiserver'
    : '\nnote: Go is not installed, so the real kube-apiserver tier (`pnpm test:real`) was not run',
);
console.log(`\n${formatTally('tests', total)}`);
process.exit(failedSuites.length || total.failed || total.passed === 0 ? 1 : 0);
