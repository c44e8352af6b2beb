/**
 * The runtime stage: which Node.js and `@kubernetes/client-node` versions kindex runs on, checked
 * when `@kindex/informer` or `@kindex/testing` is imported.
 *
 * The supported matrix is Node 20.19+, 22 and 24 with client-node 1.4.x, and Node 22.19+ or 24 with
 * client-node 2.0.1+. client-node is a peer dependency, so a package manager installs 2.x on
 * Node 20 with at most a warning; 2.x then crashes at import deep inside undici 8 (which needs
 * Node 22.19). The check turns that into one error naming both versions and the two fixes. It
 * reads client-node's version from its package.json and never imports it, so it runs before
 * client-node is evaluated and core stays free of client-node.
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Thrown at import when the installed client-node cannot run on this Node.js version.
 *
 * @example
 * ```ts
 * import { UnsupportedRuntimeError } from '@kindex/core';
 *
 * try {
 *   await import('@kindex/informer');
 * } catch (error) {
 *   if (!(error instanceof UnsupportedRuntimeError)) throw error;
 *   console.error(`Node.js ${error.nodeVersion} with client-node ${error.clientNodeVersion}: ${error.message}`);
 * }
 * ```
 */
export class UnsupportedRuntimeError extends Error {
  override readonly name = 'UnsupportedRuntimeError';
  readonly code = 'KINDEX_UNSUPPORTED_RUNTIME';
  constructor(
    /** The running Node.js version, without the leading `v`. */
    readonly nodeVersion: string,
    /** The installed `@kubernetes/client-node` version. */
    readonly clientNodeVersion: string,
    reason: string,
  ) {
    super(`kindex cannot run @kubernetes/client-node ${clientNodeVersion} on Node.js ${nodeVersion}: ${reason}`);
  }
}

type Version = readonly [major: number, minor: number, patch: number];

function parseVersion(text: string): Version | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
  if (match === null) return undefined;
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

function below(a: Version, b: Version): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

// undici 8, which client-node 2.x uses for every request, requires Node 22.19.
const CLIENT_NODE_2_MIN_NODE: Version = [22, 19, 0];

/**
 * Says why a Node.js and client-node version pair is unsupported, or returns undefined when it is
 * supported (or a version cannot be read, since guessing would block users for nothing).
 *
 * @example
 * ```ts
 * import { unsupportedRuntime } from '@kindex/core/internal';
 * unsupportedRuntime('20.19.0', '2.0.1'); // UnsupportedRuntimeError: ... needs Node.js 22.19 or newer ...
 * unsupportedRuntime('24.21.0', '2.0.1'); // undefined
 * ```
 */
export function unsupportedRuntime(nodeVersion: string, clientNodeVersion: string): UnsupportedRuntimeError | undefined {
  const node = parseVersion(nodeVersion);
  const client = parseVersion(clientNodeVersion);
  if (node === undefined || client === undefined) return undefined;
  if (client[0] === 2 && client[1] === 0 && client[2] === 0) {
    return new UnsupportedRuntimeError(
      nodeVersion,
      clientNodeVersion,
      'client-node 2.0.0 aborts every watch after 30 s; install @kubernetes/client-node@^2.0.1 (or ^1.4.0)',
    );
  }
  if (client[0] >= 2 && below(node, CLIENT_NODE_2_MIN_NODE)) {
    return new UnsupportedRuntimeError(
      nodeVersion,
      clientNodeVersion,
      'client-node 2.x needs Node.js 22.19 or newer (its HTTP client, undici 8, does); ' +
        'upgrade Node.js to 22.19+ or 24, or install @kubernetes/client-node@^1.4.0',
    );
  }
  return undefined;
}

/**
 * Throws {@link UnsupportedRuntimeError} when the `@kubernetes/client-node` that `importer` would
 * load cannot run on this Node.js. Does nothing when client-node is not installed there (the
 * import that follows reports that better).
 *
 * @param importer - the module whose view of `node_modules` counts, usually `import.meta.url`.
 * @param nodeVersion - the Node.js version to check against. Defaults to the running one.
 * @example
 * ```ts
 * import { assertSupportedRuntime } from '@kindex/core/internal';
 *
 * // First thing in a module that loads @kubernetes/client-node: fail early with a clear message.
 * assertSupportedRuntime(import.meta.url);
 * ```
 */
export function assertSupportedRuntime(importer: string | URL, nodeVersion: string = process.versions.node): void {
  const manifest = findPackageManifest(importer, '@kubernetes/client-node');
  if (manifest === undefined) return;
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown };
  if (typeof version !== 'string') return;
  const error = unsupportedRuntime(nodeVersion, version);
  if (error !== undefined) throw error;
}

// Walks up node_modules folders from the importer the way ESM resolution does (no NODE_PATH,
// which `require.resolve` would honour and `import` does not: pnpm sets it for scripts).
function findPackageManifest(importer: string | URL, name: string): string | undefined {
  let dir = dirname(fileURLToPath(importer));
  for (;;) {
    const manifest = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) return manifest;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
