// Mocha's spec reporter plus a machine-readable tally: when KINDEX_TEST_TALLY names a file, each
// run appends one JSON line with its counts, so scripts/run-tests.mjs can print one total for
// the whole workspace.
const fs = require('node:fs');
const Mocha = require('mocha');

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const file = process.env.KINDEX_TEST_TALLY;
      if (!file) return;
      const s = runner.stats ?? {};
      const line = JSON.stringify({
        suite: process.env.KINDEX_TEST_SUITE ?? process.cwd(),
        passed: s.passes ?? 0,
        failed: s.failures ?? 0,
        skipped: s.pending ?? 0,
      });
      fs.appendFileSync(file, line + '\n');
    });
  }
}

module.exports = SummaryReporter;
