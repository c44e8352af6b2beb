// The informer issue's property: for random sequences of create/update/delete of primaries and
// secondaries, including references that move between primaries, once the stream settles the
// reverse index equals the one recomputed from the server's objects, and every primary whose set
// of secondaries changed received an event. Real objects on the test server: Secrets are the
// primaries, ConfigMaps the secondaries, naming up to two primaries (one in an annotation, one in a
// label), so a reference can move partly: P_old - P_new must leave, P_new ∩ P_old stay.
import { expect } from 'chai';
import fc from 'fast-check';
import { CoreV1Api } from '@kubernetes/client-node';
import { ResourceID } from '@kindex/core';
import { DEFAULT_PRIMARY_NAME_KEY, InformerEventSource, KubeClient, Kinds, fromAnnotations, fromLabels } from '@kindex/informer';
import { createNamespace, eventually, useTestApiServer } from '@kindex/testing';

const SECONDARIES = ['cm0', 'cm1', 'cm2', 'cm3', 'cm4', 'cm5'];
const PRIMARIES = ['p0', 'p1', 'p2', 'p3'];
const byAnnotation = fromAnnotations();
const byLabel = fromLabels();

type Op =
  | {
      readonly type: 'put-secondary';
      readonly name: string;
      readonly annotated: string | undefined;
      readonly labelled: string | undefined;
      readonly data: string;
    }
  | { readonly type: 'delete-secondary'; readonly name: string }
  | { readonly type: 'put-primary'; readonly name: string }
  | { readonly type: 'delete-primary'; readonly name: string };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      type: fc.constant('put-secondary' as const),
      name: fc.constantFrom(...SECONDARIES),
      annotated: fc.option(fc.constantFrom(...PRIMARIES), { nil: undefined }),
      labelled: fc.option(fc.constantFrom(...PRIMARIES), { nil: undefined }),
      data: fc.constantFrom('a', 'b'),
    }),
  },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('delete-secondary' as const), name: fc.constantFrom(...SECONDARIES) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('put-primary' as const), name: fc.constantFrom(...PRIMARIES) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('delete-primary' as const), name: fc.constantFrom(...PRIMARIES) }) },
);

