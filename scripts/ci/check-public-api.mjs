#!/usr/bin/env node
// The public-API check: every name the main entry of @kindex/core, @kindex/informer or
// @kindex/testing exports (its src/index.ts, what `import { X } from '@kindex/informer'` reaches) is
// there for users, since it is covered by semver and by the API reference. An export is kept when
//   1. a guide names it in code: a ```ts block or an inline `code` span of README.md, a package's
//      README.md, the create-kindex template's README.md or a page under docs/ (but docs/api/, which
//      TypeDoc generates from these very exports and so proves nothing);
//   2. the sample (samples/) or the create-kindex template (packages/create-kindex/template/src)
//      imports it: what a generated project compiles against is public by definition;
//   3. DOC_GAPS below lists it: an extension point or built-in a guide describes in prose without
//      naming it yet (each entry is a doc gap, so the list only shrinks);
//   4. a kept export's public signature names it (a parameter, property, return or base type, an
//      alias target, the inferred type of a constant) or its TSDoc links to it ({@link X}):
//      TypeDoc, run on the main entry by check-api-docs.mjs, fails on a public signature whose
//      type is not exported and on a link it cannot resolve, and users must be able to name what
//      they are handed.
// Everything else belongs in the package's src/internal.ts, the `@kindex/<name>/internal` subpath
// for the other kindex packages, their tests, the integration tests, bench and tools: it carries no
// semver promise and is left out of the API reference. The sample and the template must not import
// it (they show what users write).
//
// Fails naming each export no rule keeps, with the fix. Run by scripts/run-tests.mjs; by hand:
// `node scripts/ci/check-public-api.mjs` (`--explain` prints, for every main-entry export, the rule
// and place that keep it; `--root <dir>` checks another tree, as check-public-api.test.mjs does).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const rootArg = process.argv.indexOf('--root');
const root = rootArg > 0 ? process.argv[rootArg + 1] : join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PACKAGES = ['core', 'informer', 'testing'];
const explain = process.argv.includes('--explain');
// `--no-allow` ignores DOC_GAPS and EXAMPLES_USING_INTERNAL (for a fixture tree, as the test uses).
const allow = !process.argv.includes('--no-allow');

/**
 * Exports users need that a guide describes in prose without naming them in code yet: extension
 * points users implement or plug in, and the siblings of built-ins the guides name. Per package:
 * name -> the page that describes it (and should name it). Each entry is a doc gap, so the list
 * only shrinks: an entry the guides come to name, or that the package no longer exports, fails.
 * @type {Record<string, Record<string, string>>}
 */
export const DOC_GAPS = {
  core: {},
  informer: {},
  testing: {},
};

/**
 * Main-entry exports whose TSDoc @example still imports from an `/internal` subpath (they were
 * written when everything was public): `pkg Name` -> what to show instead. The API reference must
 * show only what users can import, so the list only shrinks.
 * @type {Record<string, string>}
 */
export const EXAMPLES_USING_INTERNAL = {};
const examplesUsingInternal = new Set();

/** Every file under `dir` whose name passes `keep`, skipping node_modules, dist and `skipDirs`. */
function filesUnder(dir, keep, skipDirs = []) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && keep(e.name))
    .map((e) => join(e.parentPath, e.name))
    .filter(
      (f) =>
        !relative(dir, f)
          .split('/')
          .some((part) => part === 'node_modules' || part === 'dist' || skipDirs.includes(part)),
    )
    .sort();
}

// --- 1. The guides: every identifier in their code (fenced blocks and inline code spans).
const guides = [
  join(root, 'README.md'),
  ...PACKAGES.map((p) => join(root, 'packages', p, 'README.md')),
  join(root, 'packages', 'create-kindex', 'README.md'),
  join(root, 'packages', 'create-kindex', 'template', 'README.md'),
  ...filesUnder(join(root, 'docs'), (n) => n.endsWith('.md')).filter((f) => relative(join(root, 'docs'), f).split('/')[0] !== 'api'),
].filter((f) => existsSync(f));

