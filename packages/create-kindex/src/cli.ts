/**
 * `create-kindex [directory]` (`npm create kindex@latest my-operator`, `pnpm create kindex
 * my-operator`): generates a kindex operator project. Flags give every choice; the ones left out
 * are asked for when stdin is a terminal, and take their defaults otherwise (or with `--yes`).
 * A value that cannot be used is reported in one line naming it and its fix, with exit code 2,
 * before anything is written.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import {
  DEFAULTS,
  PACKAGE_MANAGERS,
  ProjectOptionError,
  apiVersionProblem,
  checkProjectOptions,
  groupProblem,
  kindProblem,
  pluralOf,
  type PackageManager,
  type ProjectOptions,
} from './project-options.js';
import { askMissing, type Answers } from './prompts.js';
import { clientNodeRange, scaffold } from './scaffold.js';

/** This package's version: the generated project depends on the @kindex/* packages of the same release. */
export const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Where the command runs: its streams, environment and directory (the tests give their own). */
export interface CliEnvironment {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Whether stdin is a terminal: then missing values are asked for. */
  readonly interactive: boolean;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly nodeVersion: string;
}

interface Flags {
  readonly group?: string;
  readonly kind?: string;
  readonly apiVersion?: string;
  readonly webhook?: boolean;
  readonly packageManager?: PackageManager;
  readonly yes?: boolean;
}

/** The package manager that ran `npm create` / `pnpm create`, from the user agent it sets. */
function invokingPackageManager(env: NodeJS.ProcessEnv): { name: PackageManager; version?: string } {
  const agent = /^(npm|pnpm)\/(\S+)/.exec(env['npm_config_user_agent'] ?? '');
  return agent?.[1] === 'pnpm' ? { name: 'pnpm', version: agent[2]! } : { name: 'npm' };
}

function program(): Command {
  return new Command('create-kindex')
    .description('Create a kindex Kubernetes operator project: a custom resource, its reconciler, tests and deployment files')
    .argument('[directory]', 'the directory to create; its name is the package and operator name (e.g. my-operator)')
    .option('--group <group>', `API group of the custom resource, a domain you own (default: ${DEFAULTS.group})`)
    .option('--kind <kind>', `kind of the custom resource, UpperCamelCase (default: ${DEFAULTS.kind})`)
    .option('--api-version <version>', `version of the custom resource (default: ${DEFAULTS.apiVersion})`)
    .option('--webhook', 'also serve a validating and a mutating admission webhook')
    .option('--no-webhook', 'no admission webhooks (the default)')
    .addOption(
      new Option('--package-manager <name>', 'package manager of the project (default: the one running create-kindex)').choices(
        PACKAGE_MANAGERS,
      ),
    )
    .option('-y, --yes', 'ask nothing: use the defaults for what the flags leave out')
    .version(VERSION, '-v, --version', 'print the version of create-kindex')
    .helpOption('-h, --help', 'show the flags')
    .exitOverride()
    .configureOutput({ outputError: () => {} })
    .showSuggestionAfterError(true);
}

/** Runs the command with `args` (without node and the script) and resolves to its exit code. */
export async function main(args: readonly string[], environment: CliEnvironment): Promise<number> {
  const { out, err } = environment;
  const command = program().configureOutput({
    writeOut: (text) => out(text.trimEnd()),
    writeErr: (text) => err(text.trimEnd()),
    outputError: () => {},
  });
  try {
    command.parse(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return 0; // --help, --version
      const message = error.message
        .replace(/^error: /, '')
        .replace(/\.$/, '')
        .replaceAll('\n', ' ');
      err(`create-kindex: ${message}; run create-kindex --help for the flags`);
      return 2;
    }
    throw error;
  }
  const flags = command.opts<Flags>();
  const invoking = invokingPackageManager(environment.env);
  try {
    // Check what the flags gave before asking anything: a wrong flag is not worth a prompt.
    const given = [
      flags.group === undefined ? undefined : groupProblem(flags.group),
      flags.kind === undefined ? undefined : kindProblem(flags.kind),
      flags.apiVersion === undefined ? undefined : apiVersionProblem(flags.apiVersion),
    ].find((problem) => problem !== undefined);
    if (given !== undefined) throw new ProjectOptionError(given);

    const initial: Answers = {
      directory: command.args[0],
      group: flags.group,
      kind: flags.kind,
      apiVersion: flags.apiVersion,
      webhook: flags.webhook,
      packageManager: flags.packageManager,
    };
    const answers = environment.interactive && !flags.yes ? await askMissing(initial, environment.cwd, invoking.name) : initial;
    if (answers === undefined) {
      err('create-kindex: cancelled, nothing written');
      return 1;
    }
    if (answers.directory === undefined || answers.directory === '') {
      throw new ProjectOptionError('give the project directory, e.g. npm create kindex@latest my-operator');
    }
    const options: ProjectOptions = checkProjectOptions({
      directory: resolve(environment.cwd, answers.directory),
      group: answers.group ?? DEFAULTS.group,
      kind: answers.kind ?? DEFAULTS.kind,
      apiVersion: answers.apiVersion ?? DEFAULTS.apiVersion,
      webhook: answers.webhook ?? DEFAULTS.webhook,
      packageManager: answers.packageManager ?? invoking.name,
    });
    const versions = {
      kindex: VERSION,
      clientNode: clientNodeRange(environment.nodeVersion),
      ...(invoking.name === 'pnpm' && invoking.version !== undefined ? { pnpm: invoking.version } : {}),
    };
    const files = scaffold(options, versions, environment.cwd, environment.nodeVersion);
    const pm = options.packageManager;
    out(
      [
        `Created ${options.name}: ${options.kind} (${pluralOf(options.kind.toLowerCase())}.${options.group}/${options.apiVersion})${options.webhook ? ' with webhooks' : ''}, ${files.length} files.`,
        '',
        'Next:',
        `  cd ${answers.directory}`,
        `  ${pm} install`,
        `  ${pm} test                 # against an in-process API server`,
        `  ${pm} run manifests        # CRD, RBAC and Deployment into config/`,
        '',
        'README.md says how to run it against a cluster and deploy it.',
      ].join('\n'),
    );
    return 0;
  } catch (error) {
    if (error instanceof ProjectOptionError) {
      err(`create-kindex: ${error.message}`);
      return 2;
    }
    throw error;
  }
}
