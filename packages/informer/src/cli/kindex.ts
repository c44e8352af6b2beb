/**
 * The `kindex` command: `kindex crd generate <module> [--out dir] [--check]` writes the CRD YAML of
 * every custom resource a module exports; `kindex crd types <crd.yaml> [--out file.ts]` writes
 * TypeScript types and resourceKinds for a third-party CRD.
 *
 * @module
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { CustomResourceDefinition } from '../crd/crd-manifest.js';
import { crdTypeScript } from '../crd/crd-typescript.js';
import { crdYaml } from '../crd/crd-yaml.js';

const USAGE = `usage:
  kindex crd generate <module> [--out <dir>] [--check]   write <plural>.<group>.yaml for every custom resource <module> exports (default dir: crds); --check fails if a file is missing or stale
  kindex crd types <crd.yaml> [--out <file.ts>]          TypeScript types and resourceKinds of the CRDs in <crd.yaml> (default: stdout)`;

/** A mistake on the command line: printed with the usage, exit code 2. */
class UsageError extends Error {
  override readonly name = 'UsageError';
}

interface Parsed {
  readonly positional: string[];
  readonly out?: string;
  readonly check: boolean;
}

function parse(args: readonly string[]): Parsed {
  const positional: string[] = [];
  let out: string | undefined;
  let check = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--out') {
      out = args[++i];
      if (out === undefined) throw new UsageError('--out needs a path');
    } else if (arg.startsWith('--out=')) out = arg.slice('--out='.length);
    else if (arg === '--check') check = true;
    else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
    else positional.push(arg);
  }
  return { positional, ...(out !== undefined ? { out } : {}), check };
}

function isCustomResource(value: unknown): value is { crd: CustomResourceDefinition } {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { crd?: { kind?: unknown }; validate?: unknown };
  return typeof v.validate === 'function' && v.crd?.kind === 'CustomResourceDefinition';
}

/** The CRDs of every custom resource `module` exports, sorted by CRD name. */
export async function exportedCrds(module: string): Promise<CustomResourceDefinition[]> {
  const path = resolve(module);
  if (!existsSync(path)) throw new UsageError(`module ${module} does not exist`);
  const exports = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  const crds = Object.values(exports)
    .filter(isCustomResource)
    .map((r) => r.crd);
  if (crds.length === 0) throw new UsageError(`${module} exports no custom resource (a value made by customResource())`);
  return crds.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

async function generate(args: Parsed, log: (line: string) => void): Promise<number> {
  const [module] = args.positional;
  if (!module || args.positional.length > 1) throw new UsageError('crd generate takes one module');
  const dir = resolve(args.out ?? 'crds');
  const source = relative(process.cwd(), resolve(module)).replaceAll('\\', '/');
  const stale: string[] = [];
  for (const crd of await exportedCrds(module)) {
    const file = resolve(dir, `${crd.metadata.name}.yaml`);
    const yaml = crdYaml([crd], source);
    const current = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (args.check) {
      if (current !== yaml) stale.push(relative(process.cwd(), file));
      continue;
    }
    mkdirSync(dir, { recursive: true });
    if (current !== yaml) writeFileSync(file, yaml);
    log(`${current === yaml ? 'unchanged' : 'wrote'} ${relative(process.cwd(), file)}`);
  }
  if (stale.length > 0) {
    log(`stale or missing CRD YAML (run: kindex crd generate ${module}${args.out ? ` --out ${args.out}` : ''}):\n  ${stale.join('\n  ')}`);
    return 1;
  }
  if (args.check) log(`CRD YAML in ${relative(process.cwd(), dir) || '.'} is current`);
  return 0;
}

function types(args: Parsed, log: (line: string) => void, write: (text: string) => void): number {
  const [file] = args.positional;
  if (!file || args.positional.length > 1) throw new UsageError('crd types takes one YAML file');
  if (!existsSync(file)) throw new UsageError(`${file} does not exist`);
  const crds = parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as CustomResourceDefinition | null)
    .filter((d): d is CustomResourceDefinition => d?.kind === 'CustomResourceDefinition');
  if (crds.length === 0) throw new UsageError(`${file} holds no CustomResourceDefinition`);
  const source = crdTypeScript(crds, { source: file.replaceAll('\\', '/') });
  if (args.out === undefined) write(source);
  else {
    writeFileSync(args.out, source);
    log(`wrote ${args.out} (${crds.map((c) => c.spec.names.kind).join(', ')})`);
  }
  return 0;
}

/** Runs the command line `args` (without `node kindex`); resolves to the exit code. */
export async function main(
  args: readonly string[],
  log: (line: string) => void = (l) => console.error(l),
  write: (text: string) => void = (t) => process.stdout.write(t),
): Promise<number> {
  try {
    const [group, command, ...rest] = args;
    if (group !== 'crd' || (command !== 'generate' && command !== 'types'))
      throw new UsageError(args.length ? `unknown command ${args.join(' ')}` : 'no command');
    const parsed = parse(rest);
    return command === 'generate' ? await generate(parsed, log) : types(parsed, log, write);
  } catch (error) {
    if (error instanceof UsageError) {
      log(`kindex: ${error.message}\n${USAGE}`);
      return 2;
    }
    log(`kindex: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}
