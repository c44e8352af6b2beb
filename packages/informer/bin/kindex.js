#!/usr/bin/env node
// In a published package the CLI runs from the compiled dist/; in a checkout, where dist/ may be
// missing or stale, it runs from the TypeScript sources. Either way `kindex crd generate` imports
// the user's module, often TypeScript, so tsx's loader is registered when it is installed.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli/kindex.js', import.meta.url);
const checkout = existsSync(new URL('../src/cli/kindex.ts', import.meta.url)) && existsSync(new URL('../tsconfig.json', import.meta.url));
let tsx = false;
try {
  const { register } = await import('tsx/esm/api');
  register();
  tsx = true;
} catch {
  // Without tsx, modules must be JavaScript (or Node must strip types itself).
}
const { main } = await import(checkout || !existsSync(compiled) ? (tsx ? '../src/cli/kindex.ts' : compiled.href) : compiled.href);
process.exitCode = await main(process.argv.slice(2));
