/**
 * The command line of `pnpm sample`, on commander: `--help`, `--version`, and every value checked
 * before anything starts. A usage error is one line naming the flag and what it expects, exit 2.
 *
 * @module
 */
import { createRequire } from 'node:module';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';

/** What `pnpm sample` was asked to do. */
export interface SampleOptions {
  /** N replica processes under leader election (or sharding with `shards`) on the embedded server. */
  readonly replicas?: number;
  readonly shards?: number;
  /** The WebPage sample (dependent resources) instead. */
  readonly webpage: boolean;
  /** A kubeconfig file, as typed (relative to the directory `pnpm sample` ran from). */
  readonly kubeconfig?: string;
  /** The kubeconfig context to use instead of its current-context. */
  readonly context?: string;
  /** Runs in a pod with its service account (the Deployment in deploy/). */
  readonly inCluster: boolean;
  /** Internal: one replica process of `--replicas`, with its identity and namespace. */
  readonly replica: boolean;
  readonly identity?: string;
  readonly namespace?: string;
}

function positiveInteger(what: string): (text: string) => number {
  return (text) => {
    const n = Number(text);
    if (text.trim() === '' || !Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected ${what}.`);
    return n;
  };
}

function nonEmpty(what: string): (text: string) => string {
  return (text) => {
    if (text === '') throw new InvalidArgumentError(`expected ${what}, got an empty string.`);
    return text;
  };
}

function program(): Command {
  const { version } = createRequire(import.meta.url)('../package.json') as { version: string };
  return new Command('pnpm sample --')
    .description(
      'The Job/Cluster sample operator. Without options: on an embedded API server, it plays a short scenario, prints a timeline and the final jobs, and exits.\n' +
        'With --kubeconfig FILE (or KUBECONFIG set): installs the CRDs on that cluster and runs until SIGTERM or Ctrl-C.',
    )
    .version(version, '-V, --version', 'print the version of the sample')
    .helpOption('-h, --help', 'print this help')
    .addOption(
      new Option('--replicas <n>', 'run N replica processes under leader election on the embedded server, and kill the leader halfway')
        .argParser(positiveInteger('a whole number of replica processes, at least 1 (for example 3)'))
        .conflicts(['kubeconfig', 'inCluster', 'webpage']),
    )
    .addOption(
      new Option(
        '--shards <m>',
        'with --replicas: split the primaries into M shards by uid instead, and kill one replica halfway',
      ).argParser(positiveInteger('a whole number of shards, at least 1 (for example 4)')),
    )
    .addOption(new Option('--webpage', 'the WebPage sample (dependent resources and webhooks) instead').conflicts(['inCluster']))
    .addOption(
      new Option(
        '--kubeconfig <file>',
        'run against the cluster of this kubeconfig (relative to the directory you ran pnpm from) until SIGTERM or Ctrl-C',
      ).argParser(nonEmpty('a kubeconfig file')),
    )
    .addOption(
      new Option(
        '--context <name>',
        "with --kubeconfig or KUBECONFIG: the kubeconfig's context to use instead of its current-context",
      ).argParser(nonEmpty('a context name')),
    )
    .addOption(
      new Option('--in-cluster', 'run in a pod with its service account, under leader election (the Deployment in deploy/)').conflicts([
        'kubeconfig',
        'context',
      ]),
    )
    .addOption(new Option('--replica', 'internal: one replica process of --replicas').hideHelp())
    .addOption(new Option('--identity <id>', 'internal: the replica identity').hideHelp())
    .addOption(new Option('--namespace <ns>', 'internal: the replica namespace').hideHelp())
    .configureOutput({ outputError: () => {} })
    .exitOverride();
}

/**
 * The options of `argv`, or undefined when it printed `--help` or `--version` (exit code 0) or a
 * usage error (one line on stderr, exit code 2).
 */
export function parseSampleArguments(argv: readonly string[]): SampleOptions | undefined {
  // `pnpm sample -- --replicas 3` hands the script a literal `--` first; it ends no options here.
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  const command = program();
  try {
    command.parse([...args], { from: 'user' });
    const options = command.opts<SampleOptions>();
    if (options.shards !== undefined && options.replicas === undefined && options.replica !== true) {
      command.error("option '--shards <m>' needs --replicas <n> (the shards are split among the replica processes)", {
        code: 'sample.shardsWithoutReplicas',
      });
    }
    if (
      options.replica === true &&
      (options.identity === undefined || options.namespace === undefined || options.kubeconfig === undefined)
    ) {
      command.error('--replica needs --identity, --namespace and --kubeconfig (the parent process passes them)', {
        code: 'sample.replica',
      });
    }
    return { ...options, webpage: options.webpage === true, inCluster: options.inCluster === true, replica: options.replica === true };
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return undefined;
    process.stderr.write(`sample: ${error.message.replace(/^error: /, '').replaceAll('\n', ' ')} (see pnpm sample -- --help)\n`);
    process.exitCode = 2;
    return undefined;
  }
}
