#!/usr/bin/env node
// The error-code check: every error class a package exports (core, informer, testing) has a stable
// `code` (as Node's `err.code`), and docs/errors.md documents each code with its class, what it
// means and the fix. A class declares its code once, as `readonly code = 'KINDEX_...'` (or, below a
// base that takes the code as an argument, `declare readonly code: 'KINDEX_...'`); a subclass kept
// only so existing `instanceof` checks go on working (UnknownOptionError, LeaseConfigError below
// InvalidOptionError) inherits its base's code, since it is the same failure. No two classes
// declare the same code. Run by scripts/run-tests.mjs; by hand: `node scripts/ci/check-error-codes.mjs`.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PACKAGES = ['core', 'informer', 'testing'];
const DOC = 'docs/errors.md';
const CODE = /^KINDEX_[A-Z0-9_]+$/;

/**
 * Exported error classes whose `code` is not (yet) a KINDEX_ code, each with the change that
 * removes it. An entry that no longer matches fails the check, so the list only shrinks.
 * @type {Record<string, string>}
 */
export const ALLOWED = {};

function program(name) {
  const index = join(root, 'packages', name, 'src', 'index.ts');
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'packages', name, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  const built = ts.createProgram([index], { ...config.options, noEmit: true, composite: false, declaration: false });
  return { checker: built.getTypeChecker(), index: built.getSourceFile(index) };
}

function isErrorClass(checker, declaration) {
  for (let type = checker.getTypeAtLocation(declaration); type;) {
    const symbol = type.getSymbol();
    if (symbol?.getName() === 'Error' && !symbol.valueDeclaration?.getSourceFile().fileName.includes('/packages/')) return true;
    const bases = type.isClassOrInterface() ? checker.getBaseTypes(type) : [];
    type = bases[0];
  }
  return false;
}

/** The code a class declares itself: a string-literal initializer, or a `declare`d literal type. */
function ownCode(checker, declaration) {
  for (const member of declaration.members) {
    if (!ts.isPropertyDeclaration(member) || member.name.getText() !== 'code') continue;
    if (member.initializer && ts.isStringLiteral(member.initializer)) return { codes: [member.initializer.text] };
    const type = checker.getTypeAtLocation(member);
    const literals = (type.isUnion() ? type.types : [type]).filter((t) => t.isStringLiteral()).map((t) => t.value);
    if (literals.length === 0) return { problem: `declares \`code\` as ${checker.typeToString(type)}, not as string literals` };
    // A base that takes its subclasses' codes (KubeConfigError): a union, each member a subclass's own.
    return type.isUnion() ? { codes: literals, union: true } : { codes: literals };
  }
  return undefined;
}

function baseDeclaration(checker, declaration) {
  const type = checker.getTypeAtLocation(declaration);
  const base = type.isClassOrInterface() ? checker.getBaseTypes(type)[0] : undefined;
  const decl = base?.getSymbol()?.valueDeclaration;
  return decl && ts.isClassDeclaration(decl) ? decl : undefined;
}

const problems = [];
const classes = []; // { name, pkg, codes, inherited, union }
for (const pkg of PACKAGES) {
  const { checker, index } = program(pkg);
  for (const exported of checker.getExportsOfModule(checker.getSymbolAtLocation(index))) {
    const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const declaration = target.valueDeclaration;
    if (!(target.flags & ts.SymbolFlags.Class) || !declaration || !ts.isClassDeclaration(declaration)) continue;
    if (!isErrorClass(checker, declaration)) continue;
    const name = exported.getName();
    let found;
    let inherited;
    for (let d = declaration; d && !found; d = baseDeclaration(checker, d)) {
      found = ownCode(checker, d);
      if (found && d !== declaration) inherited = d.name?.getText();
    }
    if (ALLOWED[name] !== undefined) {
      if (found?.codes?.every((c) => CODE.test(c))) problems.push(`${name} is in ALLOWED but now has a KINDEX_ code: remove the entry`);
      continue;
    }
    if (!found) problems.push(`@kindex/${pkg} ${name} has no code: add \`readonly code = 'KINDEX_...';\` and document it in ${DOC}`);
    else if (found.problem) problems.push(`@kindex/${pkg} ${name} ${found.problem}`);
    else {
      for (const code of found.codes) if (!CODE.test(code)) problems.push(`@kindex/${pkg} ${name}: code ${code} is not KINDEX_[A-Z0-9_]+`);
      classes.push({ name, pkg, codes: found.codes, inherited, union: found.union === true });
    }
  }
}
for (const name of Object.keys(ALLOWED)) {
  if (!classes.some((c) => c.name === name) && !problems.some((p) => p.startsWith(name))) {
    // Still exported without a KINDEX_ code? Then the entry stands; it is only stale once the class is gone.
  }
}

// Distinct: one declaring class per code; inherited codes and union bases point at those.
const declaring = new Map();
for (const c of classes) {
  if (c.inherited || c.union) continue;
  const code = c.codes[0];
  if (declaring.has(code)) problems.push(`${code} is declared by both ${declaring.get(code)} and ${c.name}: one code per failure`);
  else declaring.set(code, c.name);
}
for (const c of classes.filter((c) => c.union)) {
  for (const code of c.codes) if (!declaring.has(code)) problems.push(`${c.name}'s code ${code} is declared by no exported subclass`);
}

// Documented: a table row of docs/errors.md names the code and the class.
const doc = readFileSync(join(root, DOC), 'utf8');
const rows = doc.split('\n').filter((line) => line.startsWith('|'));
for (const c of classes) {
  for (const code of c.union ? [] : c.codes) {
    const row = rows.find((r) => r.includes(`\`${code}\``) && r.includes(`\`${c.name}\``));
    if (!row) problems.push(`${DOC} has no table row naming \`${code}\` and \`${c.name}\` (what it means, the class, the fix)`);
  }
}
const documented = new Set(rows.flatMap((r) => [...r.matchAll(/`(KINDEX_[A-Z0-9_]+)`/g)].map((m) => m[1])));
for (const code of documented)
  if (!classes.some((c) => c.codes.includes(code))) problems.push(`${DOC} documents ${code}, which no exported error class has`);

if (problems.length > 0) {
  for (const problem of problems) console.error(`error codes: ${problem}`);
  process.exit(1);
}
console.log(`error codes: ${classes.length} exported error classes, ${declaring.size} distinct codes, each documented in ${DOC}`);
