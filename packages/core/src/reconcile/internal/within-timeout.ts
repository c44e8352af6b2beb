import type { Clock, TimerHandle } from '../../queue/clock.js';

/**
 * Waits for `work` at most `timeoutMs` on `clock` (forever when undefined); resolves whether it
 * settled in time. The timer is cleared either way, so a stopped processor leaves none running.
 */
export async function settledWithin(clock: Clock, work: Promise<unknown>, timeoutMs: number | undefined): Promise<boolean> {
  if (timeoutMs === undefined) {
    await work;
    return true;
  }
  let timer: TimerHandle | undefined;
  const gaveUp = new Promise<'timeout'>((resolve) => (timer = clock.setTimeout(() => resolve('timeout'), timeoutMs)));
  const result = await Promise.race([work, gaveUp]);
  clock.clearTimeout(timer);
  return result !== 'timeout';
}
