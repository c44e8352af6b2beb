/**
 * Unknown-key checks of options objects: every constructor and builder of kindex that takes an
 * options object runs one, so a typo fails where it was written instead of being ignored.
 * TypeScript already rejects excess keys in object literals, but not in spread or widened
 * objects, `as never` casts, or JavaScript.
 *
 * Declare a new options object with {@link defineOptions}, which derives its keys (and value
 * checks) from one schema; a hand-written {@link OptionKeysOf} list is for the objects not yet
 * declared that way.
 *
 * @module
 */
import { closestMatch } from './internal/closest-match.js';
import { UnknownOptionError, type UnknownOption } from './unknown-option-error.js';

/**
 * The keys an options object accepts: `true` for a key whose value is taken as is, or the keys
 * of a nested options object (checked when the value is a plain object literal, so class
 * instances such as a `KubeConfig` or a pino logger are left alone).
 *
 * @example
 * ```ts
 * import type { OptionKeys } from '@kindex/core/internal';
 *
 * const serverKeys: OptionKeys = { port: true, host: true, tls: { cert: true, key: true } };
 * ```
 */
export type OptionKeys = { readonly [key: string]: true | OptionKeys };

/**
 * The {@link OptionKeys} of the options type `T`, one entry per key. Declare each list with
 * `satisfies OptionKeysOf<T>` beside its type: an option added to the type but not to the list
 * (or listed but not in the type) is then a compile error, not a key rejected at run time.
 *
 * @example
 * ```ts
 * import type { OptionKeysOf } from '@kindex/core/internal';
 *
 * interface RetryOptions { readonly attempts?: number; readonly delayMs?: number }
 * const RETRY_OPTION_KEYS = { attempts: true, delayMs: true } as const satisfies OptionKeysOf<RetryOptions>;
 * ```
 */
export type OptionKeysOf<T> = { readonly [K in keyof Required<T>]: true | OptionKeys };

/**
 * Throws when `options`, or a nested options object `keys` describes, holds a key `keys` does not
 * list. Values that are not objects are left to the receiver's own checks.
 *
 * @param path - What is being configured, as the caller would name it (`Operator options`); the
 *   unknown keys' paths start with it.
 * @throws {UnknownOptionError} naming every unknown key, the accepted keys and the closest match.
 *
 * @example
 * ```ts
 * import { rejectUnknownOptions } from '@kindex/core/internal';
 *
 * const keys = { port: true, host: true } as const;
 * rejectUnknownOptions('server options', { port: 8080 }, keys); // fine
 * // rejectUnknownOptions('server options', { prot: 8080 }, keys) throws:
 * // Unknown option server options.prot (did you mean "port"?). server options accepts: host, port. Rename or remove it.
 * ```
 */
export function rejectUnknownOptions(path: string, options: unknown, keys: OptionKeys): void {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) return;
  const unknown: UnknownOption[] = [];
  collectUnknown(path, options, keys, unknown);
  if (unknown.length > 0) throw new UnknownOptionError(path, unknown);
}

function collectUnknown(path: string, options: object, keys: OptionKeys, into: UnknownOption[]): void {
  // Sorted only once a key is unknown: some checks sit on paths taken per reconcile
  // (KubeClient.apply, getSecondaryResources), where the usual case must stay allocation-free.
  let accepted: readonly string[] | undefined;
  for (const key in options) {
    if (!Object.hasOwn(options, key)) continue;
    const nested = Object.hasOwn(keys, key) ? keys[key] : undefined;
    if (nested === undefined) {
      accepted ??= Object.keys(keys).sort();
      into.push({ path: `${path}.${key}`, key, accepted, suggestion: closestMatch(key, accepted) });
      continue;
    }
    const value: unknown = (options as Record<string, unknown>)[key];
    if (nested !== true && isPlainObject(value)) collectUnknown(`${path}.${key}`, value, nested, into);
  }
}

/** An object literal (or `Object.create(null)`): options objects, not class instances. */
function isPlainObject(value: unknown): value is object {
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
