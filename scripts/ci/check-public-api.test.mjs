#!/usr/bin/env node
// Proves check-public-api.mjs can fail: on a small fixture workspace (through its `--root` option)
// it must pass when every main-entry export is named by a guide's code, imported by the sample, or
// named by a kept export's signature or {@link}; and it must name, and exit non-zero on, an export
// nothing documents (a generated docs/api/ page and a guide's prose do not count), an /internal
// export a public signature needs, a sample importing /internal, and a public @example importing
// /internal. Run by scripts/run-tests.mjs; by hand: `node scripts/ci/check-public-api.test.mjs`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';

const script = join(dirname(fileURLToPath(import.meta.url)), 'check-public-api.mjs');
const dirs = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A workspace root holding `files` (path from the root -> text). */
function fixture(files) {
  const root = mkdtempSync(join(tmpdir(), 'kindex-public-api-test-'));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const run = (root) => spawnSync(process.execPath, [script, '--root', root, '--no-allow'], { encoding: 'utf8' });

const CLEAN = {
  'packages/core/src/index.ts': [
    "export { Widget, type WidgetOptions, sizeOf } from './widget.js';",
    "export { makeGadget } from './gadget.js';",
    '',
  ].join('\n'),
  'packages/core/src/internal.ts': "export { secret } from './widget.js';\n",
  'packages/core/src/widget.ts': [
    '/** Options of a widget. */',
    'export interface WidgetOptions { size: number }',
    '/** A widget; {@link sizeOf} measures one. */',
    'export class Widget { constructor(readonly options: WidgetOptions) {} }',
    '/** Its size. */',
    'export function sizeOf(widget: Widget): number { return widget.options.size; }',
    '/** Not for users. */',
    'export const secret = 42;',
    '',
  ].join('\n'),
  'packages/core/src/gadget.ts': '/** A gadget. */\nexport function makeGadget(): number { return 1; }\n',
  'README.md': "# fixture\n\n```ts\nimport { Widget } from '@kindex/core';\nconst w = new Widget({ size: 1 });\n```\n",
  'samples/demo/src/main.ts': "import { makeGadget } from '@kindex/core';\nmakeGadget();\n",
};

describe('check-public-api', () => {
  it('passes when every export is documented, imported by the sample, or needed by a kept signature or link', () => {
    const r = run(fixture(CLEAN));
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /all 4 main-entry exports/);
  });

  it('names an export that only prose, a generated API page or nothing at all mentions, with the fix', () => {
    const r = run(
      fixture({
        ...CLEAN,
        'packages/core/src/index.ts': CLEAN['packages/core/src/index.ts'] + "export { lonely, prosaic, referenced } from './more.js';\n",
        'packages/core/src/more.ts': [
          '/** Nobody names it. */',
          'export const lonely = 1;',
          '/** A guide mentions it outside code. */',
          'export const prosaic = 2;',
          '/** Only the generated reference names it. */',
          'export const referenced = 3;',
          '',
        ].join('\n'),
        'docs/guide.md': '# Guide\n\nThe prosaic way.\n\n```sh\nreferenced\n```\n',
        'docs/api/more.md': '`referenced`\n',
      }),
    );
    assert.notEqual(r.status, 0);
    for (const name of ['lonely', 'prosaic', 'referenced']) {
      assert.match(
        r.stderr,
        new RegExp(`@kindex/core exports ${name} from its main entry.*move its export to packages/core/src/internal\\.ts`),
      );
    }
    assert.match(r.stderr, /3 problem\(s\)/);
  });

  it('names an /internal export that a public signature needs', () => {
    const r = run(
      fixture({
        ...CLEAN,
        'packages/core/src/index.ts': "export { Widget, sizeOf } from './widget.js';\nexport { makeGadget } from './gadget.js';\n",
        'packages/core/src/internal.ts': "export { secret, type WidgetOptions } from './widget.js';\n",
      }),
    );
    assert.notEqual(r.status, 0);
    assert.match(
      r.stderr,
      /@kindex\/core\/internal exports WidgetOptions, but it is named by the signature.*export it from packages\/core\/src\/index\.ts/,
    );
  });

  it('names a sample that imports /internal, and a public example that does', () => {
    const r = run(
      fixture({
        ...CLEAN,
        'samples/demo/src/peek.ts': "import { secret } from '@kindex/core/internal';\nvoid secret;\n",
        'packages/core/src/gadget.ts': [
          '/**',
          ' * A gadget.',
          ' *',
          ' * @example',
          ' * ```ts',
          " * import { makeGadget } from '@kindex/core';",
          " * import { secret } from '@kindex/core/internal';",
          ' * makeGadget() + secret;',
          ' * ```',
          ' */',
          'export function makeGadget(): number { return 1; }',
          '',
        ].join('\n'),
      }),
    );
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /samples\/demo\/src\/peek\.ts:1: imports @kindex\/core\/internal/);
    assert.match(r.stderr, /@kindex\/core: makeGadget: an @example of its TSDoc imports from an \/internal subpath/);
  });
});
