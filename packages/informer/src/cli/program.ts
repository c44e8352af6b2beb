/**
 * The `kindex` program: its options (`--help`, `--version`) and the subcommands it registers, on
 * commander. Usage errors (commander's and {@link UsageError}) exit 2 with one line naming the
 * command's `--help`; other errors exit 1 with one line.
 *
 * @module
 */
import { createRequire } from 'node:module';
import { Command, CommanderError } from 'commander';
import type { CliIo } from './cli-io.js';
import { registerCrdCommand } from './commands/crd.js';
import { registerManifestsCommand } from './commands/manifests.js';
import { UsageError } from './usage-error.js';

/** The version in @kindex/informer's package.json (two levels up from src/cli/ and dist/cli/). */
function packageVersion(): string {
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
}

/** `kindex crd types`: a command's name with its parents', as typed. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** A commander error, with the command it happened in. */
export class CommandLineError extends CommanderError {
  readonly command: Command;
  constructor(error: CommanderError, command: Command) {
    super(error.exitCode, error.code, error.message);
    this.command = command;
  }
}

/** Builds the program; `main` in kindex.ts parses and runs it. */
export function createProgram(io: CliIo): Command {
  const program = new Command('kindex')
    .description('kindex: CRDs and manifests for operators built on @kindex/informer')
    .version(packageVersion(), '-V, --version', 'print the version of @kindex/informer')
    .helpOption('-h, --help', 'print this help')
    .helpCommand(false);

  // --- subcommands: one register call per file in commands/; create them with
  // `program.command(name)` (settings below are applied to every command after this block).
  registerCrdCommand(program, io);
  registerManifestsCommand(program, io);
  // --- end of subcommands

  for (const command of allCommands(program)) {
    command
      .configureOutput({
        writeOut: (text) => io.write(text),
        writeErr: (text) => io.log(text.replace(/\n$/, '')),
        // Printed by main, as one line with the command's --help.
        outputError: () => {},
      })
      .exitOverride((error) => {
        throw new CommandLineError(error, command);
      });
  }
  return program;
}

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

/** The exit code and the line to print for an error of a command, or undefined for another error. */
export function usageFailure(error: unknown, command: Command | undefined): { code: number; line?: string } | undefined {
  if (error instanceof CommandLineError) {
    // --help and --version printed what was asked; a group without its subcommand printed its help.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return { code: 0 };
    if (error.code === 'commander.help') return { code: 2 };
    return { code: 2, line: `${error.message.replace(/^error: /, '').replaceAll('\n', ' ')} (see ${commandPath(error.command)} --help)` };
  }
  if (error instanceof UsageError) {
    return { code: 2, line: `${error.message}${command ? ` (see ${commandPath(command)} --help)` : ''}` };
  }
  return undefined;
}
