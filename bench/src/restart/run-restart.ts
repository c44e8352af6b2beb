import { KubeConfig } from '@kubernetes/client-node';
import { UpdateControl } from '@kindex/core';
import { Kinds, Operator } from '@kindex/informer';
import { NAMESPACE, SEQ_ANNOTATION } from '../fixture/config-map-fixture.js';
import { timedStart } from '../measure/timed-start.js';
import type { ChildParams, RunResult } from '../run-result.js';
import { signalStart } from '../server/start-signal.js';
import { RESTART_CONTENDERS } from './restart-contenders.js';

/**
 * One restart in this child process: an operator starts over `objects`
 * ConfigMaps (its primaries), so each is reconciled once in the initial wave; as soon as the
 * cache synced, the stream server sends `events` changes of listed objects. Records when the
 * reconcile of the last changed object started, how many unchanged ones ran before it, and when
 * the wave was over. Concurrency 10 (the default), `reconcileWorkMs` of I/O wait per reconcile
 * (a reconciler that reads or writes the API server spends about that).
 */
export async function runRestart(params: ChildParams): Promise<RunResult> {
  const queue = RESTART_CONTENDERS[params.contender];
  if (queue === undefined) throw new Error(`no restart contender ${params.contender}`);
  const workMs = params.reconcileWorkMs ?? 1;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(params.kubeconfigPath);
  const operator = new Operator({ kubeConfig });
  let changed = 0;
  let unchanged = 0;
  let unchangedBefore = 0;
  let changedAt = 0;
  let waveAt = 0;
  let signalledAt = 0;
  let wake: () => void = () => {};
  const finished = new Promise<void>((resolve) => (wake = resolve));
  const controller = operator.register(
    {
      async reconcile(primary) {
        const now = performance.now();
        if (primary.metadata?.annotations?.[SEQ_ANNOTATION] !== undefined) {
          if (++changed === params.events) {
            changedAt = now;
            unchangedBefore = unchanged;
          }
        } else unchanged++;
        if (changed + unchanged >= params.objects && changed >= params.events && waveAt === 0) {
          waveAt = now;
          wake();
        }
        if (workMs > 0) await new Promise((r) => setTimeout(r, workMs));
        return UpdateControl.noUpdate();
      },
    },
    { kind: Kinds.ConfigMap, namespaces: [NAMESPACE], generationAware: false, queue },
  );
  controller.events$.subscribe((event) => {
    if (event.type === 'problem') console.error(`kindex problem in ${event.source}:`, event.error);
  });
  const result = await timedStart({ start: () => operator.start(), size: () => controller.primaryCache.size }, params);
  // Synced: the wave has begun. The changes land while it runs.
  signalledAt = performance.now();
  await signalStart(params.kubeconfigPath);
  const timeout = setTimeout(() => {
    console.error(`restart: timed out with ${changed} of ${params.events} changed and ${unchanged} unchanged reconciled`);
    process.exit(1);
  }, 600_000);
  await finished;
  clearTimeout(timeout);
  await operator.stop({ drainTimeoutMs: 5_000 });
  result.events = params.events;
  result.changedReconciledMs = changedAt - signalledAt;
  result.unchangedBefore = unchangedBefore;
  result.waveMs = waveAt - signalledAt;
  return result;
}
