// KubeClient.apply and the SSA-based matcher against an API server over HTTP (embedded by
// default, kube-apiserver with KINDEX_APISERVER=real): server-defaulted fields and fields other
// managers own must not make an applied object look different.
import { expect } from 'chai';
import type { KubernetesObject } from '@kindex/core';
import { uniqueName } from '@kindex/testing';
import { InvalidApplyConfigurationError, KubeApiError, KubeClient, matchesAppliedFields } from '../index.js';
import { ownedPart } from '../internal.js';
import { useClientPerTest } from '../testing-fixtures/client-per-test.js';
import type { ResourceType } from '../index.js';

const secrets: ResourceType = { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true };
const pods: ResourceType = { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true };

interface Secret extends KubernetesObject {
  type?: string;
  stringData?: Record<string, string>;
  data?: Record<string, string>;
}

describe('KubeClient.apply and matchesAppliedFields', () => {
  const suite = useClientPerTest();
  let other: KubeClient;
  beforeEach(() => {
    other = new KubeClient(suite.server.kubeConfig, { fieldManager: 'someone-else' });
  });

  const desiredSecret = (name: string, value: string): Secret => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: suite.namespace, labels: { app: 'demo' } },
    data: { key: Buffer.from(value).toString('base64') },
  });

  it('creates by apply, and an object the server defaulted (Secret type) still matches', async () => {
    const name = uniqueName('s');
    const desired = desiredSecret(name, 'v1');
    const live = await suite.client.apply<Secret>(secrets, desired);
    expect(live.type).to.equal('Opaque');
    expect(
      (live.metadata?.managedFields as Array<{ manager: string; operation: string }>).map((e) => [e.manager, e.operation]),
    ).to.deep.equal([['kindex-test', 'Apply']]);
    // A whole-object comparison sees the defaulted type as a difference; the matcher does not.
    expect(live.type).to.not.equal(desired.type);
    expect(matchesAppliedFields(live, desired, 'kindex-test')).to.equal(true);
    expect(matchesAppliedFields(live, desiredSecret(name, 'v2'), 'kindex-test')).to.equal(false);
    expect(matchesAppliedFields(live, desired, 'nobody')).to.equal(false);
  });

  it('ignores fields other managers own, and applying again changes nothing on the server', async () => {
    const name = uniqueName('s');
    const desired = desiredSecret(name, 'v1');
    const first = await suite.client.apply<Secret>(secrets, desired);
    const touched = await other.apply<Secret>(secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: suite.namespace, labels: { team: 'x' } },
    });
    expect(touched.metadata?.labels).to.deep.equal({ app: 'demo', team: 'x' });
    expect(matchesAppliedFields(touched, desired, 'kindex-test')).to.equal(true);
    const again = await suite.client.apply<Secret>(secrets, desired);
    expect(again.metadata?.resourceVersion).to.equal(touched.metadata?.resourceVersion);
    expect(first.metadata?.resourceVersion).to.not.equal(touched.metadata?.resourceVersion);
  });

  it('a defaulted key field (container port protocol) does not break the match', async () => {
    const name = uniqueName('p');
    const desired = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: suite.namespace },
      spec: { containers: [{ name: 'web', image: 'nginx:1', ports: [{ containerPort: 80 }] }] },
    };
    const live = await suite.client.apply(pods, desired);
    const port = (live as { spec: { containers: Array<{ ports: Array<Record<string, unknown>> }> } }).spec.containers[0]!.ports[0]!;
    expect(port).to.deep.equal({ containerPort: 80, protocol: 'TCP' });
    expect(matchesAppliedFields(live, desired, 'kindex-test')).to.equal(true);
  });

  it('fails with 409 naming the other manager unless forced', async () => {
    const name = uniqueName('s');
    await other.apply<Secret>(secrets, desiredSecret(name, 'theirs'));
    const error = await suite.client.apply<Secret>(secrets, desiredSecret(name, 'mine')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(KubeApiError);
    expect((error as KubeApiError).status).to.equal(409);
    expect((error as KubeApiError).message)
      .to.contain('conflict with "someone-else"')
      .and.contain('.data.key');
    const forced = await suite.client.apply<Secret>(secrets, desiredSecret(name, 'mine'), { force: true });
    expect(forced.data).to.deep.equal({ key: Buffer.from('mine').toString('base64') });
  });

  it('refuses, before any request, an object that cannot be an apply configuration', () => {
    expect(() => suite.client.apply(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { namespace: suite.namespace } })).to.throw(
      InvalidApplyConfigurationError,
      'metadata.name is required',
    );
    expect(() =>
      suite.client.apply(secrets, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: suite.namespace } }),
    ).to.throw(InvalidApplyConfigurationError, 'kind is "ConfigMap", but the kind given is v1 Secret');
    // Left out, apiVersion and kind are filled in from the kind (kube-client-type-meta.test.ts); given, they must be its.
    expect(() => suite.client.apply(secrets, { apiVersion: 'v2', metadata: { name: 'x', namespace: suite.namespace } })).to.throw(
      InvalidApplyConfigurationError,
      'apiVersion is "v2", but the kind given is v1 Secret',
    );
    expect(() => suite.client.apply(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } })).to.throw(
      InvalidApplyConfigurationError,
      'metadata.namespace is required',
    );
  });

  it('ownedPart keeps only the fields of a FieldsV1 trie, list items by key, value and index', () => {
    const value = {
      a: 1,
      b: { c: 2, d: 3 },
      list: [
        { name: 'x', v: 1, w: 2 },
        { name: 'y', v: 3 },
      ],
      set: ['p', 'q'],
      pos: [10, 20],
    };
    const fields = {
      'f:a': {},
      'f:b': { 'f:c': {} },
      'f:list': { 'k:{"name":"y"}': { '.': {}, 'f:name': {}, 'f:v': {} } },
      'f:set': { 'v:"q"': {} },
      'f:pos': { 'i:1': {} },
    };
    expect(ownedPart(value, fields)).to.deep.equal({ a: 1, b: { c: 2 }, list: [{ name: 'y', v: 3 }], set: ['q'], pos: [20] });
  });
});
