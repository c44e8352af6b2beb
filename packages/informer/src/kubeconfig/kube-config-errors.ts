/**
 * Why a kubeconfig could not be loaded or used, one class per failure a user fixes differently.
 * Each message is one line saying what is wrong, then one line starting `Fix:` (also in `fix`).
 *
 * @module
 */

/**
 * The `code` of a {@link KubeConfigError}: stable across releases, for scripts and logs.
 *
 * @example
 * ```ts
 * import { KubeConfigError, loadKubeConfig, type KubeConfigErrorCode } from '@kindex/informer';
 *
 * try {
 *   loadKubeConfig();
 * } catch (error) {
 *   const code: KubeConfigErrorCode | undefined = error instanceof KubeConfigError ? error.code : undefined;
 *   if (code === 'KINDEX_KUBECONFIG_NOT_FOUND') console.error('no cluster configured');
 * }
 * ```
 */
export type KubeConfigErrorCode =
  | 'KINDEX_KUBECONFIG_NOT_FOUND'
  | 'KINDEX_KUBECONFIG_FILE_NOT_FOUND'
  | 'KINDEX_KUBECONFIG_UNREADABLE'
  | 'KINDEX_KUBECONFIG_CONTEXT'
  | 'KINDEX_KUBECONFIG_PLAIN_HTTP';

/**
 * A kubeconfig that cannot be loaded or used: thrown by `loadKubeConfig()` and by `new KubeClient()`
 * (so `new Operator()`) before any request. The base of the five classes below; catch it to handle
 * them all. Retrying does not help: the kubeconfig, the environment or the flags must change.
 *
 * @example
 * ```ts
 * import { KubeConfigError, loadKubeConfig } from '@kindex/informer';
 *
 * try {
 *   loadKubeConfig({ kubeconfig: process.argv[2] });
 * } catch (error) {
 *   if (!(error instanceof KubeConfigError)) throw error;
 *   console.error(error.message); // one line, then "Fix: ..."
 *   process.exit(1);
 * }
 * ```
 */
export class KubeConfigError extends Error {
  override readonly name: string = 'KubeConfigError';
  /** Which failure this is. */
  readonly code: KubeConfigErrorCode;
  /** The problem alone, without the fix (the message's first line). */
  readonly problem: string;
  /** What to do about it, starting `Fix:` (the message's second line). */
  readonly fix: string;

  constructor(code: KubeConfigErrorCode, problem: string, fix: string, options?: { cause?: unknown }) {
    super(`${problem}\nFix: ${fix}`, options);
    this.code = code;
    this.problem = problem;
    this.fix = `Fix: ${fix}`;
  }
}

/**
 * No kubeconfig anywhere kindex looks: no `--kubeconfig`, no `KUBECONFIG`, no `~/.kube/config`,
 * not in a pod. Also thrown for a KubeConfig that holds nothing usable: empty, or client-node's
 * fallback `http://localhost:8080` that `loadFromDefault()` puts there when it found nothing.
 * The message lists each place and why it did not count.
 *
 * @example
 * ```ts
 * import { KubeConfigNotFoundError, loadKubeConfig } from '@kindex/informer';
 *
 * try {
 *   loadKubeConfig({ env: {} });
 * } catch (error) {
 *   if (error instanceof KubeConfigNotFoundError) console.error(error.searched.join('; '));
 * }
 * ```
 */
export class KubeConfigNotFoundError extends KubeConfigError {
  override readonly name: string = 'KubeConfigNotFoundError';
  declare readonly code: 'KINDEX_KUBECONFIG_NOT_FOUND';
  /** Each place looked at, with why it did not count (`~/.kube/config: /home/u/.kube/config does not exist`). */
  readonly searched: readonly string[];

  constructor(problem: string, searched: readonly string[], fix: string) {
    super('KINDEX_KUBECONFIG_NOT_FOUND', problem, fix);
    this.searched = searched;
  }
}

/**
 * Where a kubeconfig path came from: `--kubeconfig` (the `kubeconfig` option of `loadKubeConfig()`)
 * or the `KUBECONFIG` environment variable.
 *
 * @example
 * ```ts
 * import { KubeConfigFileNotFoundError, type KubeConfigPathSource } from '@kindex/informer';
 * declare const error: KubeConfigFileNotFoundError;
 *
 * const source: KubeConfigPathSource = error.source;
 * console.error(source === 'KUBECONFIG' ? 'check your shell profile' : 'check the command line');
 * ```
 */
export type KubeConfigPathSource = '--kubeconfig' | 'KUBECONFIG';

/**
 * A kubeconfig path given explicitly (`--kubeconfig`) or by `KUBECONFIG` names no file. With
 * several paths in `KUBECONFIG`, missing ones are skipped as kubectl skips them; this is thrown
 * when none exists.
 *
 * @example
 * ```ts
 * import { KubeConfigFileNotFoundError, loadKubeConfig } from '@kindex/informer';
 *
 * try {
 *   loadKubeConfig({ kubeconfig: 'cluster.kubeconfig' });
 * } catch (error) {
 *   if (error instanceof KubeConfigFileNotFoundError) console.error(`${error.source}: ${error.paths.join(', ')} missing`);
 * }
 * ```
 */
export class KubeConfigFileNotFoundError extends KubeConfigError {
  override readonly name: string = 'KubeConfigFileNotFoundError';
  declare readonly code: 'KINDEX_KUBECONFIG_FILE_NOT_FOUND';
  /** The absolute paths that do not exist. */
  readonly paths: readonly string[];
  readonly source: KubeConfigPathSource;

