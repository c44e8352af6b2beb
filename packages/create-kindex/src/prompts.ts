/**
 * The questions asked when stdin is a terminal and a flag was left out (@clack/prompts), each
 * answer checked as the flag would be.
 *
 * @module
 */
import { basename, resolve } from 'node:path';
import { cancel, confirm, intro, outro, select, text } from '@clack/prompts';
import { DEFAULTS, apiVersionProblem, groupProblem, kindProblem, nameProblem, type PackageManager } from './project-options.js';
import { directoryProblem } from './scaffold.js';

/** The values given so far; undefined ones are asked for. */
export interface Answers {
  readonly directory: string | undefined;
  readonly group: string | undefined;
  readonly kind: string | undefined;
  readonly apiVersion: string | undefined;
  readonly webhook: boolean | undefined;
  readonly packageManager: PackageManager | undefined;
}

/** Asks for every undefined value; resolves to undefined when the user cancels (Ctrl-C). */
export async function askMissing(given: Answers, cwd: string, defaultPackageManager: PackageManager): Promise<Answers | undefined> {
  intro('create-kindex');
  const ask = async <T>(value: T | undefined, question: () => Promise<T | symbol>): Promise<T | symbol> =>
    value !== undefined ? value : question();
  const directory = await ask(given.directory, () =>
    text({
      message: 'Project directory (its name names the package and the operator)',
      placeholder: 'my-operator',
      defaultValue: 'my-operator',
      validate: (value) => {
        const dir = value || 'my-operator';
        return nameProblem(basename(resolve(cwd, dir))) ?? directoryProblem(resolve(cwd, dir), cwd);
      },
    }),
  );
  // clack answers a symbol when the user cancels (Ctrl-C, Escape).
  if (typeof directory === 'symbol') return cancelled();
  const group = await ask(given.group, () =>
    text({
      message: 'API group of the custom resource (a domain you own)',
      placeholder: DEFAULTS.group,
      defaultValue: DEFAULTS.group,
      validate: (v) => groupProblem(v || DEFAULTS.group),
    }),
  );
  if (typeof group === 'symbol') return cancelled();
  const kind = await ask(given.kind, () =>
    text({
      message: 'Kind (UpperCamelCase)',
      placeholder: DEFAULTS.kind,
      defaultValue: DEFAULTS.kind,
      validate: (v) => kindProblem(v || DEFAULTS.kind),
    }),
  );
  if (typeof kind === 'symbol') return cancelled();
  const apiVersion = await ask(given.apiVersion, () =>
    text({
      message: 'Version',
      placeholder: DEFAULTS.apiVersion,
      defaultValue: DEFAULTS.apiVersion,
      validate: (v) => apiVersionProblem(v || DEFAULTS.apiVersion),
    }),
  );
  if (typeof apiVersion === 'symbol') return cancelled();
  const webhook = await ask(given.webhook, () =>
    confirm({ message: 'Add a validating and a mutating admission webhook?', initialValue: DEFAULTS.webhook }),
  );
  if (typeof webhook === 'symbol') return cancelled();
  const packageManager = await ask(given.packageManager, () =>
    select<PackageManager>({
      message: 'Package manager',
      initialValue: defaultPackageManager,
      options: [
        { value: 'npm', label: 'npm' },
        { value: 'pnpm', label: 'pnpm' },
      ],
    }),
  );
  if (typeof packageManager === 'symbol') return cancelled();
  outro('writing the project');
  return { directory, group, kind, apiVersion, webhook, packageManager };
}

function cancelled(): undefined {
  cancel('cancelled');
  return undefined;
}