describe('InformerEventSource reverse index against the server (property)', function () {
  this.timeout(300_000);
  const server = useTestApiServer();

  it('equals the index recomputed from the server after random changes, and every primary whose secondaries changed got an event', async () => {
    const kubeConfig = server().kubeConfig;
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const client = new KubeClient(kubeConfig);
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(opArbitrary, { minLength: 10, maxLength: 30 }), async (ops) => {
          const ns = await createNamespace(kubeConfig);
          const source = new InformerEventSource(
            InformerEventSource.from(Kinds.ConfigMap, Kinds.Secret)
              .withName('configmaps')
              .withSecondaryToPrimaryMapper((cm) => [...byAnnotation(cm), ...byLabel(cm)])
              .withNamespaces([ns])
              .configuration(),
            client,
          );
          const triggered = new Set<string>();
          const subscription = source.triggers$.subscribe((t) => t.primaryIds.forEach((id) => triggered.add(id.key)));
          await source.start();
          try {
            // The model: which primaries each existing secondary names.
            const model = new Map<string, ReadonlySet<string>>();
            const mustTrigger = new Set<string>();
            for (const op of ops) {
              switch (op.type) {
                case 'put-secondary': {
                  const before = model.get(op.name);
                  const annotations: Record<string, string> =
                    op.annotated === undefined ? {} : { [DEFAULT_PRIMARY_NAME_KEY]: op.annotated };
                  const labels: Record<string, string> = op.labelled === undefined ? {} : { [DEFAULT_PRIMARY_NAME_KEY]: op.labelled };
                  if (before === undefined) {
                    await core.createNamespacedConfigMap({
                      namespace: ns,
                      body: { metadata: { name: op.name, annotations, labels }, data: { v: op.data } },
                    });
                  } else {
                    // A full replace, so a removed annotation is removed.
                    const current = await core.readNamespacedConfigMap({ name: op.name, namespace: ns });
                    await core.replaceNamespacedConfigMap({
                      name: op.name,
                      namespace: ns,
                      body: {
                        metadata: { name: op.name, resourceVersion: current.metadata!.resourceVersion!, annotations, labels },
                        data: { v: op.data },
                      },
                    });
                  }
                  const after = new Set([op.annotated, op.labelled].filter((p) => p !== undefined));
                  for (const p of before ?? []) if (!after.has(p)) mustTrigger.add(ResourceID.keyOf(p, ns));
                  for (const p of after) if (!before?.has(p)) mustTrigger.add(ResourceID.keyOf(p, ns));
                  model.set(op.name, after);
                  break;
                }
                case 'delete-secondary': {
                  const before = model.get(op.name);
                  if (before === undefined) break;
                  await core.deleteNamespacedConfigMap({ name: op.name, namespace: ns });
                  for (const p of before) mustTrigger.add(ResourceID.keyOf(p, ns));
                  model.delete(op.name);
                  break;
                }
                case 'put-primary':
                  if ((await client.get(Kinds.Secret, ResourceID.of(op.name, ns))) === undefined) {
                    await client.create(Kinds.Secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: op.name, namespace: ns } });
                  }
                  break;
                case 'delete-primary':
                  await client.delete(Kinds.Secret, ResourceID.of(op.name, ns));
                  break;
              }
            }

            // Settled: the cache holds exactly the server's ConfigMaps, at their resourceVersions.
            const onServer = (await core.listNamespacedConfigMap({ namespace: ns })).items;
            const versions = (objects: readonly { metadata?: { name?: string; resourceVersion?: string } }[]) =>
              objects.map((o) => `${o.metadata!.name}@${o.metadata!.resourceVersion}`).sort();
            await eventually(() => expect(versions(source.list(ns))).to.deep.equal(versions(onServer)), {
              description: 'the cache catches up',
            });

            // Recomputed from scratch, from the server's objects alone.
            const expected = new Map<string, string[]>(PRIMARIES.map((p) => [ResourceID.keyOf(p, ns), []]));
            for (const cm of onServer) {
              const named = new Set(
                [cm.metadata?.annotations?.[DEFAULT_PRIMARY_NAME_KEY], cm.metadata?.labels?.[DEFAULT_PRIMARY_NAME_KEY]].filter(
                  (p) => p !== undefined,
                ),
              );
              for (const p of named) expected.get(ResourceID.keyOf(p, ns))!.push(ResourceID.keyOf(cm.metadata!.name!, ns));
              const keys = [...source.primaryKeysOf(ResourceID.of(cm.metadata!.name!, ns))].sort();
              expect(keys, `primaries of ${cm.metadata!.name}`).to.deep.equal([...named].map((p) => ResourceID.keyOf(p, ns)).sort());
            }
            for (const [primaryKey, secondaryKeys] of expected) {
              const primary = { apiVersion: 'v1', kind: 'Secret', metadata: { name: ResourceID.parse(primaryKey).name, namespace: ns } };
              const actual = source
                .getSecondaryResources(primary)
                .map((s) => ResourceID.keyOfResource(s))
                .sort();
              expect(actual, `secondaries of ${primaryKey}`).to.deep.equal(secondaryKeys.sort());
            }
            // Deleted secondaries left nothing behind.
            for (const name of SECONDARIES.filter((n) => !model.has(n))) {
              expect([...source.primaryKeysOf(ResourceID.of(name, ns))], `primaries of deleted ${name}`).to.deep.equal([]);
            }
            const missed = [...mustTrigger].filter((k) => !triggered.has(k));
            expect(missed, 'primaries whose secondaries changed but got no event').to.deep.equal([]);
          } finally {
            subscription.unsubscribe();
            await source.stop();
          }
        }),
        { numRuns: 20, endOnFailure: true },
      );
    } finally {
      await client.registry?.stopAll();
    }
  });
});
