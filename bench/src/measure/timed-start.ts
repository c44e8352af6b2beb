import type { ChildParams, RunResult } from '../run-result.js';
import { cpuSeconds } from './cpu-seconds.js';

/**
 * Starts a contender and times its initial sync (wall and CPU); checks it cached every listed
 * object and, for kindex, that the compiled `dist/` of the workspace packages ran.
 */
export async function timedStart(contender: { start(): Promise<void>; size(): number }, params: ChildParams): Promise<RunResult> {
  const t0 = performance.now();
  const cpu0 = cpuSeconds();
  await contender.start();
  const result: RunResult = { contender: params.contender, syncMs: performance.now() - t0, syncCpuS: cpuSeconds() - cpu0 };
  if (contender.size() !== params.objects) throw new Error(`synced ${contender.size()} objects, expected ${params.objects}`);
  // Which code ran: the compiled dist/ of the workspace packages, never their TypeScript sources.
  if (params.contender.startsWith('kindex')) result.kindexModule = import.meta.resolve('@kindex/core');
  return result;
}
