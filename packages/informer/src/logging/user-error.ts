/**
 * How kindex shows an error to a person: its message and the messages of its `cause` chain, each
 * once, without the stack or a dump of its fields. A `CacheSyncError` already says what failed and
 * how to fix it; Node's own printing of it (`console.error(error)`) buries that under about fifty
 * lines of stack frames and object fields. Stacks are for whoever debugs kindex itself: the
 * operator's log carries them at `debug` level only ({@link errorLogFields}).
 *
 * @module
 */
import type { Logger } from '@kindex/core';

/** How deep a `cause` chain is followed: deeper ones are a loop or a bug, not information. */
const MAX_CAUSES = 8;

/**
 * An error as a person reads it: `Name: message` (the name left out for a plain `Error`), then
 * one `  cause: ...` line per error of its `cause` chain (and per error of an `AggregateError`),
 * each message once and none of the stacks. Values that are not errors are shown with `String`.
 *
 * @example
 * ```ts
 * import { formatErrorForUser, type Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * try {
 *   await operator.run();
 * } catch (error) {
 *   // "CacheSyncError: controller "jobs" ... failed with 404 ... \nFix: install the CustomResourceDefinition ...\n  cause: ..."
 *   console.error(formatErrorForUser(error));
 *   process.exitCode = 1;
 * }
 * ```
 */
export function formatErrorForUser(error: unknown): string {
  const lines = [headline(error)];
  const seen = new Set<unknown>([error]);
  const shown = new Set<string>([lines[0]!]);
  for (const cause of causesOf(error, seen)) {
    const line = headline(cause);
    // A wrapper that repeats its cause's text adds nothing: say each thing once.
    if (shown.has(line) || lines[0]!.includes(tidy(messageOf(cause)))) continue;
    shown.add(line);
    lines.push(`  cause: ${line}`);
  }
  return lines.join('\n');
}

/**
 * The fields of a log line about `error`: `error`, the text of {@link formatErrorForUser}, and,
 * only when `logger` writes `debug` lines, `err` with the whole error (stack, fields, causes) for
 * pino's error serializer. At the default level an error is one readable field, not a dump.
 * Used by the operator's own log lines, as `log.warn({ shard, ...errorLogFields(log, e) }, '...')`.
 */
export function errorLogFields(logger: Logger, error: unknown): { error: string; err?: unknown } {
  const fields: { error: string; err?: unknown } = { error: formatErrorForUser(error) };
  if (logger.isLevelEnabled?.('debug') === true) fields.err = error;
  return fields;
}

function messageOf(value: unknown): string {
  if (value instanceof Error) return value.message;
  return String(value);
}

function headline(value: unknown): string {
  if (!(value instanceof Error)) return tidy(String(value));
  const message = tidy(value.message) || '(no message)';
  return value.name === 'Error' || value.name === '' ? message : `${value.name}: ${message}`;
}

/**
 * Without blank lines or trailing spaces: a server's plain-text body (kube-apiserver's
 * "404 page not found\n") ends in a newline that would otherwise split the text.
 */
function tidy(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line !== '')
    .join('\n');
}

/** The errors behind `error`, outermost first: its `cause` chain and an AggregateError's `errors`. */
function causesOf(error: unknown, seen: Set<unknown>): unknown[] {
  const found: unknown[] = [];
  const visit = (value: unknown): void => {
    if (!(value instanceof Error) || found.length >= MAX_CAUSES) return;
    const next = [...(value instanceof AggregateError ? (value.errors as unknown[]) : []), value.cause];
    for (const cause of next) {
      if (cause === undefined || seen.has(cause) || found.length >= MAX_CAUSES) continue;
      seen.add(cause);
      found.push(cause);
      visit(cause);
    }
  };
  visit(error);
  return found;
}
