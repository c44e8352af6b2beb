/**
 * `Operator.run()`: an operator as a process, from its start to its exit, driven by signals.
 *
 * Signals are listened for from the first moment, as controller-runtime's `SetupSignalHandler`
 * context is handed to `mgr.Start`: a SIGTERM or Ctrl-C while caches cannot sync, while the CRD is
 * awaited or while the start is otherwise in progress aborts the start (`start({ signal })`) and
 * the process exits 1 at once, instead of at the cache sync timeout two minutes later. A signal
 * to a running operator is a graceful stop: drain, release the Lease, exit 0. A second signal
 * exits 1 at once, as controller-runtime's handler does (`os.Exit(1)`). A start that fails (a
 * `CacheSyncError`, say) exits 1 with its message and causes on stderr.
 *
 * @module
 */
import type { Logger } from '@kindex/core';
import { errorLogFields, formatErrorForUser } from '../logging/user-error.js';
import type { StartOptions } from '../startup/start-options.js';
import type { OperatorRunOptions } from './operator-options.js';

/** What {@link runOperatorProcess} drives: an Operator's start, stop and logger. */
export interface RunnableOperator {
  readonly logger: Logger;
  start(options: StartOptions): Promise<void>;
  /** Idempotent: a second call joins the first, so nothing is stopped (or logged) twice. */
  stop(options: { drainTimeoutMs?: number }): Promise<void>;
}

/** controller-runtime's GracefulShutdownTimeout and JOSDK's reconciliationTerminationTimeout are of this order. */
const DEFAULT_GRACEFUL_SHUTDOWN_MS = 30_000;

/** See `Operator.run`. */
export async function runOperatorProcess(operator: RunnableOperator, options: OperatorRunOptions): Promise<void> {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const exit = options.exit ?? true;
  const { logger } = operator;
  // Aborted by the first signal: ends a start in progress; its reason is the signal's name.
  const interrupted = new AbortController();
  let received: NodeJS.Signals | undefined;
  let wake: () => void = () => {};
  const signalled = new Promise<void>((resolve) => (wake = resolve));
  const onSignal = (signal: NodeJS.Signals): void => {
    if (received !== undefined) {
      process.stderr.write(`kindex: second signal (${signal}): exiting at once\n`);
      process.exit(1);
    }
    received = signal;
    logger.info({ signal }, 'signal received, stopping');
    interrupted.abort(signal);
    wake();
  };
  for (const s of signals) process.on(s, onSignal);
  try {
    try {
      await operator.start({ signal: interrupted.signal });
    } catch (error) {
      // Leave nothing running (informers, timers) that would keep a failed process alive; start()
      // has stopped what it started, and this joins that stop.
      await operator.stop({ drainTimeoutMs: 0 }).catch(() => {});
      if (received !== undefined) {
        // Asked for, not a failure of the operator: one line, not the StartAbortedError.
        if (exit) {
          process.stderr.write(`kindex: ${received} during startup: stopped before the operator started\n`);
          process.exit(1);
        }
        throw error;
      }
      logger.error(errorLogFields(logger, error), 'operator failed to start');
      if (exit) {
        // The process is run()'s: end it with the error a person can act on, not Node's dump of an
        // unhandled rejection (stack and fields around the one line that matters).
        process.stderr.write(`kindex: start failed: ${formatErrorForUser(error)}\n`);
        process.exit(1);
      }
      throw error;
    }
    // A signal that came as the last cache synced still stops the operator, gracefully.
    if (received === undefined) options.onStarted?.();
    await signalled;
    await operator.stop({ drainTimeoutMs: options.gracefulShutdownTimeoutMs ?? DEFAULT_GRACEFUL_SHUTDOWN_MS });
  } finally {
    for (const s of signals) process.off(s, onSignal);
  }
  if (exit) process.exit(0);
}
