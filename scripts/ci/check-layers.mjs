#!/usr/bin/env node
// The layering of packages/informer/src, packages/core/src and the embedded API server's stages
// (packages/testing/src/apiserver/), checked on the folder import graph derived from the sources'
// relative imports (tests, benches and fixtures left out):
// - folders import only downward: no cycle between folders (two folders that import each other
//   cannot be understood, tested or replaced one at a time); an allowed back edge is taken out of
//   the graph first, so the cycles it closes are not reported while its fix is under way;
// - `operator/` is the composition root: no other folder imports it (only the package's index.ts);
// - an `internal/` folder belongs to its stage: another stage never imports it (the package-wide
//   `src/internal/` is shared by all stages);
// - no source file over 500 lines (a file that long does several jobs), in all of packages/testing/src
//   too; generated code (a `generated/` folder) is exempt.
// What is still being fixed is listed in ALLOWED below, each with the change that removes it; an entry
// that no longer matches anything fails the check too, so the list shrinks as the fixes land.
// Run by scripts/run-tests.mjs; by hand: `node scripts/ci/check-layers.mjs` (`--root <dir>` to
// check another tree, as check-layers.test.mjs does; `--no-allow` to ignore the allow-list).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MAX_LINES = 500;

/**
 * Known offenders, each with the change that removes it. Keys: `cycle:<pkg>:<a> -> <b>` (one folder
 * edge of a cycle), `internal:<pkg>:<importing file> -> <imported file>`, `size:<pkg>/<file>`.
 */
/** @type {Record<string, string>} */
export const ALLOWED = {};

const SKIP_FILE = /\.(test|test-d|bench|internal\.test)\.ts$/;
const SKIP_DIR = new Set(['fixtures', 'node_modules', 'dist']);
// Code written by a generator (scripts/generate-protobuf.sh): its length is the schema's, not a design choice.
const GENERATED = /(^|\/)generated\//;
// Static imports and re-exports, `import type`, and type-position `import('...')` expressions.
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

function sources(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (!SKIP_DIR.has(entry)) out.push(...sources(path));
    } else if (entry.endsWith('.ts') && !SKIP_FILE.test(entry)) out.push(path);
  }
  return out;
}

// The stage of a file: its first folder under src/ ('.' for index.ts and other root files); with
// `layers`, its first folder under src/<layers>/ (`<layers>` itself for the files directly in it).
const stageOf = (rel, layers) => {
  if (layers === undefined) return rel.includes('/') ? rel.split('/')[0] : '.';
  const inner = rel.slice(layers.length + 1);
  return inner.includes('/') ? `${layers}/${inner.split('/')[0]}` : layers;
};
const posix = (p) => p.split(sep).join('/');

/**
 * Checks one package's src/ folder.
 * @param {string} pkg short name used in messages and allow-list keys
 * @param {string} src the src/ folder
 * @param {Record<string, string>} allowed the allow-list: its `cycle:` edges are left out of the graph
 *   before cycles are looked for, so one back edge allowed breaks the cycles it closes
 * @param {string} [layers] a folder of src/ whose own folders are the stages (testing's `apiserver`):
 *   only its files are layered, every file of src/ is size-checked
 * @returns {{ problems: { key: string, message: string }[], edges: Map<string, string[]> }}
 */