/**
 * The identifiers a Markdown page names in code: those of its ```ts and ```js blocks (parsed, so
 * comments and strings do not count) and those of its inline code spans. Other blocks (shell,
 * YAML, program output) are prose for this purpose.
 */
function identifiersOfMarkdown(text) {
  const names = new Set();
  const prose = [];
  let fence = null; // { marker, lang, lines }
  for (const line of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})\s*(\w*)/.exec(line);
    if (fence) {
      if (marker && line.trim() === marker[1] && marker[1][0] === fence.marker[0] && marker[1].length >= fence.marker.length) {
        if (/^(ts|typescript|tsx|js|javascript|mjs)$/i.test(fence.lang)) {
          const sf = ts.createSourceFile('block.ts', fence.lines.join('\n'), ts.ScriptTarget.Latest, true);
          const walk = (node) => {
            if (ts.isIdentifier(node)) names.add(node.text);
            ts.forEachChild(node, walk);
          };
          walk(sf);
        }
        fence = null;
      } else fence.lines.push(line);
    } else if (marker) fence = { marker: marker[1], lang: marker[2], lines: [] };
    else prose.push(line);
  }
  // An inline span may wrap a line; it is delimited by equal runs of backticks.
  for (const m of prose.join('\n').matchAll(/(`+)([^`]+?)\1/g)) for (const [name] of m[2].matchAll(/[A-Za-z_$][\w$]*/g)) names.add(name);
  return names;
}

/** name -> first guide (relative path) whose code names it. */
const namedInGuides = new Map();
for (const page of guides) {
  for (const name of identifiersOfMarkdown(readFileSync(page, 'utf8'))) {
    if (!namedInGuides.has(name)) namedInGuides.set(name, relative(root, page));
  }
}

// --- 2. The sample and the template: what they import from each package.
const exampleSources = [
  ...filesUnder(join(root, 'samples'), (n) => n.endsWith('.ts')),
  ...filesUnder(join(root, 'packages', 'create-kindex', 'template', 'src'), (n) => n.endsWith('.ts')),
];
const problems = [];
/** `pkg name` -> first sample or template file that imports it. */
const importedByExamples = new Map();
for (const file of exampleSources) {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  for (const statement of sf.statements) {
    const from = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier;
    if (!from || !ts.isStringLiteral(from)) continue;
    const m = /^@kindex\/(core|informer|testing)(\/.*)?$/.exec(from.text);
    if (!m) continue;
    if (m[2]) {
      const line = sf.getLineAndCharacterOfPosition(statement.getStart()).line + 1;
      problems.push(
        `${relative(root, file)}:${line}: imports ${from.text}; the sample and the template show what users write, so they use the main entry @kindex/${m[1]} only`,
      );
      continue;
    }
    const clause = ts.isImportDeclaration(statement) ? statement.importClause?.namedBindings : statement.exportClause;
    if (!clause || !('elements' in clause)) continue;
    for (const element of clause.elements) {
      const key = `${m[1]} ${(element.propertyName ?? element.name).text}`;
      if (!importedByExamples.has(key)) importedByExamples.set(key, relative(root, file));
    }
  }
}

// --- 3. The exports of each main entry and each `/internal` one, in one program so the packages'
// types resolve to one symbol.
const entries = PACKAGES.flatMap((pkg) =>
  ['index.ts', 'internal.ts']
    .map((entry) => ({ pkg, internal: entry === 'internal.ts', file: join(root, 'packages', pkg, 'src', entry) }))
    .filter((e) => existsSync(e.file)),
);
const options = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts'],
  types: ['node'],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
};
const program = ts.createProgram(
  entries.map((e) => e.file),
  options,
);
const checker = program.getTypeChecker();
const resolve = (s) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);