  constructor(paths: readonly string[], source: KubeConfigPathSource, given: string) {
    const resolved = paths.length === 1 && paths[0] !== given ? ` (resolved to ${paths[0]})` : '';
    super(
      'KINDEX_KUBECONFIG_FILE_NOT_FOUND',
      source === 'KUBECONFIG'
        ? paths.length === 1
          ? `the kubeconfig file ${given} named by KUBECONFIG does not exist${resolved}`
          : `none of the kubeconfig files named by KUBECONFIG exists: ${paths.join(', ')}`
        : `the kubeconfig file ${given} given with --kubeconfig does not exist${resolved}`,
      source === 'KUBECONFIG'
        ? 'point KUBECONFIG at an existing kubeconfig (paths separated by ":"), or unset it to use ~/.kube/config.'
        : 'pass the path of an existing kubeconfig to --kubeconfig (relative paths start from the current directory).',
    );
    this.paths = paths;
    this.source = source;
  }
}

/**
 * A kubeconfig file that cannot be read (permissions, a directory) or parsed (YAML syntax, an
 * entry without its required field, not a kubeconfig at all). `line` and `column` (1-based) point
 * at the YAML error when the parser gives one.
 *
 * @example
 * ```ts
 * import { KubeConfigParseError, loadKubeConfig } from '@kindex/informer';
 *
 * try {
 *   loadKubeConfig({ kubeconfig: 'broken.kubeconfig' });
 * } catch (error) {
 *   if (error instanceof KubeConfigParseError) console.error(`${error.path}:${error.line ?? '?'}:${error.column ?? '?'}`);
 * }
 * ```
 */
export class KubeConfigParseError extends KubeConfigError {
  override readonly name: string = 'KubeConfigParseError';
  declare readonly code: 'KINDEX_KUBECONFIG_UNREADABLE';
  /** The absolute path of the file. */
  readonly path: string;
  /** The 1-based line of the YAML error, when the parser gives one. */
  readonly line: number | undefined;
  /** The 1-based column of the YAML error, when the parser gives one. */
  readonly column: number | undefined;

  constructor(what: { path: string; reason: string; line?: number; column?: number; unreadable?: boolean }, options?: { cause?: unknown }) {
    const at = what.line === undefined ? '' : `:${what.line}${what.column === undefined ? '' : `:${what.column}`}`;
    super(
      'KINDEX_KUBECONFIG_UNREADABLE',
      what.unreadable ? `cannot read kubeconfig ${what.path}: ${what.reason}` : `cannot parse kubeconfig ${what.path}${at}: ${what.reason}`,
      what.unreadable
        ? `make ${what.path} a file this user can read (kubectl writes it with mode 600), or point --kubeconfig or KUBECONFIG at another one.`
        : `correct the kubeconfig${what.line === undefined ? '' : ` at line ${what.line}`} (\`kubectl config view --kubeconfig ${what.path}\` shows what kubectl makes of it), or write it anew with \`kubectl config\`.`,
      options,
    );
    this.path = what.path;
    this.line = what.line;
    this.column = what.column;
  }
}

/**
 * The context to use is not there: `--context` (the `context` option) names none of the
 * kubeconfig's contexts, its `current-context` is unset or names none, or the context names a
 * cluster the kubeconfig does not define. `contexts` lists the contexts it has.
 *
 * @example
 * ```ts
 * import { KubeConfigContextError, loadKubeConfig } from '@kindex/informer';
 *
 * try {
 *   loadKubeConfig({ context: 'staging' });
 * } catch (error) {
 *   if (error instanceof KubeConfigContextError) console.error(`use one of: ${error.contexts.join(', ')}`);
 * }
 * ```
 */
export class KubeConfigContextError extends KubeConfigError {
  override readonly name: string = 'KubeConfigContextError';
  declare readonly code: 'KINDEX_KUBECONFIG_CONTEXT';
  /** The context asked for, or undefined when the kubeconfig sets no current-context. */
  readonly context: string | undefined;
  /** The names of the contexts the kubeconfig has. */
  readonly contexts: readonly string[];

  constructor(problem: string, context: string | undefined, contexts: readonly string[], fix: string) {
    super('KINDEX_KUBECONFIG_CONTEXT', problem, fix);
    this.context = context;
    this.contexts = contexts;
  }
}

/**
 * The current context's cluster is served over plain `http://` and does not set
 * `insecure-skip-tls-verify`: client-node refuses to send requests to it (`HTTP protocol is not
 * allowed when skipTLSVerify is not set or false`), so this fails at once instead of on every request.
 *
 * @example
 * ```ts
 * import { KubeConfigInsecureServerError, loadKubeConfig } from '@kindex/informer';
 *
 * try {
 *   loadKubeConfig();
 * } catch (error) {
 *   if (error instanceof KubeConfigInsecureServerError) console.error(`${error.cluster}: ${error.server}`);
 * }
 * ```
 */
export class KubeConfigInsecureServerError extends KubeConfigError {
  override readonly name: string = 'KubeConfigInsecureServerError';
  declare readonly code: 'KINDEX_KUBECONFIG_PLAIN_HTTP';
  /** The cluster's name in the kubeconfig. */
  readonly cluster: string;
  /** Its server URL. */
  readonly server: string;

  constructor(cluster: string, server: string, origin: string) {
    super(
      'KINDEX_KUBECONFIG_PLAIN_HTTP',
      `cluster "${cluster}" of ${origin} has a plain-HTTP server ${server} without insecure-skip-tls-verify, so client-node refuses to send requests to it`,
      `use the server's https:// URL, or set \`insecure-skip-tls-verify: true\` on cluster "${cluster}" (\`kubectl config set-cluster ${cluster} --insecure-skip-tls-verify=true\`) if plain HTTP is really meant (credentials then travel unencrypted).`,
    );
    this.cluster = cluster;
    this.server = server;
  }
}
