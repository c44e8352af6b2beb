#!/usr/bin/env node
// Lint and format check of the whole workspace: ESLint with typescript-eslint's type-aware rules
// (eslint.config.mjs) and Prettier (.prettierrc.json) in check mode. To fix what can be fixed
// automatically: `npx --yes pnpm@10.34.8 lint:fix`.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const run = (args) => spawnSync('npx', args, { cwd: root, stdio: 'inherit' }).status ?? 1;
const eslint = run(['eslint', '--max-warnings', '0', '.']);
const prettier = run(['prettier', '--check', '--log-level', 'warn', '.']);
if (eslint === 0 && prettier === 0) console.log('lint: ESLint and Prettier found nothing to change');
else console.error('lint failed; `npx --yes pnpm@10.34.8 lint:fix` fixes formatting and what ESLint can fix itself');
process.exit(eslint || prettier);
