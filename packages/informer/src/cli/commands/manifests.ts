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
import { loadOperatorModule, OperatorModuleError } from '../../manifests/load-operator-module.js';
import { operatorManifests, type OperatorManifestsOptions } from '../../manifests/operator-manifests.js';
import { OperatorManifestsError } from '../../manifests/operator-manifests-error.js';
import { directoryDrift, writeManifestFiles } from '../../manifests/manifest-files.js';
import type { CertificateSource } from '../../manifests/certificate-manifests.js';

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
 * `--check` or the operator cannot be deployed as defined, 2 a wrong call (no `--image`, a module
 * with no definition, a module that starts the operator when imported). Every failure is one line.
 */
export async function runManifests(module: string, flags: ManifestsFlags, log: (line: string) => void): Promise<number> {
  try {
    if (!flags.image) {
      log(`${COMMAND}: --image is required: the Deployment runs it (e.g. --image ghcr.io/acme/widget-operator:1.0.0)`);
      return 2;
    }
    const namespaceOf = (name: string): string => flags.namespace ?? `${name}-system`;
    const loaded = await loadOperatorModule(module, { command: COMMAND, namespace: namespaceOf });
    const { definition, operator } = loaded;
    if (definition === undefined || operator === undefined) {
      log(
        `${COMMAND}: ${module} exports no operator definition: export default defineOperator({ name, customResources, create }) from it (and start it from another module with runOperator(definition))`,
      );
      return 2;
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
    const shown = relative(process.cwd(), dir) || '.';
    if (flags.check) {
      const drift = directoryDrift(dir, files);
      const lines = [
        ...drift.missing.map((f) => `  ${join(shown, f)} (missing)`),
        ...drift.stale.map((f) => `  ${join(shown, f)} (stale)`),
        ...drift.obsolete.map((f) => `  ${join(shown, f)} (no longer generated)`),
      ];
      if (lines.length > 0) {
        log(`${COMMAND}: the manifests in ${shown} are not those of ${module}; run ${COMMAND} again without --check:\n${lines.join('\n')}`);
        return 1;
      }
      log(`manifests in ${shown} are current (${files.length} files)`);
      return 0;
    }
    for (const { file, action } of writeManifestFiles(dir, files)) log(`${action} ${join(shown, file)}`);
    return 0;
  } catch (error) {
    if (error instanceof OperatorModuleError || (error instanceof Error && error.name === 'OperatorStartRefusedError')) {
      log(`${COMMAND}: ${error.message}`);
      return 2;
    }
    if (error instanceof OperatorManifestsError) {
      log(`${COMMAND}: ${error.message}`);
      return 1;
    }
    log(`${COMMAND}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
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
export function registerManifestsCommand(program: Command): void {
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
      process.exitCode = await runManifests(module, flags, (line) => console.error(line));
    });
}
