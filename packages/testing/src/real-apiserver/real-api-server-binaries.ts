import { accessSync, constants, existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';

/**
 * The command that builds (or finds cached) the binaries {@link realApiServerBinaries} looks for.
 *
 * @example
 * ```ts
 * import { REAL_APISERVER_BUILD_COMMAND } from '@kindex/testing/internal';
 *
 * // Tell the developer how to get the binaries.
 * console.error(`no kube-apiserver binaries; run ${REAL_APISERVER_BUILD_COMMAND} once (needs Go)`);
 * ```
 */
export const REAL_APISERVER_BUILD_COMMAND = 'scripts/real-apiserver/build.sh';

/**
 * Where the kube-apiserver, kube-controller-manager and etcd binaries built by
 * `scripts/real-apiserver/build.sh` live.
 *
 * @example
 * ```ts
 * import { realApiServerBinaries, startRealApiServer, type RealApiServerBinaries } from '@kindex/testing/internal';
 *
 * // Resolve once, start many servers with the same binaries.
 * const binaries: RealApiServerBinaries = realApiServerBinaries();
 * const server = await startRealApiServer({ binaries });
 * ```
 */
export interface RealApiServerBinaries {
  /** Absolute path of the kube-apiserver binary. */
  readonly kubeApiServer: string;
  /** Absolute path of the kube-controller-manager binary (same Kubernetes release as kube-apiserver). */
  readonly kubeControllerManager: string;
  /** Absolute path of the etcd binary. */
  readonly etcd: string;
  /** The Kubernetes release pinned by the scratch module, for example `v1.36.3`. */
  readonly kubernetesVersion: string;
  /** The etcd release pinned by the scratch module, for example `v3.6.8`. */
  readonly etcdVersion: string;
}

/**
 * Thrown when a binary of the real API server has not been built (or the build pins are unreadable).
 *
 * @example
 * ```ts
 * import { RealApiServerBinariesMissingError, startTestApiServer } from '@kindex/testing';
 *
 * try {
 *   // With KINDEX_APISERVER=real: etcd, kube-apiserver and kube-controller-manager must be built.
 *   const server = await startTestApiServer();
 *   await server.stop();
 * } catch (error) {
 *   if (error instanceof RealApiServerBinariesMissingError) console.error(`missing ${error.path}: ${error.message}`);
 * }
 * ```
 */
export class RealApiServerBinariesMissingError extends Error {
  override readonly name = 'RealApiServerBinariesMissingError';
  readonly code = 'KINDEX_REAL_APISERVER_BINARIES_MISSING';
  constructor(
    message: string,
    /** The path that was looked for. */
    readonly path: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * Where {@link realApiServerBinaries} looks; every field is optional.
 *
 * @example
 * ```ts
 * import { realApiServerBinaries, type RealApiServerBinariesOptions } from '@kindex/testing/internal';
 *
 * // Binaries cached somewhere else on a CI runner.
 * const options: RealApiServerBinariesOptions = { cacheDir: '/opt/ci-cache/kindex' };
 * const binaries = realApiServerBinaries(options);
 * ```
 */
export interface RealApiServerBinariesOptions {
  /**
   * Root of the binary cache, holding `kube-apiserver-<version>/`, `kube-controller-manager-<version>/`
   * and `etcd-<version>/`.
   * Defaults to `$KINDEX_CACHE_DIR`, else `$XDG_CACHE_HOME/kindex`, else `~/.cache/kindex` (as build.sh).
   */
  readonly cacheDir?: string;
  /**
   * The folder holding the scratch modules that pin the versions. Defaults to this repository's
   * `scripts/real-apiserver`; where it does not exist (a published @kindex/testing), the newest
   * versions in the cache are used.
   */
  readonly scriptsDir?: string;
  /** Environment read for the defaults. Defaults to `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}

/** {@link RealApiServerBinariesOptions}' keys and value checks: unknown keys are rejected, not ignored. */
const REAL_API_SERVER_BINARIES_OPTIONS = defineOptions<RealApiServerBinariesOptions>('realApiServerBinaries options', {
  cacheDir: Type.Optional(Type.String({ minLength: 1, description: 'a directory path' })),
  scriptsDir: Type.Optional(Type.String({ minLength: 1, description: 'a directory path' })),
  env: Type.Optional(Type.Unknown()),
});

// packages/testing/src/real-apiserver/ -> the repository root is four levels up.
const DEFAULT_SCRIPTS_DIR = fileURLToPath(new URL('../../../../scripts/real-apiserver/', import.meta.url));

/**
 * Finds the kube-apiserver, kube-controller-manager and etcd binaries that `scripts/real-apiserver/build.sh` caches, at the
 * versions the committed scratch modules pin, so that the launcher and the build never disagree.
 *
 * @throws RealApiServerBinariesMissingError naming the build command when a binary is missing.
 *
 * @example
 * ```ts
 * import { RealApiServerBinariesMissingError } from '@kindex/testing';
 * import { realApiServerBinaries } from '@kindex/testing/internal';
 *
 * // Skip the real-server suite on machines that have not built the binaries.
 * try {
 *   const { kubeApiServer, kubernetesVersion } = realApiServerBinaries();
 *   console.log(`using ${kubeApiServer} (${kubernetesVersion})`);
 * } catch (error) {
 *   if (!(error instanceof RealApiServerBinariesMissingError)) throw error;
 *   console.log(`skipping: ${error.message}`);
 * }
 * ```
 */
export function realApiServerBinaries(options: RealApiServerBinariesOptions = {}): RealApiServerBinaries {
  REAL_API_SERVER_BINARIES_OPTIONS.check(options);
  const env = options.env ?? process.env;
  const scriptsDir = options.scriptsDir ?? DEFAULT_SCRIPTS_DIR;
  const cacheDir = options.cacheDir ?? defaultCacheDir(env);
  // A published @kindex/testing has no scratch modules (they live in the kindex repository): a
  // project using it runs the newest binaries that build.sh cached.
  const pinned = existsSync(scriptsDir);
  const kubernetesVersion = pinned
    ? pinnedVersion(path.join(scriptsDir, 'kube-apiserver', 'go.mod'), 'k8s.io/kubernetes')
    : newestCached(cacheDir, 'kube-apiserver');
  const etcdVersion = pinned
    ? pinnedVersion(path.join(scriptsDir, 'etcd', 'go.mod'), 'go.etcd.io/etcd/server/v3')
    : newestCached(cacheDir, 'etcd');
  return {
    kubeApiServer: executable(path.join(cacheDir, `kube-apiserver-${kubernetesVersion}`, 'kube-apiserver')),
    kubeControllerManager: executable(path.join(cacheDir, `kube-controller-manager-${kubernetesVersion}`, 'kube-controller-manager')),
    etcd: executable(path.join(cacheDir, `etcd-${etcdVersion}`, 'etcd')),
    kubernetesVersion,
    etcdVersion,
  };
}

function defaultCacheDir(env: NodeJS.ProcessEnv): string {
  const explicit = env['KINDEX_CACHE_DIR'];
  if (explicit !== undefined && explicit !== '') return explicit;
  const xdg = env['XDG_CACHE_HOME'];
  return path.join(xdg !== undefined && xdg !== '' ? xdg : path.join(homedir(), '.cache'), 'kindex');
}

/** The highest `v<major>.<minor>.<patch>` of the `<name>-<version>/` folders in the cache. */
function newestCached(cacheDir: string, name: string): string {
  const prefix = `${name}-`;
  const parts = (version: string): number[] => version.slice(1).split('.').map(Number);
  const versions = (existsSync(cacheDir) ? readdirSync(cacheDir) : [])
    .filter((entry) => entry.startsWith(prefix) && /^v\d+\.\d+\.\d+$/.test(entry.slice(prefix.length)))
    .map((entry) => entry.slice(prefix.length))
    .sort((a, b) => {
      const [x, y] = [parts(a), parts(b)];
      return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
    });
  const newest = versions.at(-1);
  if (newest === undefined) {
    const where = path.join(cacheDir, `${name}-<version>`);
    throw new RealApiServerBinariesMissingError(
      `no ${name} in ${where}: build it with ${REAL_APISERVER_BUILD_COMMAND} from a kindex checkout (needs Go), or set KINDEX_CACHE_DIR to where it is`,
      where,
    );
  }
  return newest;
}

// Mirrors build.sh's awk: `require <module> vX` on one line, or `<module> vX` inside a block.
function pinnedVersion(goMod: string, module: string): string {
  let text: string;
  try {
    text = readFileSync(goMod, 'utf8');
  } catch (error) {
    throw new RealApiServerBinariesMissingError(`cannot read the scratch module ${goMod}`, goMod, { cause: error });
  }
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    const at = fields[0] === 'require' ? 1 : 0;
    const version = fields[at + 1];
    if (fields[at] === module && version !== undefined && version.startsWith('v')) return version;
  }
  throw new RealApiServerBinariesMissingError(`${goMod} does not require ${module}`, goMod);
}

function executable(file: string): string {
  try {
    accessSync(file, constants.X_OK);
  } catch (error) {
    throw new RealApiServerBinariesMissingError(
      `${file} is missing: build it with ${REAL_APISERVER_BUILD_COMMAND} (needs Go; cached after the first build)`,
      file,
      { cause: error },
    );
  }
  return file;
}
