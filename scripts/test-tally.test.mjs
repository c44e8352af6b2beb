#!/usr/bin/env node
// Proves a failed test is named in the closing lines: mocha runs, with the shared reporter, a
// spec file holding one passing, one failing and one skipped test and a failing hook; the tally
// it appends names the failures by file and title with the error's first line, and
// formatTally prints them before the total.
// Run by scripts/run-tests.mjs; by hand: `node scripts/test-tally.test.mjs`.
import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { formatTally, readTally } from './test-tally.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('the test tally', () => {
  it('names each failed test, and a failed hook, by suite, file and title in the closing lines', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kindex-tally-'));
    writeFileSync(
      join(dir, 'sample.test.cjs'),
      `describe('outer', () => {
        it('passes', () => {});
        it('fails', () => { throw new Error('expected 1 to equal 2\\n  at somewhere'); });
        it.skip('is skipped', () => {});
        describe('inner', () => {
          before(() => { throw new Error('no server'); });
          it('never runs', () => {});
        });
      });`,
    );
    const tally = join(dir, 'tally.jsonl');
    const run = spawnSync(
      process.execPath,
      [join(root, 'node_modules/mocha/bin/mocha.js'), '--reporter', join(root, 'scripts/summary-reporter.cjs'), 'sample.test.cjs'],
      { cwd: dir, encoding: 'utf8', env: { ...process.env, KINDEX_TEST_TALLY: tally, KINDEX_TEST_SUITE: 'samples' } },
    );
    assert.notEqual(run.status, 0, run.stdout + run.stderr);

    const total = readTally(tally);
    assert.deepEqual({ passed: total.passed, failed: total.failed, skipped: total.skipped }, { passed: 1, failed: 2, skipped: 1 });
    assert.deepEqual(total.failures, [
      { suite: 'samples', file: 'sample.test.cjs', title: 'outer fails', error: 'expected 1 to equal 2' },
      { suite: 'samples', file: 'sample.test.cjs', title: 'outer inner "before all" hook for "never runs"', error: 'no server' },
    ]);
    assert.equal(
      formatTally('tests', total),
      [
        'tests: failed tests:',
        '  samples/sample.test.cjs: outer fails',
        '    expected 1 to equal 2',
        '  samples/sample.test.cjs: outer inner "before all" hook for "never runs"',
        '    no server',
        'tests: 1 passed, 2 failed, 1 skipped',
      ].join('\n'),
    );
  });

  it('prints only the total when nothing failed, and counts a missing tally as no run', () => {
    assert.equal(formatTally('real-server', readTally('/nonexistent/tally.jsonl')), 'real-server: 0 passed, 0 failed, 0 skipped');
  });
});
