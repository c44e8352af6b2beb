/**
 * `kindex crd generate <module> [--out <dir>] [--check]`: writes `<plural>.<group>.yaml` for every
 * custom resource the module exports; `--check` fails (exit 1) if a file is missing or stale.
 *
 * @module
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import type { CustomResourceDefinition } from '../../crd/crd-manifest.js';
import { crdYaml } from '../../crd/crd-yaml.js';
import { loadOperatorModule, OperatorModuleError, type LoadedOperatorModule } from '../../manifests/load-operator-module.js';
import type { CliIo } from '../cli-io.js';
import { UsageError } from '../usage-error.js';

/** The CRDs of every custom resource `module` exports, sorted by CRD name. */
export async function exportedCrds(module: string): Promise<CustomResourceDefinition[]> {
  if (!existsSync(resolve(module))) throw new UsageError(`module ${module} does not exist`);
  // As `kindex manifests` loads it: starting nothing (a module that starts the operator when
  // imported fails in one line), and an operator definition's customResources when it has one.
  let loaded: LoadedOperatorModule;
  try {
    loaded = await loadOperatorModule(module, { command: 'kindex crd generate' });
  } catch (error) {
    if (error instanceof OperatorModuleError || (error instanceof Error && error.name === 'OperatorStartRefusedError'))
      throw new UsageError(error.message);
    throw error;
  }
  const crds = loaded.customResources.map((r) => r.crd);
  if (crds.length === 0)
    throw new UsageError(
      `${module} exports no custom resource (a value made by customResource()) and no operator definition listing customResources`,
    );
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
