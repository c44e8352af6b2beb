import { expect } from 'chai';
import Type from 'typebox';
import { ResourceID, setStatusCondition } from '@kindex/core';
import { createNamespace, uniqueName, useTestApiServer } from '@kindex/testing';
import { Conditions, KubeApiError, KubeClient, customResource, installCrds, type ObjectOfKind } from '../index.js';

/**
 * The conditions schema is judged by the API server: conditions written by setStatusCondition are
 * accepted, a malformed one is refused by the server and by the client-side check alike, and two
 * field managers' applies merge per condition type (the list is a map keyed by `type`).
 */
describe('Conditions', function () {
  this.timeout(120_000);
  const server = useTestApiServer({ shared: true });

  function widgets(group: string) {
    return customResource({
      group,
      kind: 'Widget',
      plural: 'widgets',
      versions: {
        v1: {
          spec: Type.Object({ size: Type.Integer({ minimum: 1 }) }),
          status: Type.Object({ conditions: Type.Optional(Conditions) }),
        },
      },
    });
  }
  let Widgets: ReturnType<typeof widgets>;
  type Widget = ObjectOfKind<typeof Widgets>;
  let namespace: string;
  let client: KubeClient;

  before(async () => {
    Widgets = widgets(`${uniqueName('cond')}.kindex.dev`);
    await installCrds(server().kubeConfig, [Widgets.crd]);
    namespace = await createNamespace(server().kubeConfig);
    client = new KubeClient(server().kubeConfig);
  });

  const widget = (name: string): Widget => ({
    apiVersion: Widgets.apiVersion,
    kind: 'Widget',
    metadata: { name, namespace },
    spec: { size: 1 },
  });

  it('describes a list keyed by type whose items require type, status, lastTransitionTime, reason and message', () => {
    const conditions = Widgets.crd.spec.versions[0]!.schema.openAPIV3Schema.properties!['status']!.properties!['conditions']!;
    expect(conditions).to.include({ type: 'array', 'x-kubernetes-list-type': 'map' });
    expect(conditions['x-kubernetes-list-map-keys']).to.deep.equal(['type']);
    expect([...(conditions.items as { required: string[] }).required].sort()).to.deep.equal([
      'lastTransitionTime',
      'message',
      'reason',
      'status',
      'type',
    ]);
  });

  it('accepts the conditions setStatusCondition writes, and reads them back', async () => {
    const created = await client.create(Widgets, widget('ready'));
    const conditions = setStatusCondition(undefined, {
      type: 'Ready',
      status: 'True',
      reason: 'Reconciled',
      message: 'all good',
      observedGeneration: created.metadata?.generation,
    });
    await client.update(Widgets, { ...created, status: { conditions } }, 'status');
    const read = await client.get(Widgets, ResourceID.of('ready', namespace));
    expect(read?.status?.conditions?.[0]).to.include({ type: 'Ready', status: 'True', reason: 'Reconciled', message: 'all good' });
  });

  it('refuses a condition with a status other than True, False or Unknown and a reason that is not CamelCase, on the server and in the client', async () => {
    const created = await client.create(Widgets, widget('bad'));
    const bad = {
      ...created,
      status: {
        conditions: [{ type: 'Ready', status: 'Yes', reason: 'not ok', message: '', lastTransitionTime: '2026-11-29T06:00:00Z' }],
      },
    } as unknown as Widget;
    const fields = Widgets.validate(bad).map((v) => v.field);
    expect(fields).to.include.members(['status.conditions[0].status', 'status.conditions[0].reason']);
    const error = await client.update(Widgets, bad, 'status').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, 'the server accepted an invalid condition').to.be.instanceOf(KubeApiError);
    expect((error as KubeApiError).status).to.equal(422);
    expect((error as KubeApiError).message).to.include('status.conditions[0].status');
    expect((error as KubeApiError).message).to.include('status.conditions[0].reason');
  });

  it("merges two field managers' applied conditions per type instead of replacing the list", async () => {
    await client.create(Widgets, widget('shared'));
    const applied = (type: string) => ({
      ...widget('shared'),
      status: { conditions: setStatusCondition(undefined, { type, status: 'True', reason: 'Applied' }) },
    });
    await client.apply(Widgets, applied('Ready'), { fieldManager: 'reconciler', subresource: 'status' });
    await client.apply(Widgets, applied('example.com/Synced'), { fieldManager: 'syncer', subresource: 'status' });
    const read = await client.get(Widgets, ResourceID.of('shared', namespace));
    expect(read?.status?.conditions?.map((c) => c.type).sort()).to.deep.equal(['Ready', 'example.com/Synced']);
  });
});