export function checkPackage(pkg, src, allowed = {}, layers = undefined) {
  const problems = [];
  const edges = new Map(); // "a -> b" → the imports behind it
  for (const file of sources(src)) {
    const rel = posix(relative(src, file));
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_LINES && !GENERATED.test(rel)) {
      problems.push({
        key: `size:${pkg}/${rel}`,
        message: `${pkg}/src/${rel} has ${lines} lines (at most ${MAX_LINES}): split it by job, one concept a file`,
      });
    }
    if (layers !== undefined && !rel.startsWith(`${layers}/`)) continue;
    const from = stageOf(rel, layers);
    for (const match of text.matchAll(IMPORT)) {
      const target = posix(relative(src, resolve(dirname(file), match[1]))).replace(/\.js$/, '.ts');
      if (target.startsWith('..')) continue; // another package's source: dependency-cruiser's job
      if (layers !== undefined && !target.startsWith(`${layers}/`)) continue; // outside the layered folder
      const to = stageOf(target, layers);
      if (to === from) continue;
      if (to === 'operator' && from !== '.') {
        problems.push({
          key: `operator:${pkg}:${rel}`,
          message: `${pkg}/src/${rel} imports ${target}: operator/ is the composition root and nothing below it imports it; pass what the code needs in as a narrow interface declared beside it`,
        });
      }
      if (to !== 'internal' && target.split('/').includes('internal')) {
        problems.push({
          key: `internal:${pkg}:${rel} -> ${target}`,
          message: `${pkg}/src/${rel} imports ${target}, an internal/ file of the ${to}/ stage: move the shared helper up to src/internal/ or to a public file of the stage both use`,
        });
      }
      const edge = `${from} -> ${to}`;
      if (!edges.has(edge)) edges.set(edge, []);
      edges.get(edge).push(`${rel} imports ${target}`);
    }
  }
  // An allowed back edge counts as matched while it still closes a cycle of the whole graph.
  for (const edge of cycleEdges(edges)) {
    const key = `cycle:${pkg}:${edge}`;
    if (key in allowed) problems.push({ key, message: `${pkg}/src: ${edge} closes a cycle (allowed)` });
  }
  const kept = new Map([...edges].filter(([edge]) => !(`cycle:${pkg}:${edge}` in allowed)));
  for (const edge of cycleEdges(kept)) {
    if (edge.startsWith('. ->')) continue; // index.ts is the entry, above every stage
    problems.push({
      key: `cycle:${pkg}:${edge}`,
      message: `${pkg}/src: folders in a cycle, ${edge} (${edges.get(edge).join('; ')}): make one side depend on a narrow interface the other implements, or move the shared part down`,
    });
  }
  return { problems, edges };
}

// Every folder edge that lies on a cycle: an edge a -> b where b reaches a (Tarjan would do, but
// the graphs have some 25 nodes).
function cycleEdges(edges) {
  const next = new Map();
  for (const edge of edges.keys()) {
    const [a, b] = edge.split(' -> ');
    if (!next.has(a)) next.set(a, new Set());
    next.get(a).add(b);
  }
  const reaches = (start, goal) => {
    const seen = new Set([start]);
    const todo = [start];
    while (todo.length) {
      const node = todo.pop();
      if (node === goal) return true;
      for (const n of next.get(node) ?? []) if (!seen.has(n)) (seen.add(n), todo.push(n));
    }
    return false;
  };
  return [...edges.keys()].filter((edge) => {
    const [a, b] = edge.split(' -> ');
    return reaches(b, a);
  });
}

/**
 * Checks the given packages against an allow-list.
 * @param {{ pkg: string, src: string, layers?: string }[]} packages
 * @param {Record<string, string>} allowed
 * @returns {string[]} one message per problem; empty when the layering holds
 */
export function checkLayers(packages, allowed) {
  const found = packages.flatMap(({ pkg, src, layers }) => checkPackage(pkg, src, allowed, layers).problems);
  const keys = new Set(found.map((p) => p.key));
  const messages = found.filter((p) => !(p.key in allowed)).map((p) => p.message);
  for (const [key, why] of Object.entries(allowed)) {
    if (!keys.has(key)) {
      messages.push(`allow-list entry '${key}' (${why}) no longer matches anything: remove it from ALLOWED in scripts/ci/check-layers.mjs`);
    }
  }
  return messages;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const rootArg = args.indexOf('--root');
  const root = rootArg >= 0 ? resolve(args[rootArg + 1]) : join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  // testing: the embedded API server's stages are layered (apiserver/<stage>/), the whole src/ size-checked.
  const packages = [{ pkg: 'informer' }, { pkg: 'core' }, { pkg: 'testing', layers: 'apiserver' }]
    .map(({ pkg, layers }) => ({ pkg, src: join(root, 'packages', pkg, 'src'), ...(layers === undefined ? {} : { layers }) }))
    .filter(({ src }) => {
      try {
        return statSync(src).isDirectory();
      } catch {
        return false;
      }
    });
  const messages = checkLayers(packages, args.includes('--no-allow') ? {} : ALLOWED);
  if (messages.length) {
    for (const m of messages) console.error(`layers: ${m}`);
    process.exit(1);
  }
  console.log(
    `layers: ${packages.map((p) => (p.layers === undefined ? p.pkg : `${p.pkg}'s ${p.layers}/ stages`)).join(', ')} import only downward, operator/ stays on top, internal/ stays in its stage, no file over ${MAX_LINES} lines`,
  );
}
