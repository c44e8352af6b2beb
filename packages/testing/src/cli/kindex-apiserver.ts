// kindex-apiserver: runs the embedded Kubernetes API server as a process, for kubectl and for
// programs in other languages. Prints the URL and the kubeconfig path, serves until SIGINT or
// SIGTERM, then stops cleanly.

import { statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startEmbeddedApiServer } from '../apiserver/embedded-api-server.js';

const USAGE = `Usage: kindex-apiserver [--port N] [--kubeconfig FILE] [--token T] [--history-window N] [--plain-http]

  --port N            TCP port on 127.0.0.1 (0 picks a free one; default 0)
  --kubeconfig FILE   write a kubeconfig for kubectl to FILE (relative to the directory you ran the command from)
  --token T           bearer token clients must send (default: random)
  --history-window N  watch events kept for resuming watches (default 1000)
  --bookmark-interval-ms N  interval of watch bookmarks (default 60000)
  --plain-http        serve HTTP instead of HTTPS (kubectl then sends no token and gets 401)
`;

function integer(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, got '${text}'`);
  return n;
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        kubeconfig: { type: 'string' },
        token: { type: 'string' },
        'history-window': { type: 'string' },
        'bookmark-interval-ms': { type: 'string' },
        'plain-http': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  let options;
  try {
    const port = integer('port', values.port);
    const historyWindow = integer('history-window', values['history-window']);
    const bookmarkIntervalMs = integer('bookmark-interval-ms', values['bookmark-interval-ms']);
    options = {
      ...(port === undefined ? {} : { port }),
      ...(historyWindow === undefined || historyWindow === 0 ? {} : { historyWindow }),
      ...(bookmarkIntervalMs === undefined || bookmarkIntervalMs === 0 ? {} : { bookmarkIntervalMs }),
      ...(values.token === undefined ? {} : { token: values.token }),
      // HTTPS by default: kubectl sends its bearer token only over TLS.
      tls: values['plain-http'] !== true,
    };
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  // `pnpm apiserver` runs this in packages/testing/; pnpm (and npm) put the directory the user ran
  // the command from in INIT_CWD, and that is what a relative path means to the user.
  const kubeconfigFile = values.kubeconfig === undefined ? undefined : resolve(process.env['INIT_CWD'] ?? process.cwd(), values.kubeconfig);
  if (kubeconfigFile !== undefined && !isDirectory(dirname(kubeconfigFile))) {
    // Checked before the server starts: one line naming the directory, not a stack trace later.
    process.stderr.write(
      `kindex-apiserver: cannot write --kubeconfig ${kubeconfigFile}: directory ${dirname(kubeconfigFile)} does not exist\n`,
    );
    process.exitCode = 2;
    return;
  }
  const server = await startEmbeddedApiServer(options);
  process.stdout.write(`kindex-apiserver listening on ${server.url}\n`);
  if (kubeconfigFile !== undefined) {
    try {
      writeFileSync(kubeconfigFile, server.kubeconfigYaml, { mode: 0o600 });
    } catch (e) {
      // Permissions, a directory by that name, a full disk: the reason in one line.
      process.stderr.write(`kindex-apiserver: cannot write --kubeconfig ${kubeconfigFile}: ${(e as Error).message}\n`);
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
  process.stderr.write(`kindex-apiserver: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
