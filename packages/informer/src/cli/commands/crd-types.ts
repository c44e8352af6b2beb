/**
 * `kindex crd types <crd.yaml> [--out <file.ts>]`: TypeScript types and resourceKinds of the CRDs
 * in a YAML file (a third party's, such as cert-manager's), to stdout or a file.
 *
 * @module
 */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { crdTypeScript } from '../../crd/crd-typescript.js';
import type { CliIo } from '../cli-io.js';
import { readCrdFile } from '../read-crd-file.js';
import { UsageError } from '../usage-error.js';

/** `--out <file.ts>`: a file path in a directory that exists. */
function outFile(value: string): string {
  if (value === '') throw new InvalidArgumentError('expected a .ts file path, got an empty string.');
  if (statSync(value, { throwIfNoEntry: false })?.isDirectory())
    throw new InvalidArgumentError(`expected a file path, and ${value} is a directory.`);
  if (!existsSync(dirname(resolve(value))))
    throw new InvalidArgumentError(`expected a file in an existing directory, and ${dirname(value)} does not exist.`);
  return value;
}

/** Registers `crd types` under the `crd` command. */
export function registerCrdTypesCommand(crd: Command, io: CliIo): void {
  crd
    .command('types')
    .description('TypeScript types and resourceKinds of the CustomResourceDefinitions in <crd.yaml>')
    .argument('<crd.yaml>', 'a YAML file of apiextensions.k8s.io/v1 CustomResourceDefinitions')
    .option('--out <file.ts>', 'write the TypeScript to this file instead of stdout', outFile)
    .action((file: string, options: { out?: string }) => {
      if (!existsSync(file)) throw new UsageError(`${file} does not exist`);
      if (statSync(file).isDirectory()) throw new UsageError(`${file} is a directory; pass a YAML file`);
      const crds = readCrdFile(file, io.log);
      const source = crdTypeScript(crds, { source: file.replaceAll('\\', '/') });
      if (options.out === undefined) io.write(source);
      else {
        writeFileSync(options.out, source);
        io.log(`wrote ${options.out} (${crds.map((c) => c.spec.names.kind).join(', ')})`);
      }
    });
}
