#!/usr/bin/env node
// Runs dependency-cruiser with the root .dependency-cruiser.cjs over every workspace's sources:
// core never imports client-node, no import cycles, internal/ folders private to their package.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const sources = [
  'packages/core/src',
  'packages/informer/src',
  'packages/testing/src',
  'integration-tests/src',
  'samples/job-cluster/src',
  'bench/src',
];
const r = spawnSync(
  'npx',
  ['depcruise', '--config', '.dependency-cruiser.cjs', '--output-type', 'err-long', ...sources.filter((s) => existsSync(join(root, s)))],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
process.exit(r.status ?? 1);
