/**
 * `kindex crd generate <module> [--out <dir>] [--check]`: writes `<plural>.<group>.yaml` for every
 * custom resource the module exports; `--check` fails (exit 1) if a file is missing or stale.
 *
 * @module
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvalidArgumentError, type Command } from 'commander';
import type { CustomResourceDefinition } from '../../crd/crd-manifest.js';
import { crdYaml } from '../../crd/crd-yaml.js';
import type { CliIo } from '../cli-io.js';
import { UsageError } from '../usage-error.js';

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

/** `--out <dir>`: a directory, or a path where one can be made. */
function outDirectory(value: string): string {
  if (value === '') throw new InvalidArgumentError('expected a directory path, got an empty string.');
  const stat = statSync(value, { throwIfNoEntry: false });
  if (stat !== undefined && !stat.isDirectory()) throw new InvalidArgumentError(`expected a directory, and ${value} is a file.`);
  return value;
}

/** Registers `crd generate` under the `crd` command. */
export function registerCrdGenerateCommand(crd: Command, io: CliIo): void {
  crd
    .command('generate')
    .description('write <plural>.<group>.yaml for every custom resource <module> exports')
    .argument('<module>', 'a TypeScript or JavaScript module exporting values made by customResource()')
    .option('--out <dir>', 'directory of the YAML files', outDirectory, 'crds')
    .option('--check', 'write nothing; exit 1 if a file is missing or stale (for CI)', false)
    .action(async (module: string, options: { out: string; check: boolean }, command: Command) => {
      io.exit(await generate(module, options, io, command.getOptionValueSource('out') === 'cli'));
    });
}

async function generate(module: string, options: { out: string; check: boolean }, output: CliIo, outGiven: boolean): Promise<number> {
  const dir = resolve(options.out);
  const source = relative(process.cwd(), resolve(module)).replaceAll('\\', '/');
  const stale: string[] = [];
  for (const crd of await exportedCrds(module)) {
    const file = resolve(dir, `${crd.metadata.name}.yaml`);
    const yaml = crdYaml([crd], source);
    const current = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (options.check) {
      if (current !== yaml) stale.push(relative(process.cwd(), file));
      continue;
    }
    mkdirSync(dir, { recursive: true });
    if (current !== yaml) writeFileSync(file, yaml);
    output.log(`${current === yaml ? 'unchanged' : 'wrote'} ${relative(process.cwd(), file)}`);
  }
  if (stale.length > 0) {
    output.log(
      `stale or missing CRD YAML (run: kindex crd generate ${module}${outGiven ? ` --out ${options.out}` : ''}):\n  ${stale.join('\n  ')}`,
    );
    return 1;
  }
  if (options.check) output.log(`CRD YAML in ${relative(process.cwd(), dir) || '.'} is current`);
  return 0;
}
