#!/usr/bin/env node
// In a published package the CLI runs from the compiled dist/; in a checkout, where dist/ may be
// missing or stale, it runs from the TypeScript sources through tsx, so no build step is needed.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli/kindex-apiserver.js', import.meta.url);
const checkout =
  existsSync(new URL('../src/cli/kindex-apiserver.ts', import.meta.url)) && existsSync(new URL('../tsconfig.json', import.meta.url));
if (checkout || !existsSync(compiled)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/kindex-apiserver.ts');
} else {
  await import(compiled.href);
}
