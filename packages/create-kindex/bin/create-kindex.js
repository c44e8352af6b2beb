#!/usr/bin/env node
// In a published package the command runs from the compiled dist/; in a checkout of the kindex
// repository, where dist/ may be missing or stale, from the TypeScript sources through tsx.
import { existsSync } from 'node:fs';

const checkout = existsSync(new URL('../src/cli.ts', import.meta.url)) && existsSync(new URL('../tsconfig.json', import.meta.url));
let entry = '../dist/cli.js';
if (checkout) {
  const { register } = await import('tsx/esm/api');
  register();
  entry = '../src/cli.ts';
}
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  interactive: process.stdin.isTTY === true,
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  nodeVersion: process.versions.node,
});
