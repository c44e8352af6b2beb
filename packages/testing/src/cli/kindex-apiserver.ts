// kindex-apiserver: runs the embedded Kubernetes API server as a process, for kubectl and for
// programs in other languages. Prints the URL and the kubeconfig path, serves until SIGINT or
// SIGTERM, then stops cleanly. Usage errors (a bad flag or value) are one line and exit 2; a
// failure to start (a port in use) is one line and exits 1.

import { statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { startEmbeddedApiServer, type EmbeddedApiServerOptions } from '../apiserver/embedded-api-server.js';

const NAME = 'kindex-apiserver';

interface Flags {
  port: number;
  kubeconfig?: string;
  token?: string;
  historyWindow?: number;
  bookmarkIntervalMs?: number;
  plainHttp: boolean;
  authorizationMode: 'AlwaysAllow' | 'RBAC';
}

/** A parser for an integer flag in [min, max], naming what it expects. */
function integer(min: number, max = Number.MAX_SAFE_INTEGER, what = `an integer from ${min}`): (text: string) => number {
  return (text) => {
    const n = Number(text);
    if (text.trim() === '' || !Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`expected ${what}.`);
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
  const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };
  return new Command(NAME)
    .description('Runs the embedded Kubernetes API server of @kindex/testing until SIGINT or SIGTERM.')
    .version(version, '-V, --version', 'print the version of @kindex/testing')
    .helpOption('-h, --help', 'print this help')
    .addOption(
      new Option('--port <n>', 'TCP port on 127.0.0.1 (0 picks a free one)')
        .argParser(integer(0, 65535, 'a port from 0 to 65535'))
        .default(0),
    )
    .option(
      '--kubeconfig <file>',
      'write a kubeconfig for kubectl to FILE (relative to the directory you ran the command from)',
      nonEmpty('a file path'),
    )
    .option('--token <t>', 'bearer token clients must send (default: random)', nonEmpty('a token'))
    .option('--history-window <n>', 'watch events kept for resuming watches (default 1000; 0 means the default)', integer(0))
    .option('--bookmark-interval-ms <n>', 'interval of watch bookmarks (default 60000; 0 means the default)', integer(0))
    .option('--plain-http', 'serve HTTP instead of HTTPS (kubectl then sends no token and gets 401)', false)
    .addOption(
      new Option(
        '--authorization-mode <mode>',
        "AlwaysAllow: every authenticated request passes; RBAC: Roles, ClusterRoles and bindings are enforced (the written kubeconfig's user is in system:masters and may do everything)",
      )
        .choices(['AlwaysAllow', 'RBAC'])
        .default('AlwaysAllow'),
    )
    .configureOutput({ outputError: () => {} })
    .exitOverride();
}

/** Parses the command line; undefined when it printed help or the version, or a usage error (exit code set). */
function parse(argv: readonly string[]): Flags | undefined {
  const command = program();
  // `pnpm apiserver -- --port 6443` hands the script a literal `--` first; it ends no options here.
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  try {
    command.parse([...args], { from: 'user' });
    return command.opts<Flags>();
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return undefined;
    process.stderr.write(`${NAME}: ${error.message.replace(/^error: /, '').replaceAll('\n', ' ')} (see ${NAME} --help)\n`);
    process.exitCode = 2;
    return undefined;
  }
}

async function main(): Promise<void> {
  const flags = parse(process.argv.slice(2));
  if (flags === undefined) return;
  const options: EmbeddedApiServerOptions = {
    port: flags.port,
    ...(flags.historyWindow ? { historyWindow: flags.historyWindow } : {}),
    ...(flags.bookmarkIntervalMs ? { bookmarkIntervalMs: flags.bookmarkIntervalMs } : {}),
    ...(flags.token === undefined ? {} : { token: flags.token }),
    // HTTPS by default: kubectl sends its bearer token only over TLS.
    tls: !flags.plainHttp,
    authorization: flags.authorizationMode,
  };
  // `pnpm apiserver` runs this in packages/testing/; pnpm (and npm) put the directory the user ran
  // the command from in INIT_CWD, and that is what a relative path means to the user.
  const kubeconfigFile = flags.kubeconfig === undefined ? undefined : resolve(process.env['INIT_CWD'] ?? process.cwd(), flags.kubeconfig);
  if (kubeconfigFile !== undefined && !isDirectory(dirname(kubeconfigFile))) {
    // Checked before the server starts: one line naming the directory, not a stack trace later.
    process.stderr.write(`${NAME}: cannot write --kubeconfig ${kubeconfigFile}: directory ${dirname(kubeconfigFile)} does not exist\n`);
    process.exitCode = 2;
    return;
  }
  const server = await startEmbeddedApiServer(options);
  process.stdout.write(`${NAME} listening on ${server.url}${flags.authorizationMode === 'RBAC' ? ' (authorization: RBAC)' : ''}\n`);
  if (kubeconfigFile !== undefined) {
    try {
      writeFileSync(kubeconfigFile, server.kubeconfigYaml, { mode: 0o600 });
    } catch (e) {
      // Permissions, a directory by that name, a full disk: the reason in one line.
      process.stderr.write(`${NAME}: cannot write --kubeconfig ${kubeconfigFile}: ${(e as Error).message}\n`);
      await server.stop();
      process.exitCode = 1;
      return;
    }
    process.stdout.write(`kubeconfig written to ${kubeconfigFile}\n`);
  }
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`received ${signal}, stopping\n`);
    server.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`stop failed: ${(e as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

main().catch((e: unknown) => {
  // A port in use, an address that cannot be bound: the reason in one line; a bug keeps its stack.
  const code = (e as NodeJS.ErrnoException).code;
  process.stderr.write(
    `${NAME}: ${code !== undefined && code.startsWith('E') ? (e as Error).message : ((e as Error).stack ?? String(e))}\n`,
  );
  process.exit(1);
});
