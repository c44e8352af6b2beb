#!/usr/bin/env node
// Proves check-layers.mjs can fail: on a small fixture tree (through its `--root` option) it must
// name a folder cycle, an import of operator/ from below, an internal/ file imported by another
// stage and a file over 500 lines, and exit non-zero; tests and the package-wide src/internal/
// are not offenders; an allowed back edge silences the cycle it closes, and an allow-list entry
// that matches nothing is reported. Run by scripts/run-tests.mjs; by hand:
// `node scripts/ci/check-layers.test.mjs`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { checkLayers } from './check-layers.mjs';

const script = join(dirname(fileURLToPath(import.meta.url)), 'check-layers.mjs');
const dirs = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A workspace root whose packages/<pkg>/src holds `files` (path → text). */
function fixture(files, pkg = 'informer') {
  const root = mkdtempSync(join(tmpdir(), 'kindex-layers-test-'));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    const file = join(root, 'packages', pkg, 'src', path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return root;
}

const run = (root, ...args) => spawnSync(process.execPath, [script, '--root', root, ...args], { encoding: 'utf8' });

const CLEAN = {
  'index.ts': "export { Operator } from './operator/operator.js';\n",
  'operator/operator.ts': "import { Controller } from '../controller/controller.js';\nexport class Operator { c?: Controller; }\n",
  'controller/controller.ts': "import type { Cache } from '../cache/cache.js';\nexport class Controller { cache?: Cache; }\n",
  'cache/cache.ts':
    "import { helper } from './internal/helper.js';\nimport { shared } from '../internal/shared.js';\nexport type Cache = { h: typeof helper; s: typeof shared };\n",
  'cache/internal/helper.ts': 'export const helper = 1;\n',
  'internal/shared.ts': 'export const shared = 1;\n',
  // A test may import upward and be long: tests are not layered.
  'cache/cache.test.ts': "import { Operator } from '../operator/operator.js';\n" + 'void Operator;\n'.repeat(600),
};

describe('check-layers', () => {
  it('passes a tree that imports only downward', () => {
    const r = run(fixture(CLEAN), '--no-allow');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /import only downward/);
  });

  it('names a cycle, an import of operator/, a cross-stage internal/ import and a long file', () => {
    const root = fixture({
      ...CLEAN,
      // cache -> controller closes a cycle with controller -> cache, and imports operator/.
      'cache/back.ts':
        "import type { Controller } from '../controller/controller.js';\nimport type { Operator } from '../operator/operator.js';\nexport type B = [Controller, Operator];\n",
      'controller/peek.ts': "import { helper } from '../cache/internal/helper.js';\nexport const p = helper;\n",
      'controller/long.ts': 'export const x = 1;\n'.repeat(501),
    });
    const r = run(root, '--no-allow');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /folders in a cycle, cache -> controller \(cache\/back\.ts imports controller\/controller\.ts\)/);
    assert.match(r.stderr, /folders in a cycle, controller -> cache/);
    assert.match(r.stderr, /cache\/back\.ts imports operator\/operator\.ts: operator\/ is the composition root/);
    assert.match(r.stderr, /controller\/peek\.ts imports cache\/internal\/helper\.ts, an internal\/ file of the cache\/ stage/);
    assert.match(r.stderr, /controller\/long\.ts has 501 lines \(at most 500\)/);
    assert.doesNotMatch(r.stderr, /cache\.test\.ts/);
  });

  it('takes an allowed back edge out of the graph and reports an entry that matches nothing', () => {
    const src = join(
      fixture({
        ...CLEAN,
        'cache/back.ts': "import type { Controller } from '../controller/controller.js';\nexport type B = Controller;\n",
      }),
      'packages',
      'informer',
      'src',
    );
    const packages = [{ pkg: 'informer', src }];
    assert.deepEqual(checkLayers(packages, { 'cycle:informer:cache -> controller': 'test' }), []);
    const stale = checkLayers(packages, { 'cycle:informer:cache -> controller': 'test', 'size:informer/cache/cache.ts': 'fixed already' });
    assert.equal(stale.length, 1);
    assert.match(stale[0], /'size:informer\/cache\/cache\.ts' \(fixed already\) no longer matches anything/);
  });

  it("layers testing's apiserver/ stages and size-checks all of testing/src but generated code", () => {
    const root = fixture(
      {
        'index.ts': "export { start } from './apiserver/server.js';\n",
        'apiserver/server.ts': "import { verbs } from './registry/verbs.js';\nexport const start = verbs;\n",
        'apiserver/registry/verbs.ts': "import { store } from '../storage/store.js';\nexport const verbs = store;\n",
        // Outside the layered folder: imports upward freely, but stays under 500 lines.
        'apiserver/storage/store.ts': "import type { Shared } from '../../shared.js';\nexport const store: Shared = 1;\n",
        'shared.ts': "import { start } from './apiserver/server.js';\nexport type Shared = typeof start;\n",
        'apiserver/negotiation/protobuf/generated/big_pb.ts': 'export const x = 1;\n'.repeat(600),
      },
      'testing',
    );
    assert.equal(run(root, '--no-allow').status, 0, run(root, '--no-allow').stderr);
    const bad = fixture(
      {
        'apiserver/registry/verbs.ts': "import { store } from '../storage/store.js';\nexport const verbs = store;\n",
        'apiserver/storage/store.ts':
          "import type { verbs } from '../registry/verbs.js';\nexport const store = 1 as unknown as typeof verbs;\n",
        'helpers/long.ts': 'export const x = 1;\n'.repeat(501),
      },
      'testing',
    );
    const r = run(bad, '--no-allow');
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /testing\/src: folders in a cycle, apiserver\/storage -> apiserver\/registry \(apiserver\/storage\/store\.ts imports apiserver\/registry\/verbs\.ts\)/,
    );
    assert.match(r.stderr, /testing\/src\/helpers\/long\.ts has 501 lines \(at most 500\)/);
  });
});
