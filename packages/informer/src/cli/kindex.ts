/**
 * The `kindex` command (bin/kindex.js):
 * - `kindex crd generate <module> [--out dir] [--check]` writes the CRD YAML of every custom
 *   resource a module exports (commands/crd-generate.ts);
 * - `kindex crd types <crd.yaml> [--out file.ts]` writes TypeScript types and resourceKinds for a
 *   third-party CRD (commands/crd-types.ts);
 * - `kindex manifests [module]` writes what a cluster needs to run the operator (commands/manifests.ts).
 * `kindex --help` and `kindex <command> --help` list the rest; program.ts registers the commands.
 *
 * @module
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { createProgram, usageFailure } from './program.js';

export { exportedCrds } from './commands/crd-generate.js';

/**
 * Runs the command line `args` (without `node kindex`); resolves to the exit code: 0, 1 when the
 * command failed (an error, `--check` found stale files), 2 for a usage error. Errors are one line
 * on `log`, without a stack trace.
 */
export async function main(
  args: readonly string[],
  log: (line: string) => void = (l) => console.error(l),
  write: (text: string) => void = (t) => process.stdout.write(t),
): Promise<number> {
  let exitCode = 0;
  const program = createProgram({ log, write, exit: (code) => (exitCode = code) });
  let running: Command | undefined;
  program.hook('preAction', (_program, action) => {
    running = action;
  });
  // A command may report failure through process.exitCode (`manifests --check`): taken as its
  // exit code here and restored, so main() can run in tests and the bin sets it once.
  const previousExitCode = process.exitCode;
  try {
    await program.parseAsync([...args], { from: 'user' });
    const set = process.exitCode;
    process.exitCode = previousExitCode;
    if (exitCode !== 0) return exitCode;
    return set !== previousExitCode ? Number(set ?? 0) : 0;
  } catch (error) {
    process.exitCode = previousExitCode;
    const usage = usageFailure(error, running);
    if (usage !== undefined) {
      if (usage.line !== undefined) log(`kindex: ${usage.line}`);
      return usage.code;
    }
    log(`kindex: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}