/** @type {{ pkg: string, internal: boolean, name: string, target: ts.Symbol }[]} */
const exported = [];
for (const { pkg, internal, file } of entries) {
  const sf = program.getSourceFile(file);
  if (!sf) throw new Error(`check-public-api: cannot read ${file}`);
  for (const s of checker.getExportsOfModule(checker.getSymbolAtLocation(sf)))
    exported.push({ pkg, internal, name: s.getName(), target: resolve(s) });
}
const byTarget = new Map();
const byName = new Map();
for (const e of exported) {
  byTarget.set(e.target, [...(byTarget.get(e.target) ?? []), e]);
  byName.set(e.name, [...(byName.get(e.name) ?? []), e]);
}

// --- 4. What a public signature names. TypeDoc documents public and protected members (not
// `private`, `#private` or `@internal` ones) and the inferred type where no annotation is written.
const hasModifier = (node, kind) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === kind);
const isHidden = (node) =>
  hasModifier(node, ts.SyntaxKind.PrivateKeyword) ||
  (node.name !== undefined && ts.isPrivateIdentifier(node.name)) ||
  ts.getJSDocTags(node).some((t) => t.tagName.text === 'internal');
const TYPED = (node) =>
  ts.isVariableDeclaration(node) ||
  ts.isPropertyDeclaration(node) ||
  ts.isPropertySignature(node) ||
  ts.isParameter(node) ||
  ts.isFunctionLike(node);
const PRINT_FLAGS = ts.NodeBuilderFlags.NoTruncation | ts.NodeBuilderFlags.IgnoreErrors;

