#!/usr/bin/env node
// The export-list test: each publishable package's public surface (every name its src/index.ts
// exports, types included, with its kind) must equal the committed snapshot in
// packages/<name>/exports.snapshot.txt, so any change to the public API shows in review as a
// diff of that file. The `/internal` subpath (src/internal.ts, for the other kindex packages, tests
// and tools) has its own, packages/<name>/exports.internal.snapshot.txt, so a name moving between
// the two shows too. After an intended change: `node scripts/ci/check-export-lists.mjs --update`.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PACKAGES = ['core', 'informer', 'testing'];
const update = process.argv.includes('--update');

function kindOf(symbol) {
  const f = symbol.flags;
  if (f & ts.SymbolFlags.Class) return 'class';
  if (f & ts.SymbolFlags.Function) return 'function';
  if (f & ts.SymbolFlags.Enum) return 'enum';
  if (f & ts.SymbolFlags.Variable) return 'const';
  if (f & ts.SymbolFlags.Interface) return 'interface';
  if (f & ts.SymbolFlags.TypeAlias) return 'type';
  if (f & ts.SymbolFlags.Module) return 'namespace';
  return 'other';
}

/** `kind name` for every export of the package's entry file (src/index.ts or src/internal.ts), sorted by name. */
function exportList(name, entry) {
  const index = join(root, 'packages', name, 'src', entry);
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'packages', name, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  const program = ts.createProgram([index], { ...config.options, noEmit: true, composite: false, declaration: false });
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(index));
  return checker
    .getExportsOfModule(moduleSymbol)
    .map((s) => {
      const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
      return `${kindOf(target)} ${s.getName()}`;
    })
    .sort((a, b) => a.split(' ')[1].localeCompare(b.split(' ')[1]) || a.localeCompare(b));
}

let failed = false;
// Each entry with its snapshot: the main entry always, the internal one where the package has it.
const ENTRIES = [
  { entry: 'index.ts', snapshot: 'exports.snapshot.txt' },
  { entry: 'internal.ts', snapshot: 'exports.internal.snapshot.txt' },
];
for (const name of PACKAGES) {
  for (const { entry, snapshot: file } of ENTRIES) {
    if (!existsSync(join(root, 'packages', name, 'src', entry))) continue;
    const label = entry === 'index.ts' ? `@kindex/${name}` : `@kindex/${name}/internal`;
    const snapshot = join(root, 'packages', name, file);
    const actual = exportList(name, entry).join('\n') + '\n';
    if (update) {
      writeFileSync(snapshot, actual);
      console.log(`${label}: wrote ${actual.split('\n').length - 1} exports to ${snapshot}`);
      continue;
    }
    const expected = existsSync(snapshot) ? readFileSync(snapshot, 'utf8') : '';
    if (actual === expected) {
      console.log(`${label}: ${actual.split('\n').length - 1} exports, as in ${file}`);
      continue;
    }
    failed = true;
    const a = new Set(actual.split('\n').filter(Boolean));
    const e = new Set(expected.split('\n').filter(Boolean));
    console.error(`${label}: the surface differs from packages/${name}/${file}`);
    for (const line of a) if (!e.has(line)) console.error(`  + ${line}`);
    for (const line of e) if (!a.has(line)) console.error(`  - ${line}`);
  }
}
if (failed) {
  console.error('If the change is intended, run `node scripts/ci/check-export-lists.mjs --update` and commit the snapshots.');
  process.exit(1);
}
