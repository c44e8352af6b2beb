/**
 * What a generated project is made from, and the checks each value must pass before anything is
 * written: the API server's rules for the CRD's group, kind and version, `defineOperator`'s rule
 * for the operator's name.
 *
 * @module
 */
import { basename } from 'node:path';

/** A package manager the generated project is set up for (lock file, Dockerfile, README commands). */
export type PackageManager = 'npm' | 'pnpm';

/** The package managers `--package-manager` accepts. */
export const PACKAGE_MANAGERS: readonly PackageManager[] = ['npm', 'pnpm'];

/**
 * Everything a project is generated from, checked by {@link checkProjectOptions}.
 *
 * @example
 * ```ts
 * const options: ProjectOptions = {
 *   directory: '/home/me/widget-operator', name: 'widget-operator', group: 'example.com', kind: 'Widget',
 *   apiVersion: 'v1alpha1', webhook: false, packageManager: 'npm',
 * };
 * ```
 */
export interface ProjectOptions {
  /** Absolute path of the directory to create (or an empty one to fill). */
  readonly directory: string;
  /** The package's and the operator's name: the directory's name. */
  readonly name: string;
  /** The custom resource's API group, a DNS subdomain with a dot (`example.com`). */
  readonly group: string;
  /** The custom resource's kind, UpperCamelCase (`Widget`). */
  readonly kind: string;
  /** The custom resource's version (`v1alpha1`, `v1beta1`, `v1`). */
  readonly apiVersion: string;
  /** Whether the operator serves a validating and a mutating admission webhook. */
  readonly webhook: boolean;
  readonly packageManager: PackageManager;
}

/** The values used when a flag is not given and nobody is asked (`--yes`, or stdin not a terminal). */
export const DEFAULTS = {
  group: 'example.com',
  kind: 'Widget',
  apiVersion: 'v1alpha1',
  webhook: false,
} as const;

/** A value the project cannot be made from: one line naming the value and the fix; exit code 2. */
export class ProjectOptionError extends Error {
  override readonly name = 'ProjectOptionError';
}

/** The longest operator name `defineOperator` accepts (its Services' names must stay DNS labels). */
const MAX_NAME_LENGTH = 47;

/** Why `name` cannot name the project and its operator, or undefined when it can. */
export function nameProblem(name: string): string | undefined {
  if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(name) || name.length > MAX_NAME_LENGTH)
    return `the project name '${name}' (the directory's name) must be lower-case letters, digits and '-', start with a letter and end with a letter or digit, at most ${MAX_NAME_LENGTH} characters (it names the package, the operator's Deployment and its Lease): choose a directory such as my-operator`;
  return undefined;
}

/** Why `group` is no API group a CRD can have, or undefined when it is one. */
export function groupProblem(group: string): string | undefined {
  const labels = group.split('.');
  const dnsSubdomain = group.length <= 253 && labels.every((label) => label.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(label));
  if (!dnsSubdomain || labels.length < 2)
    return `--group '${group}' must be a DNS subdomain with at least one dot (lower-case letters, digits, '-' and '.'), as the API server requires of a CRD's group: use a domain you own, e.g. --group widgets.acme.io`;
  return undefined;
}

/** Why `kind` is no UpperCamelCase kind, or undefined when it is one. */
export function kindProblem(kind: string): string | undefined {
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind) || kind.length > 63)
    return `--kind '${kind}' must be UpperCamelCase (a capital letter, then letters and digits, at most 63), as Kubernetes kinds are: e.g. --kind Widget or --kind DatabaseCluster`;
  return undefined;
}

/** Why `version` is no Kubernetes API version, or undefined when it is one. */
export function apiVersionProblem(version: string): string | undefined {
  if (!/^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/.test(version))
    return `--api-version '${version}' must be a Kubernetes API version such as v1, v1beta1 or v1alpha1 (v, a number, then optionally alpha or beta and a number)`;
  return undefined;
}

/**
 * Checks every value and returns the options; throws {@link ProjectOptionError} naming the first
 * value that cannot be used and its fix.
 */
export function checkProjectOptions(options: Omit<ProjectOptions, 'name'>): ProjectOptions {
  const name = basename(options.directory);
  const problem = nameProblem(name) ?? groupProblem(options.group) ?? kindProblem(options.kind) ?? apiVersionProblem(options.apiVersion);
  if (problem !== undefined) throw new ProjectOptionError(problem);
  if (!PACKAGE_MANAGERS.includes(options.packageManager))
    throw new ProjectOptionError(`--package-manager '${String(options.packageManager)}' must be one of ${PACKAGE_MANAGERS.join(', ')}`);
  return { ...options, name };
}

/** The plural of a lower-case or UpperCamelCase word, as English forms it for the usual kinds. */
export function pluralOf(word: string): string {
  if (/(s|x|z|ch|sh)$/i.test(word)) return `${word}es`;
  if (/[^aeiou]y$/i.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}
