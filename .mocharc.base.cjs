// Shared mocha settings: TypeScript runs through tsx's ESM loader, no build step needed.
module.exports = {
  'node-option': ['import=tsx'],
  extension: ['ts'],
  spec: ['src/**/*.test.ts'],
  timeout: 20000,
  reporter: require('node:path').join(__dirname, 'scripts/summary-reporter.cjs'),
};
