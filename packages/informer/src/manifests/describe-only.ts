/**
 * The process-wide "describe only" switch: while `kindex manifests` or `kindex crd generate`
 * imports an operator's module to read its definition, `Operator.start()` (and so `run()` and
 * `runOperator`) refuses with {@link OperatorStartRefusedError} instead of connecting to a
 * cluster that is not there and hanging.
 *
 * The switch lives on `globalThis` under a registered symbol, not in this module's scope: the
 * CLI and the user's module may load two copies of `@kindex/informer` (a CLI from `npx`, the
 * project's own dependency), and the copy that starts the operator must see the switch the
 * other one set.
 *
 * @module
 */

const SWITCH = Symbol.for('kindex.describeOnly');

/** What the switch holds while a module is being described. */
interface DescribingState {
  /** The module being loaded, as the user named it. */
  readonly module: string;
  /** The command describing it, e.g. `kindex manifests`. */
  readonly command: string;
  /** Set when something tried to start an operator meanwhile. */
  refused: OperatorStartRefusedError | undefined;
}

type GlobalWithSwitch = typeof globalThis & { [SWITCH]?: DescribingState };

/**
 * An operator was started while a tool only describes it: the module the tool imports starts
 * the operator at import time. Export the definition from one module (`src/operator.ts`) and
 * start it from another (`src/main.ts`, with `runOperator(definition)`).
 *
 * @example
 * ```ts
 * import { OperatorStartRefusedError, runOperator, type OperatorDefinition } from '@kindex/informer';
 * declare const definition: OperatorDefinition;
 *
 * try {
 *   await runOperator(definition);
 * } catch (error) {
 *   // Only while `kindex manifests` imports this module: it must not start the operator.
 *   if (error instanceof OperatorStartRefusedError) console.error(error.message);
 * }
 * ```
 */
export class OperatorStartRefusedError extends Error {
  override readonly name = 'OperatorStartRefusedError';
  readonly code = 'KINDEX_START_REFUSED';
  constructor(
    /** The module being described, as given on the command line. */
    readonly module: string,
    /** The command that describes it. */
    readonly command: string,
  ) {
    super(
      `${module} starts the operator when imported; point ${command} at the module that exports the definition (e.g. src/operator.ts), and start it from src/main.ts with runOperator(definition)`,
    );
  }
}

/**
 * Runs `load` (an import of the user's module, reading its definition) with the switch on: any
 * operator start meanwhile rejects with {@link OperatorStartRefusedError}, and so does this,
 * even when the module caught the start's rejection or never awaited it.
 *
 * @param module - the module as the user named it, for the message.
 * @param command - the command describing it, e.g. `kindex manifests`.
 *
 * @example
 * ```ts
 * import { describeOnly } from '@kindex/informer/internal';
 * import { pathToFileURL } from 'node:url';
 *
 * // Import an operator's module to read its exports without starting anything.
 * const exports = await describeOnly('dist/operator.js', 'my-tool', () => import(pathToFileURL('dist/operator.js').href));
 * ```
 */
export async function describeOnly<T>(module: string, command: string, load: () => Promise<T>): Promise<T> {
  const global = globalThis as GlobalWithSwitch;
  if (global[SWITCH] !== undefined)
    throw new Error(`describeOnly: already describing ${global[SWITCH].module}; describe one module at a time`);
  const state: DescribingState = { module, command, refused: undefined };
  global[SWITCH] = state;
  // A start the module fired and forgot rejects with no handler; that must not crash the tool
  // with a stack trace before it can print its one line.
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    if (!(reason instanceof Error && reason.name === 'OperatorStartRefusedError')) unhandled.push(reason);
  };
  process.on('unhandledRejection', onUnhandled);
  try {
    let result: T;
    try {
      result = await load();
    } catch (error) {
      throw state.refused ?? error;
    }
    // Let a start that was not awaited reach its refusal.
    await new Promise((resolve) => setImmediate(resolve));
    if (state.refused !== undefined) throw state.refused;
    if (unhandled.length > 0) throw unhandled[0];
    return result;
  } finally {
    process.off('unhandledRejection', onUnhandled);
    delete global[SWITCH];
  }
}

/**
 * Throws {@link OperatorStartRefusedError} while a module is being described (see
 * {@link describeOnly}); does nothing otherwise. `Operator.start()` and `runOperator` call it
 * before they touch the network.
 *
 * @example
 * ```ts
 * import { refuseStartWhileDescribing } from '@kindex/informer/internal';
 *
 * // A custom runner that bypasses Operator.start() honours the switch too.
 * refuseStartWhileDescribing();
 * ```
 */
export function refuseStartWhileDescribing(): void {
  const state = (globalThis as GlobalWithSwitch)[SWITCH];
  if (state === undefined) return;
  state.refused ??= new OperatorStartRefusedError(state.module, state.command);
  throw state.refused;
}
