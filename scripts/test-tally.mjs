#!/usr/bin/env node
// The tally that scripts/summary-reporter.cjs appends to (one JSON line a mocha run), summed for
// the closing lines of scripts/run-tests.mjs and scripts/real-apiserver/ci.sh: each failed test
// by suite, file and title with its error's first line, then "<label>: N passed, N failed, N
// skipped". CI logs are read from the end, so a failure is named where the reader starts.
// As a command: node scripts/test-tally.mjs <label> <tally file>
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Sums the runs recorded in a tally file; a missing file is no run. */
export function readTally(file) {
  const total = { passed: 0, failed: 0, skipped: 0, failures: [] };
  if (!existsSync(file)) return total;
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const run = JSON.parse(line);
    total.passed += run.passed;
    total.failed += run.failed;
    total.skipped += run.skipped;
    for (const f of run.failures ?? []) total.failures.push({ suite: run.suite, ...f });
  }
  return total;
}

/** The closing lines: the failed tests (if any), then the one-line total. */
export function formatTally(label, total) {
  const lines = [];
  if (total.failures.length) {
    lines.push(`${label}: failed tests:`);
    for (const f of total.failures) {
      lines.push(`  ${f.suite}${f.file ? `/${f.file}` : ''}: ${f.title}`);
      lines.push(`    ${f.error}`);
    }
  }
  lines.push(`${label}: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [label, file] = process.argv.slice(2);
  if (!label || !file) {
    console.error('usage: node scripts/test-tally.mjs <label> <tally file>');
    process.exit(2);
  }
  console.log(formatTally(label, readTally(file)));
}
