// Type tests, checked by `npx tsc -b` (not run by mocha): each `@ts-expect-error` line must fail
// to compile, or tsc reports the directive as unused. Nothing here runs.
import type { FilterContext, KubernetesObject } from '../index.js';
import { all_, any_, kopfFilter, none_, not_ } from '../index.js';

interface Job extends KubernetesObject {
  spec: { clusterName: string };
}

export function combinatorTypeChecks(): void {
  const general = (c: FilterContext<KubernetesObject>) => c.name !== undefined;
  const specific = (c: FilterContext<Job>) => c.spec.clusterName === 'x';
  const structural = (c: { name?: string | undefined }) => c.name === 'x';
  // Callbacks written for different contexts combine, in any order.
  kopfFilter<Job>({ when: all_([general, specific, structural]) });
  kopfFilter<Job>({ when: any_([specific, general]) });
  kopfFilter<Job>({ when: none_([structural, specific]) });
  kopfFilter<Job>({ when: not_(general) });
  // Untyped lambdas next to a general callback take the spec's context (Job), not the general one.
  kopfFilter<Job>({ when: all_([general, (c) => c.spec.clusterName === 'x']) });
  kopfFilter<Job>({ when: any_([(c) => c.spec.clusterName === 'y', specific, not_((c) => c.name === 'z')]) });
  // Value callbacks with and without the context combine.
  const valueOnly = (v: string | undefined) => v === 'a';
  const withContext = (v: string | undefined, c: FilterContext<Job>) => v === c.spec.clusterName;
  const withGeneralContext = (v: string | undefined, c: FilterContext<KubernetesObject>) => v === c.name;
  kopfFilter<Job>({ labels: { a: any_([withContext, valueOnly, withGeneralContext]) } });
  kopfFilter<Job>({
    labels: { a: all_([not_(valueOnly), withContext]) },
    annotations: { b: none_([withGeneralContext, (v) => v === 'c']) },
  });
  // Standalone combinations keep their inferred type and serve the spec later.
  const standalone = all_([general, specific]);
  kopfFilter<Job>({ when: standalone });

  // @ts-expect-error the context is typed: Job's spec has no such field
  kopfFilter<Job>({ when: all_([general, (c) => c.spec.nope === 1]) });
  // @ts-expect-error a callback for an unrelated context does not fit
  kopfFilter<Job>({ when: any_([specific, (c: { replicas: number }) => c.replicas > 1]) });
  // @ts-expect-error callbacks return booleans
  kopfFilter<Job>({ when: all_([general, () => 'yes']) });
  // @ts-expect-error a value callback judges a string, not a number
  kopfFilter<Job>({ labels: { a: any_([valueOnly, (v: number) => v > 1]) } });
}
