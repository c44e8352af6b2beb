/**
 * `kindex crd`: the group of CRD commands, `generate` (CRD YAML from TypeScript) and `types`
 * (TypeScript from CRD YAML).
 *
 * @module
 */
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { registerCrdGenerateCommand } from './crd-generate.js';
import { registerCrdTypesCommand } from './crd-types.js';

/** Registers `crd` and its subcommands on the program. */
export function registerCrdCommand(program: Command, io: CliIo): void {
  const crd = program.command('crd').description('CustomResourceDefinitions: YAML from TypeScript and TypeScript from YAML');
  registerCrdGenerateCommand(crd, io);
  registerCrdTypesCommand(crd, io);
}