/** The exports a declaration's public surface names, by symbol where written and by name where inferred. */
function namedBySignature(declaration, owner) {
  const found = new Set();
  const addSymbol = (node) => {
    const s = checker.getSymbolAtLocation(node);
    for (const e of (s && byTarget.get(resolve(s))) ?? []) found.add(e);
  };
  const addNames = (typeNode) => {
    const walk = (n) => {
      if (ts.isIdentifier(n)) for (const e of byName.get(n.text) ?? []) found.add(e);
      ts.forEachChild(n, walk);
    };
    if (typeNode) walk(typeNode);
  };
  const visit = (node) => {
    if (node !== declaration && isHidden(node)) return;
    // The doc comment of `export const x` belongs to its statement.
    const statement = ts.isVariableDeclaration(node) ? node.parent?.parent : undefined;
    for (const doc of [...(node.jsDoc ?? []), ...((statement && ts.isVariableStatement(statement) && statement.jsDoc) || [])]) {
      const text = doc.getText();
      for (const m of text.matchAll(/\{@link(?:code|plain)?\s+([A-Za-z_$][\w$]*)/g)) for (const e of byName.get(m[1]) ?? []) found.add(e);
      if (!owner.internal && /from '@kindex\/(core|informer|testing)\/internal'/.test(text)) examplesUsingInternal.add(key(owner));
    }
    if (ts.isBlock(node)) return; // a body is no signature
    if (ts.isTypeReferenceNode(node)) addSymbol(ts.isQualifiedName(node.typeName) ? node.typeName.right : node.typeName);
    else if (ts.isExpressionWithTypeArguments(node)) addSymbol(node.expression);
    else if (ts.isTypeQueryNode(node)) addSymbol(ts.isQualifiedName(node.exprName) ? node.exprName.right : node.exprName);
    if (TYPED(node) && !node.type && !ts.isConstructorDeclaration(node) && !ts.isSetAccessor(node)) {
      if (ts.isFunctionLike(node)) {
        const signature = checker.getSignatureFromDeclaration(node);
        if (signature) addNames(checker.typeToTypeNode(checker.getReturnTypeOfSignature(signature), undefined, PRINT_FLAGS));
      } else addNames(checker.typeToTypeNode(checker.getTypeAtLocation(node), undefined, PRINT_FLAGS));
    }
    ts.forEachChild(node, visit);
  };
  visit(declaration);
  return found;
}

// --- 5. Keep the documented exports and, transitively, what their signatures name.
/** `pkg name` -> why it is kept. */
const kept = new Map();
const key = (e) => `${e.pkg}${e.internal ? '/internal' : ''} ${e.name}`;
const queue = [];
const keep = (e, why) => {
  if (kept.has(key(e))) return;
  kept.set(key(e), why);
  queue.push(e);
};
for (const e of exported) {
  const guide = namedInGuides.get(e.name);
  const example = importedByExamples.get(key(e));
  const gap = allow ? DOC_GAPS[e.pkg][e.name] : undefined;
  if (guide) keep(e, `named in ${guide}`);
  else if (example) keep(e, `imported by ${example}`);
  else if (gap) keep(e, `described in ${gap} (a doc gap: name it there)`);
}
for (const [pkg, points] of Object.entries(allow ? DOC_GAPS : {})) {
  for (const [name, page] of Object.entries(points)) {
    const e = exported.find((x) => x.pkg === pkg && !x.internal && x.name === name);
    if (!e) problems.push(`DOC_GAPS lists @kindex/${pkg} ${name}, which its src/index.ts does not export: remove the entry`);
    else if (namedInGuides.has(name) || importedByExamples.has(key(e)))
      problems.push(`DOC_GAPS lists @kindex/${pkg} ${name}, which a guide or the sample now names: remove the entry`);
    else if (!existsSync(join(root, page))) problems.push(`DOC_GAPS: @kindex/${pkg} ${name} cites ${page}, which does not exist`);
  }
}
while (queue.length) {
  const e = queue.shift();
  for (const d of e.target.declarations ?? []) {
    for (const named of namedBySignature(d, e)) keep(named, `named by the signature or TSDoc of @kindex/${e.pkg} ${e.name}`);
  }
}

// --- 6. Report.
for (const k of examplesUsingInternal) {
  if (!allow || !(k in EXAMPLES_USING_INTERNAL)) {
    problems.push(
      `@kindex/${k.replace(' ', ': ')}: an @example of its TSDoc imports from an /internal subpath, which the API reference must not show users: write it with the main entries' API`,
    );
  }
}
for (const k of Object.keys(allow ? EXAMPLES_USING_INTERNAL : {})) {
  if (!examplesUsingInternal.has(k))
    problems.push(`EXAMPLES_USING_INTERNAL lists ${k}, whose examples no longer import /internal: remove the entry`);
}
let keptCount = 0;
for (const pkg of PACKAGES) {
  const own = exported.filter((e) => e.pkg === pkg && !e.internal);
  const internal = exported.filter((e) => e.pkg === pkg && e.internal);
  for (const e of internal) {
    if (own.some((x) => x.name === e.name))
      problems.push(`@kindex/${pkg} exports ${e.name} from both src/index.ts and src/internal.ts: keep one`);
    else if (kept.has(key(e))) {
      problems.push(
        `@kindex/${pkg}/internal exports ${e.name}, but it is ${kept.get(key(e))}: users need it, so export it from packages/${pkg}/src/index.ts instead`,
      );
    }
  }
  const loose = own.filter((e) => !kept.has(key(e)));
  keptCount += own.length - loose.length;
  for (const e of loose) {
    problems.push(
      `@kindex/${pkg} exports ${e.name} from its main entry, but no guide, sample or template names it and no public signature needs it: ` +
        `document it (in docs/ or the README, in code) or move its export to packages/${pkg}/src/internal.ts (import it from '@kindex/${pkg}/internal')`,
    );
  }
  if (explain) for (const e of own) console.log(`@kindex/${pkg} ${e.name}: ${kept.get(key(e)) ?? 'NOT KEPT'}`);
}
if (problems.length) {
  for (const p of problems) console.error(p);
  console.error(
    `public API: ${problems.length} problem(s) in ${exported.filter((e) => !e.internal).length} main-entry exports (${guides.length} guides read)`,
  );
  process.exit(1);
}
console.log(
  `public API: all ${keptCount} main-entry exports are documented, used by the sample or template, or named by a public signature`,
);
