import type { Observable, Subscription } from 'rxjs';
import type { ReflectorHealth } from '../reflector-health.js';
import type { WaitForSyncOptions } from '../reflector-options.js';

/**
 * Resolves `true` once `health$` reports synced, `false` on timeout, abort or completion (a
 * stopped reflector); rejects with the error met before syncing when `rejectOn` accepts it.
 */
export function waitForHealth(health$: Observable<ReflectorHealth>, options: WaitForSyncOptions): Promise<boolean> {
  const { signal, timeoutMs, rejectOn } = options;
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve, reject) => {
    let done = false;
    let subscription: Subscription | undefined;
    let timeout: NodeJS.Timeout | undefined;
    const finish = (synced: boolean | Error): void => {
      if (done) return;
      done = true;
      if (timeout !== undefined) clearTimeout(timeout);
      signal?.removeEventListener('abort', onAbort);
      subscription?.unsubscribe();
      if (synced instanceof Error) reject(synced);
      else resolve(synced);
    };
    const onAbort = (): void => finish(false);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (timeoutMs !== undefined) timeout = setTimeout(() => finish(false), timeoutMs);
    // health$ replays synchronously (and completes at once if stopped), hence the `done` flag.
    subscription = health$.subscribe({
      next: (h) => {
        if (h.synced) finish(true);
        else if (rejectOn !== undefined && h.lastError !== undefined && rejectOn(h.lastError.error)) finish(h.lastError.error);
      },
      complete: () => finish(false),
    });
    if (done) subscription.unsubscribe();
  });
}

/** Waits `ms`, or less when `signal` aborts (the reflector's stop must not wait for a backoff). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(handle);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const handle = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
