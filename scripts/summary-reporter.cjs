// Mocha's spec reporter plus a machine-readable tally: when KINDEX_TEST_TALLY names a file, each
// run appends one JSON line with its counts and the titles of its failed tests, so
// scripts/test-tally.mjs can print one total for the whole workspace and name the failures in
// the last lines a CI log shows (the spec report of a suite that failed may be far above them).
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const failures = [];
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (test, err) => {
      const message = String((err && err.message) || err).split('\n')[0];
      failures.push({
        title: test.fullTitle(),
        file: test.file ? path.relative(process.cwd(), test.file) : undefined,
        error: message.length > 300 ? `${message.slice(0, 300)}…` : message,
      });
    });
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const file = process.env.KINDEX_TEST_TALLY;
      if (!file) return;
      const s = runner.stats ?? {};
      const line = JSON.stringify({
        suite: process.env.KINDEX_TEST_SUITE ?? process.cwd(),
        passed: s.passes ?? 0,
        failed: s.failures ?? 0,
        skipped: s.pending ?? 0,
        failures,
      });
      fs.appendFileSync(file, line + '\n');
    });
  }
}

module.exports = SummaryReporter;
