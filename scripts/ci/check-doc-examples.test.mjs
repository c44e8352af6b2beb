#!/usr/bin/env node
// Proves check-doc-examples.mjs can fail: run on a small fixture package (through its `--entry`
// option), it must name an example that does not compile by symbol and file:line, and an export
// without an example, and exit non-zero; on a fixture whose examples all compile it must pass.
// The same for the ```ts blocks of a Markdown file (its `--readme` option), with and without an
// `<!-- example-preamble -->` comment, and for every page of a docs folder but its generated api/
// (its `--docs` option), whose blocks named by `<!-- example-file: ... -->` import each other.
// Run by scripts/run-tests.mjs; by hand: `node scripts/ci/check-doc-examples.test.mjs`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';

const script = join(dirname(fileURLToPath(import.meta.url)), 'check-doc-examples.mjs');
const dir = mkdtempSync(join(tmpdir(), 'kindex-doc-examples-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// An example that imports from the workspace packages, as the real ones do.
const GOOD = `/**
 * Builds the key of a ConfigMap.
 *
 * @example
 * \`\`\`ts
 * import { ResourceID } from '@kindex/core';
 * const key: string = ResourceID.of('web-config', 'shop').key;
 * \`\`\`
 */
export function good(): void {}
`;

// Line 6 of this text (the assignment) is the one tsc rejects.
const BROKEN = `/**
 * Counts things.
 *
 * @example
 * \`\`\`ts
 * const count: number = 'three';
 * \`\`\`
 */
export function broken(): void {}

/** Has documentation but no example. */
export const withoutExample = 1;

/**
 * Its example is not in a fenced block, so nothing could type-check it.
 *
 * @example
 * unfenced();
 */
export function unfenced(): void {}
`;

// A README: a block that compiles only with its hidden preamble, a block that does not compile
// (line 12 of this text), and a block in another language that is not checked.
const README = `# fixture

<!-- example-preamble
import type { KubernetesObject } from '@kindex/core';
declare const job: KubernetesObject;
-->
\`\`\`ts
const name: string | undefined = job.metadata?.name;
\`\`\`

\`\`\`ts
const replicas: number = 'three';
\`\`\`

\`\`\`sh
not typescript at all
\`\`\`
`;

function checkReadme(markdown) {
  const file = join(mkdtempSync(join(dir, 'readme-')), 'README.md');
  writeFileSync(file, markdown);
  const r = spawnSync(process.execPath, [script, '--readme', file], { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** Writes `{ 'concepts/x.md': text }` under a fresh docs folder and checks it with `--docs`. */
function checkDocs(pages) {
  const docs = mkdtempSync(join(dir, 'docs-'));
  for (const [path, text] of Object.entries(pages)) {
    mkdirSync(dirname(join(docs, path)), { recursive: true });
    writeFileSync(join(docs, path), text);
  }
  const r = spawnSync(process.execPath, [script, '--docs', docs], { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

function check(source) {
  const sub = mkdtempSync(join(dir, 'pkg-'));
  const entry = join(sub, 'index.ts');
  writeFileSync(entry, source);
  const r = spawnSync(process.execPath, [script, '--entry', entry], { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}`, entry };
}

describe('check-doc-examples.mjs', () => {
  it('fails on an example that does not compile, an export without an example and an unfenced example, naming each', () => {
    const { status, output, entry } = check(`${GOOD}\n${BROKEN}`);
    assert.equal(status, 1, output);
    const brokenLine = `${GOOD}\n${BROKEN}`.split('\n').findIndex((l) => l.includes("'three'")) + 1;
    assert.match(
      output,
      // The fixture's own directory and file, whether the path is printed absolute or relative.
      new RegExp(`${basename(dirname(entry))}/index\\.ts:${brokenLine}: @example of broken does not compile: TS2322`),
    );
    assert.match(output, /withoutExample \(exported by .*\) has no @example/);
    assert.match(output, /@example of unfenced has no ```ts code block/);
    assert.doesNotMatch(output, /of good does not compile/);
    assert.match(output, /4 problem\(s\) in 2 examples of 4 exports/);
  });

  it('passes when every export has an example that compiles', () => {
    const { status, output } = check(GOOD);
    assert.equal(status, 0, output);
    assert.match(output, /all 1 exports have an @example; 1 examples and 0 Markdown blocks compile/);
  });

  it('fails on a README block that does not compile, naming its Markdown line, and compiles a block with its preamble', () => {
    const { status, output } = checkReadme(README);
    assert.equal(status, 1, output);
    assert.match(output, /README\.md:12: the README block at line 12 does not compile: TS2322/);
    assert.doesNotMatch(output, /line 8 does not compile/);
    assert.match(output, /1 problem\(s\) in 0 examples of 0 exports and 2 Markdown blocks/);
  });

  it('fails on a README block whose declarations are neither shown nor in a preamble', () => {
    const { status, output } = checkReadme(
      README.replace(/<!-- example-preamble[^]*?-->\n/, '').replace(/```ts\nconst replicas[^]*?```\n/, ''),
    );
    assert.equal(status, 1, output);
    assert.match(output, /README\.md:4: the README block at line 4 does not compile: TS2304: Cannot find name 'job'/);
  });

  it('checks every page of a docs folder, nested ones too, and leaves out its generated api/ folder', () => {
    const broken = "# page\n\n```ts\nconst replicas: number = 'three';\n```\n";
    const good = '# page\n\n```ts\nconst replicas: number = 3;\n```\n';
    const failing = checkDocs({ 'guide.md': good, 'concepts/deep.md': broken, 'api/generated.md': broken });
    assert.equal(failing.status, 1, failing.output);
    assert.match(failing.output, /concepts\/deep\.md:4: the Markdown block at line 4 does not compile: TS2322/);
    assert.doesNotMatch(failing.output, /generated\.md/);
    assert.match(failing.output, /1 problem\(s\) in 0 examples of 0 exports and 2 Markdown blocks/);

    const passing = checkDocs({ 'guide.md': good, 'concepts/deep.md': good, 'api/generated.md': broken });
    assert.equal(passing.status, 0, passing.output);
    assert.match(passing.output, /0 examples and 2 Markdown blocks compile/);
  });

  it('writes the blocks of a page named by example-file side by side, so one imports another', () => {
    const page = (use) =>
      [
        '# project',
        '',
        '<!-- example-file: src/greeting.ts -->',
        '```ts',
        "export const greeting = 'hello';",
        '```',
        '',
        '<!-- example-file: src/main.ts -->',
        '```ts',
        "import { greeting } from './greeting.js';",
        `${use};`,
        '```',
        '',
      ].join('\n');
    const passing = checkDocs({ 'project.md': page('const length: number = greeting.length') });
    assert.equal(passing.status, 0, passing.output);
    assert.match(passing.output, /0 examples and 2 Markdown blocks compile/);

    const failing = checkDocs({ 'project.md': page('const length: string = greeting.length') });
    assert.equal(failing.status, 1, failing.output);
    assert.match(failing.output, /project\.md:11: the Markdown block at line 10 does not compile: TS2322/);
  });

  it('passes a README whose blocks all compile', () => {
    const { status, output } = checkReadme(README.replace("'three'", '3'));
    assert.equal(status, 0, output);
    assert.match(output, /0 examples and 2 Markdown blocks compile/);
  });
});
