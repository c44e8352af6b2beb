/**
 * `kindex manifests [module]`: imports the module that exports the operator's definition (without
 * starting anything) and writes everything a cluster needs to run it into `--out` (`config/`),
 * one file per concern and a kustomization.yaml, for `kubectl apply -k config/`. `--check` fails
 * when the files there differ, for CI.
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { loadOperatorModule, OperatorModuleError, type LoadedOperatorModule } from '../../manifests/load-operator-module.js';
import { operatorManifests, type OperatorManifestsOptions } from '../../manifests/operator-manifests.js';
import { directoryDrift, writeManifestFiles } from '../../manifests/manifest-files.js';
import type { CertificateSource } from '../../manifests/certificate-manifests.js';
import type { CliIo } from '../cli-io.js';
import { UsageError } from '../usage-error.js';

/** The flags of `kindex manifests`, as commander parses them. */
export interface ManifestsFlags {
  readonly out: string;
  readonly image?: string;
  readonly namespace?: string;
  readonly arg: readonly string[];
  readonly replicas?: number;
  readonly webhookCerts?: CertificateSource;
  readonly serviceMonitor?: boolean;
  readonly check?: boolean;
}

const COMMAND = 'kindex manifests';

/**
 * Runs `kindex manifests` and resolves to its exit code: 0 written or current, 1 stale under
 * `--check`. A wrong call (no `--image`, a module with no definition, one that starts the
 * operator when imported) throws {@link UsageError} (exit 2); an operator that cannot be deployed
 * as defined throws its `OperatorManifestsError` (exit 1). Each is one line.
 */
export async function runManifests(module: string, flags: ManifestsFlags, io: Pick<CliIo, 'log'>): Promise<number> {
  if (!flags.image) throw new UsageError('--image is required: the Deployment runs it (e.g. --image ghcr.io/acme/widget-operator:1.0.0)');
  const namespaceOf = (name: string): string => flags.namespace ?? `${name}-system`;
  let loaded: LoadedOperatorModule;
  try {
    loaded = await loadOperatorModule(module, { command: COMMAND, namespace: namespaceOf });
  } catch (error) {
    if (error instanceof OperatorModuleError || (error instanceof Error && error.name === 'OperatorStartRefusedError'))
      throw new UsageError(error.message);
    throw error;
  }
  const { definition, operator } = loaded;
  if (definition === undefined || operator === undefined) {
    throw new UsageError(
      `${module} exports no operator definition: export default defineOperator({ name, customResources, create }) from it, and start it from another module with runOperator(definition)`,
    );
  }
  const dir = resolve(flags.out);
  const certificatesFile = join(dir, 'certificates.yaml');
  const options: OperatorManifestsOptions = {
    name: definition.name,
    namespace: namespaceOf(definition.name),
    image: flags.image,
    args: flags.arg,
    customResources: loaded.customResources,
    source: relative(process.cwd(), resolve(module)).replaceAll('\\', '/'),
    ...(flags.replicas !== undefined ? { replicas: flags.replicas } : {}),
    ...(definition.gracefulShutdownTimeoutMs !== undefined ? { gracefulShutdownTimeoutMs: definition.gracefulShutdownTimeoutMs } : {}),
    ...(flags.webhookCerts !== undefined ? { certificates: flags.webhookCerts } : {}),
    ...(flags.serviceMonitor ? { serviceMonitor: true } : {}),
    ...(existsSync(certificatesFile) ? { previousCertificates: readFileSync(certificatesFile, 'utf8') } : {}),
  };
  const { files } = await operatorManifests(operator, options);
  const fromHere = relative(process.cwd(), dir);
  const shown = fromHere === '' ? '.' : fromHere.startsWith('..') ? dir : fromHere;
  if (flags.check) {
    const drift = directoryDrift(dir, files);
    const lines = [
      ...drift.missing.map((f) => `  ${join(shown, f)} (missing)`),
      ...drift.stale.map((f) => `  ${join(shown, f)} (stale)`),
      ...drift.obsolete.map((f) => `  ${join(shown, f)} (no longer generated)`),
    ];
    if (lines.length > 0) {
      io.log(`stale or missing manifests in ${shown} (run ${COMMAND} again without --check):\n${lines.join('\n')}`);
      return 1;
    }
    io.log(`manifests in ${shown} are current (${files.length} files)`);
    return 0;
  }
  for (const { file, action } of writeManifestFiles(dir, files)) io.log(`${action} ${join(shown, file)}`);
  return 0;
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`--replicas must be a whole number >= 1, not ${value}`);
  return n;
}

/**
 * Adds `kindex manifests [module]` to the kindex program.
 *
 * @example
 * ```ts
 * import { Command } from 'commander';
 * import { registerManifestsCommand } from './manifests.js';
 *
 * const program = new Command('kindex');
 * registerManifestsCommand(program);
 * await program.parseAsync(['manifests', 'dist/operator.js', '--image', 'ghcr.io/acme/widget-operator:1.0.0'], { from: 'user' });
 * ```
 */
export function registerManifestsCommand(
  program: Command,
  io: Partial<CliIo> & Pick<CliIo, 'log'> = { log: (line) => console.error(line) },
): void {
  program
    .command('manifests')
    .description(
      'write everything a cluster needs to run the operator (CRDs, Namespace, ServiceAccount, RBAC, Deployment, Services, webhooks and their certificates) into --out, with a kustomization.yaml for kubectl apply -k',
    )
    .argument(
      '[module]',
      'the module that exports the operator definition (export default defineOperator(...)); .ts needs tsx',
      'src/operator.ts',
    )
    .option('--image <image>', 'container image of the Deployment (required)')
    .option('--out <dir>', 'directory to write', 'config')
    .option('--namespace <namespace>', "the operator's namespace (default: <name>-system)")
    .option(
      '--arg <value>',
      "an argument of the operator's container; repeat for several",
      (value: string, all: string[]) => [...all, value],
      [],
    )
    .option('--replicas <n>', 'replicas of the Deployment; more than one needs leader election or sharding (default: 1)', positiveInteger)
    .addOption(
      new Option(
        '--webhook-certs <source>',
        'serving certificates of the webhooks and of an HTTPS metrics server: cert-manager, or secret (generated, for development)',
      ).choices(['cert-manager', 'secret']),
    )
    .option('--service-monitor', 'add a Prometheus Operator ServiceMonitor for the metrics Service')
    .option('--check', 'write nothing; fail (exit 1) when the files in --out are missing or differ')
    .action(async (module: string, flags: ManifestsFlags) => {
      const code = await runManifests(module, flags, io);
      if (io.exit) io.exit(code);
      else process.exitCode = code;
    });
}
