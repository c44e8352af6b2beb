#!/usr/bin/env node
// Every exported symbol of the main entries of @kindex/core, @kindex/informer and @kindex/testing
// carries an `@example`, and every `@example` code block in their sources (those reached through
// the `/internal` entries included) compiles. A reader copies examples into their own operator, so
// an example that no longer compiles is a bug in the docs.
//
// How: the TypeScript compiler API lists each package's exports (src/index.ts) and finds every
// JSDoc `@example` in its source files; each fenced code block becomes one module under
// packages/informer/.cache/doc-examples-*/ (@kindex/informer resolves by its own name there, and it
// depends on core, testing, rxjs and @kubernetes/client-node: imports resolve as for a user), and one tsc
// program type-checks them all with strict settings. Examples may use top-level await and declare
// free variables with `declare const x: T;`.
//
// The ```ts blocks of the READMEs (the root one and each package's) and of every page under docs/
// (but the generated docs/api/) are checked the same way, in the same program: a newcomer pastes
// the README's tour and the guides' code first. A block may need declarations it
// does not show (the reader's own `kubeConfig`, the types of the tour's resources): an HTML
// comment right before the fence, `<!-- example-preamble ... -->`, holds them. The preamble is
// compiled in front of the block and never rendered; the visible code must compile as written.
// A page that shows a project of several files names each block's file with a comment right
// before the fence (or its preamble), `<!-- example-file: src/operator.ts -->`: the named blocks
// of one page are written side by side under those paths, so `import definition from
// './operator.js'` in the page's src/main.ts block resolves to its src/operator.ts block.
//
// Fails, naming the symbol and file:line, on an example that does not compile or an exported
// symbol without an example. `--entry <index.ts>` (repeatable) checks other entry files instead of
// the three packages, `--readme <file.md>` (repeatable) other Markdown files instead of the
// READMEs, and `--docs <dir>` (repeatable) another folder of pages instead of docs/;
// scripts/ci/check-doc-examples.test.mjs uses them to prove the check fails.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const started = Date.now();

const entryArgs = [];
const readmeArgs = [];
const docsArgs = [];
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i] === '--entry') entryArgs.push(process.argv[++i]);
  else if (process.argv[i] === '--readme') readmeArgs.push(process.argv[++i]);
  else if (process.argv[i] === '--docs') docsArgs.push(process.argv[++i]);
}
const fixtureRun = entryArgs.length > 0 || readmeArgs.length > 0 || docsArgs.length > 0;
const entries = fixtureRun ? entryArgs : ['core', 'informer', 'testing'].map((p) => join(root, 'packages', p, 'src', 'index.ts'));
// The `/internal` entries (src/internal.ts) are read too, so the examples their sources carry keep
// compiling, but their exports need none: they are for kindex's own packages, tests and tools, not
// in the API reference and not what a reader copies into an operator (scripts/ci/check-public-api.mjs).
const internalEntries = fixtureRun ? [] : entries.map((e) => join(dirname(e), 'internal.ts')).filter((e) => existsSync(e));

/** Every .md file under a docs folder, in a stable order, leaving out `api/` (TypeDoc's output). */
function markdownPages(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => relative(dir, f).split('/')[0] !== 'api')
    .sort();
}
const readmes = fixtureRun
  ? [...readmeArgs, ...docsArgs.flatMap(markdownPages)]
  : [
      ...[join(root, 'README.md'), ...['core', 'informer', 'testing'].map((p) => join(root, 'packages', p, 'README.md'))].filter((f) =>
        existsSync(f),
      ),
      ...markdownPages(join(root, 'docs')),
    ];

const sourceOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts'],
  types: ['node', 'mocha'],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
};

// --- 1. The exported symbols and the source files that hold doc comments.
const sourceProgram = ts.createProgram([...entries, ...internalEntries], sourceOptions);
const checker = sourceProgram.getTypeChecker();
const packageDirs = entries.map((e) => dirname(e));
const isOurs = (file) => packageDirs.some((d) => file.startsWith(d + '/')) && !/\.test\.ts$/.test(file) && !file.endsWith('.d.ts');

/** `{ name, declarations }` of every export of one entry file. */
function exportsOf(entry) {
  const sf = sourceProgram.getSourceFile(entry);
  if (!sf) throw new Error(`check-doc-examples: cannot read entry file ${entry}`);
  const moduleSymbol = checker.getSymbolAtLocation(sf);
  if (!moduleSymbol) return [];
  return checker.getExportsOfModule(moduleSymbol).map((s) => {
    const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
    return { name: s.getName(), entry, declarations: target.declarations ?? [] };
  });
}

