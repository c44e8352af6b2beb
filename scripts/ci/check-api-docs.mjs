#!/usr/bin/env node
// Generates the API reference of core, informer and testing from their TSDoc with TypeDoc
// (root typedoc.json) into docs/api/, and fails on any warning: an exported class, interface,
// type or constant without documentation, a broken {@link}, or a public signature that names a
// type the package does not export (the deliberate ones are listed in packages/core/typedoc.json).
// requiredToBeDocumented covers functions, methods and accessors too, so every public method
// signature carries a comment; properties are left out (most are Kubernetes fields whose name
// says it all). Examples are checked separately by check-doc-examples.mjs.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const r = spawnSync('npx', ['typedoc', '--options', 'typedoc.json', '--logLevel', 'Warn'], { cwd: root, stdio: 'inherit' });
if (r.status === 0) console.log('API reference: docs/api/index.html (no TypeDoc warnings)');
process.exit(r.status ?? 1);
