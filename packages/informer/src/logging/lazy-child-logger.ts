import type { Logger } from '@kindex/core';

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/**
 * A child logger made on its first line. Each reconcile's logger carries its namespace, name and
 * reconcile id, but most reconciles write no line at the operator's level, and a pino child
 * serializes its bindings when made: so it is made only when a line at an enabled level is
 * written (or a further child asked for). Levels are the parent's, as a child's are. Like pino's,
 * the methods are called on the logger (`log.info(...)`), not detached.
 */
export class LazyChildLogger implements Logger {
  readonly #parent: Logger;
  readonly #bindings: Record<string, unknown> | (() => Record<string, unknown>);
  #child: Logger | undefined;

  /** `bindings` may be a function: it is called when the child is made, and only then. */
  constructor(parent: Logger, bindings: Record<string, unknown> | (() => Record<string, unknown>)) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  trace(...args: [object | string, string?]): void {
    this.#write('trace', args);
  }
  debug(...args: [object | string, string?]): void {
    this.#write('debug', args);
  }
  info(...args: [object | string, string?]): void {
    this.#write('info', args);
  }
  warn(...args: [object | string, string?]): void {
    this.#write('warn', args);
  }
  error(...args: [object | string, string?]): void {
    this.#write('error', args);
  }
  fatal(...args: [object | string, string?]): void {
    this.#write('fatal', args);
  }

  child(bindings: Record<string, unknown>): Logger {
    return this.#made().child(bindings);
  }

  isLevelEnabled(level: string): boolean {
    return this.#parent.isLevelEnabled?.(level) !== false;
  }

  #made(): Logger {
    const bindings = this.#bindings;
    return (this.#child ??= this.#parent.child(typeof bindings === 'function' ? bindings() : bindings));
  }

  #write(level: Level, args: [object | string, string?]): void {
    if (!this.isLevelEnabled(level)) return;
    (this.#made()[level] as (...a: unknown[]) => void)(...args);
  }
}
