// Type tests, checked by `npx tsc -b` (not run by mocha): each `@ts-expect-error` line must fail
// to compile, or tsc reports the directive as unused. Nothing here runs.
import type { EventHandler, FilterContext, KubernetesObject, Predicate } from '../index.js';
import { ABSENT, PRESENT, all_, and, any_, enqueueForOwner, generationChanged, kopfFilter, none_, not_ } from '../index.js';

interface Job extends KubernetesObject {
  spec: { clusterName: string; replicas?: number };
  status?: { phase?: string };
}

export function typeChecks(): void {
  // Valid specs compile.
  kopfFilter<Job>({ labels: { app: 'web', tier: PRESENT, canary: ABSENT, team: (v) => v !== undefined } });
  kopfFilter<Job>({ field: 'spec.clusterName' });
  kopfFilter<Job>({ field: 'spec.clusterName', value: 'c1' });
  kopfFilter<Job>({ field: ['metadata', 'annotations', 'example.com/x'], value: PRESENT });
  kopfFilter<Job>({ field: 'spec.replicas', old: ABSENT, new: PRESENT });
  kopfFilter<Job>({ field: 'spec.replicas', new: 3 });
  kopfFilter<Job>({ field: 'spec.replicas', value: (v, ctx) => v === ctx.spec.replicas });
  kopfFilter<Job>({ when: ({ spec, status }) => spec.clusterName !== '' && status?.phase !== 'Done' });
  kopfFilter<Job>({
    when: all_([(c: FilterContext<Job>) => c.name !== undefined, (c: FilterContext<Job>) => c.spec.clusterName === 'x']),
    labels: { somelabel: any_([(v: string | undefined) => v === 'a', not_((v: string | undefined) => v === 'b')]) },
    annotations: { a: none_([(v: string | undefined) => v === 'c']) },
  });
  const p: Predicate<Job> = and(kopfFilter<Job>({ labels: { app: 'web' } }), generationChanged<Job>());
  // A predicate for any object serves a specific type.
  const q: Predicate<Job> = and(kopfFilter<Job>({ labels: { app: 'web' } }), generationChanged(), kopfFilter({}));
  const h: EventHandler<Job> = enqueueForOwner({ group: 'example.com', kind: 'Cluster' });
  void [p, q, h];

  // @ts-expect-error misspelled option
  kopfFilter<Job>({ lables: { app: 'web' } });
  // @ts-expect-error misspelled option next to a field criterion
  kopfFilter<Job>({ field: 'spec.clusterName', valeu: 'x' });
  // @ts-expect-error value is mutually exclusive with old
  kopfFilter<Job>({ field: 'spec.clusterName', value: 'a', old: 'b' });
  // @ts-expect-error value is mutually exclusive with new
  kopfFilter<Job>({ field: 'spec.clusterName', value: PRESENT, new: ABSENT });
  // @ts-expect-error value needs a field
  kopfFilter<Job>({ value: 'a' });
  // @ts-expect-error old needs a field
  kopfFilter<Job>({ old: 'a' });
  // @ts-expect-error label values are strings, markers or callbacks
  kopfFilter<Job>({ labels: { app: 1 } });
  // @ts-expect-error when must return a boolean
  kopfFilter<Job>({ when: () => 'yes' });
  // @ts-expect-error the context is typed: Job's spec has no such field
  kopfFilter<Job>({ when: ({ spec }) => spec.nope === 1 });
  // @ts-expect-error enqueueForOwner needs a kind
  enqueueForOwner({ group: 'apps' });
  // @ts-expect-error a field value is JSON, not a Date
  kopfFilter<Job>({ field: 'spec.x', value: new Date() });
}