// --- 2. Every @example in the sources: raw comment text, so each code line keeps its file line.
/** The doc comments directly attached to a node (the JSDoc of `export const x` sits on its statement). */
function jsDocsOf(node) {
  if (ts.isVariableStatement(node)) return []; // read through its declarations, so each example counts once
  const own = node.jsDoc ?? [];
  if (ts.isVariableDeclaration(node) && node.parent?.parent && ts.isVariableStatement(node.parent.parent)) {
    return [...own, ...(node.parent.parent.jsDoc ?? [])];
  }
  return own;
}

/**
 * The fenced code blocks of the `@example` tags of one doc comment, with the 1-based line of their
 * first code line, and the lines of `@example` tags with no fenced block at all (TypeDoc would show
 * their text as code, but nothing here could check it).
 */
function examplesInComment(sf, jsDoc) {
  const text = sf.text.slice(jsDoc.pos, jsDoc.end);
  const firstLine = sf.getLineAndCharacterOfPosition(jsDoc.pos).line + 1;
  const lines = text.split('\n').map((l) =>
    l
      .replace(/^\s*\/\*\*\s?/, '')
      .replace(/\s*\*\/\s*$/, '')
      .replace(/^\s*\*(\s|$)/, ''),
  );
  const blocks = [];
  let inExample = false;
  let fence = null; // { start, code: [] }
  const sections = []; // { line, fenced } per @example tag
  lines.forEach((line, i) => {
    if (fence) {
      if (/^\s*```\s*$/.test(line)) {
        blocks.push({ line: fence.start, code: fence.code.join('\n') });
        fence = null;
      } else fence.code.push(line);
      return;
    }
    if (/^\s*@example\b/.test(line)) {
      inExample = true;
      sections.push({ line: firstLine + i, fenced: false });
    } else if (/^\s*@\w+/.test(line)) inExample = false;
    const open = /^\s*```\s*(\w*)\s*$/.exec(line);
    if (inExample && open) sections[sections.length - 1].fenced = true;
    if (inExample && open && /^(ts|typescript)$/i.test(open[1])) fence = { start: firstLine + i + 1, code: [] };
  });
  const unfenced = sections.filter((x) => !x.fenced).map((x) => x.line);
  return { hasExampleTag: sections.length > 0, blocks, unfenced };
}

/** A readable name for the declaration a doc comment belongs to: `Class.method`, `fn`, `Interface.field`. */
function nameOf(node) {
  const parts = [];
  for (let n = node; n && !ts.isSourceFile(n); n = n.parent) {
    if (ts.isVariableStatement(n)) continue;
    const name = n.name;
    if (name && (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isPrivateIdentifier(name))) parts.unshift(name.text);
    else if (ts.isConstructorDeclaration(n)) parts.unshift('constructor');
  }
  return parts.join('.') || '(anonymous)';
}

const examples = []; // { symbol, file, line, code }
const problems = [];
// Short paths inside the working directory, absolute ones outside it (a fixture in the temp dir).
const shortPath = (from, file) => {
  const r = relative(from, file);
  return r.startsWith('..') || isAbsolute(r) ? file : r;
};
const where = (file, line) => `${shortPath(process.cwd(), file)}:${line}`;
const declarationsWithExample = new Set();
for (const sf of sourceProgram.getSourceFiles()) {
  if (!isOurs(sf.fileName)) continue;
  const visit = (node) => {
    for (const jsDoc of jsDocsOf(node)) {
      const { hasExampleTag, blocks, unfenced } = examplesInComment(sf, jsDoc);
      if (hasExampleTag && blocks.length) declarationsWithExample.add(node);
      for (const line of unfenced) problems.push(`${where(sf.fileName, line)}: @example of ${nameOf(node)} has no \`\`\`ts code block`);
      for (const b of blocks) examples.push({ symbol: nameOf(node), file: sf.fileName, line: b.line, code: b.code });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

// --- 2b. Every ```ts block of the READMEs, with its preamble (see the header).
/** The ```ts blocks of one Markdown file: 1-based line of the first code line, code, preamble. */
function blocksInMarkdown(file) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks = [];
  let preamble = null; // { line, code: [] } of the comment just read, until a fence or other text
  let fileName = null; // of the `example-file` comment just read, likewise
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const named = /^\s*<!--\s*example-file:\s*(\S+)\s*-->\s*$/.exec(line);
    if (named) {
      if (!/^(?!\/)(?!.*\.\.)[\w./-]+\.ts$/.test(named[1])) {
        throw new Error(`${file}:${i + 1}: example-file needs a relative .ts path without '..', got ${named[1]}`);
      }
      fileName = named[1];
      continue;
    }
    if (/^\s*<!--\s*example-preamble\b/.test(line)) {
      const start = i;
      const code = [line.replace(/^\s*<!--\s*example-preamble\b/, '')];
      while (!code[code.length - 1].includes('-->') && i + 1 < lines.length) code.push(lines[++i]);
      code[code.length - 1] = code[code.length - 1].replace(/-->\s*$/, '');
      preamble = { line: start + 1, code };
      continue;
    }
    const open = /^\s*(`{3,})\s*(\w*)/.exec(line);
    if (!open) {
      if (line.trim() !== '') preamble = fileName = null; // both belong to the block right after them
      continue;
    }
    const start = i;
    const code = [];
    while (i + 1 < lines.length && !new RegExp(`^\\s*${open[1]}\\s*$`).test(lines[i + 1])) code.push(lines[++i]);
    i++;
    if (/^(ts|typescript)$/i.test(open[2])) blocks.push({ line: start + 2, code: code.join('\n'), preamble, fileName });
    preamble = fileName = null;
  }
  return blocks;
}
let readmeBlockCount = 0;
readmes.forEach((file, page) => {
  for (const b of blocksInMarkdown(file)) {
    readmeBlockCount++;
    const symbol = `the ${basename(file) === 'README.md' ? 'README' : 'Markdown'} block at line ${b.line}`;
    // Preamble lines keep their own Markdown lines in diagnostics; the block's follow it.
    const lineMap = b.preamble ? [...b.preamble.code.map((_, i) => b.preamble.line + i)] : [];
    const path = b.fileName === null ? undefined : join(`page-${page}`, b.fileName);
    examples.push({ symbol, file, line: b.line, code: b.code, preamble: b.preamble?.code.join('\n'), lineMap, path });
  }
});

let exportCount = 0;
for (const entry of entries) {
  for (const { name, declarations } of exportsOf(entry)) {
    exportCount++;
    if (declarations.some((d) => declarationsWithExample.has(d))) continue;
    const d = declarations[0];
    const at = d ? where(d.getSourceFile().fileName, d.getSourceFile().getLineAndCharacterOfPosition(d.getStart()).line + 1) : entry;
    problems.push(`${at}: ${name} (exported by ${shortPath(root, entry)}) has no @example with a \`\`\`ts code block`);
  }
}

// --- 3. One program over all examples.
// A directory of its own per run, so two runs (the check and its test) never share files.
const cacheDir = join(root, 'packages', 'informer', '.cache');
mkdirSync(cacheDir, { recursive: true });
const outDir = mkdtempSync(join(cacheDir, 'doc-examples-'));
const exampleFiles = new Map();
examples.forEach((ex, i) => {
  const file = join(outDir, ex.path ?? `example-${String(i).padStart(4, '0')}.ts`);
  if (exampleFiles.has(file)) problems.push(`${where(ex.file, ex.line)}: ${ex.symbol} names a file another block of the page names too`);
  mkdirSync(dirname(file), { recursive: true });
  // `export {}` makes a snippet without imports a module too, so top-level await works everywhere.
  writeFileSync(file, `${ex.preamble === undefined ? '' : `${ex.preamble}\n`}${ex.code}\nexport {};\n`);
  exampleFiles.set(file, ex);
});

const exampleProgram = ts.createProgram([...exampleFiles.keys()], {
  ...sourceOptions,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  noFallthroughCasesInSwitch: true,
  forceConsistentCasingInFileNames: true,
});
for (const [file, ex] of exampleFiles) {
  const sf = exampleProgram.getSourceFile(file);
  const diagnostics = [...exampleProgram.getSyntacticDiagnostics(sf), ...exampleProgram.getSemanticDiagnostics(sf)];
  for (const d of diagnostics) {
    const line = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line;
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n    ');
    const preambleLines = ex.lineMap?.length ?? 0;
    const at = line < preambleLines ? ex.lineMap[line] : ex.line + line - preambleLines;
    const what = ex.lineMap ? ex.symbol : `@example of ${ex.symbol}`;
    problems.push(`${where(ex.file, at)}: ${what} does not compile: TS${d.code}: ${message}`);
  }
}

rmSync(outDir, { recursive: true, force: true });
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (problems.length) {
  for (const p of problems) console.error(p);
  console.error(
    `doc examples: ${problems.length} problem(s) in ${examples.length - readmeBlockCount} examples of ${exportCount} exports and ${readmeBlockCount} Markdown blocks (${seconds}s)`,
  );
  process.exit(1);
}
console.log(
  `doc examples: all ${exportCount} exports have an @example; ${examples.length - readmeBlockCount} examples and ${readmeBlockCount} Markdown blocks compile (${seconds}s)`,
);
