// The shared mocha settings without their default spec: mocha adds a config's spec to the files
// named on the command line, and ci.sh must run only the suites it names on the real server.
const { spec: _allFiles, ...base } = require('../../.mocharc.base.cjs');
module.exports = { ...base, timeout: 120000 };
