import { expect } from 'chai';
import type { KubernetesObject } from '@kindex/core';
import { fromOwnerReferences } from '../index.js';

const owned = (name: string, owners: unknown[]): KubernetesObject =>
  ({ metadata: { name, namespace: 'shop', ownerReferences: owners } }) as KubernetesObject;
const webApp = (name: string) => ({ apiVersion: 'example.com/v1', kind: 'WebApp', name, uid: `uid-${name}` });

describe('fromOwnerReferences', () => {
  it('maps the owners of its group and kind, in the secondary namespace, a new array per call', () => {
    const toWebApp = fromOwnerReferences({ group: 'example.com', kind: 'WebApp' });
    const secondary = owned('cm', [webApp('a'), { apiVersion: 'v1', kind: 'Service', name: 's', uid: 'u' }, webApp('b')]);
    const first = [...toWebApp(secondary)];
    expect(first.map((id) => id.key)).to.deep.equal(['shop/a', 'shop/b']);
    expect(toWebApp(secondary)).to.not.equal(toWebApp(secondary));
    expect([...toWebApp(owned('orphan', []))]).to.deep.equal([]);
  });

  it('maps each secondary right when its onProblem maps another one (re-entered)', () => {
    const seen: string[][] = [];
    const toWebApp = fromOwnerReferences({
      group: 'example.com',
      kind: 'WebApp',
      onProblem: () => seen.push([...toWebApp(owned('inner', [webApp('inner-owner')]))].map((id) => id.key)),
    });
    const outer = [...toWebApp(owned('outer', [{ kind: 'WebApp' }, webApp('outer-owner')]))];
    expect(seen).to.deep.equal([['shop/inner-owner']]);
    expect(outer.map((id) => id.key)).to.deep.equal(['shop/outer-owner']);
  });
});
