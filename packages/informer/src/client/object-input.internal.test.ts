// withTypeMeta on the write path: the object itself when apiVersion and kind are the kind's (no
// copy per request), a copy with them filled in otherwise, and the caller's object left as given.
import { expect } from 'chai';
import { Kinds, resourceKind } from '../index.js';
import { withTypeMeta } from './object-input.js';

describe('withTypeMeta', () => {
  it('returns the object itself when apiVersion and kind are already the kind’s', () => {
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } };
    expect(withTypeMeta('create', Kinds.ConfigMap, configMap)).to.equal(configMap);
  });

  it('fills in what is left out on a copy, from a ResourceKind or a plain ResourceType', () => {
    const given = Object.freeze({ metadata: { name: 'a', namespace: 'ns' }, kind: '' });
    const filled = withTypeMeta('update', Kinds.Lease, given);
    expect(filled).to.deep.equal({ metadata: { name: 'a', namespace: 'ns' }, apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' });
    expect(given).to.deep.equal({ metadata: { name: 'a', namespace: 'ns' }, kind: '' });
    const plain = { group: 'example.com', version: 'v2', plural: 'sites', kind: 'Site', namespaced: false };
    expect(withTypeMeta('apply', plain, { metadata: { name: 's' } })).to.include({ apiVersion: 'example.com/v2', kind: 'Site' });
    expect(withTypeMeta('apply', resourceKind(plain), { metadata: { name: 's' } })).to.include({ apiVersion: 'example.com/v2' });
  });
});
