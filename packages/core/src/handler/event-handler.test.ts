import { expect } from 'chai';
import type { EventHandler, HandlerError as HandlerErrorT, KubernetesObject, ResourceEvent } from '../index.js';
import { HandlerError, InvalidResourceError, ResourceID } from '../index.js';
import { mapEvent } from '../internal.js';

const obj = (name: string): KubernetesObject => ({ metadata: { name, namespace: 'ns' } });
const create = (o: KubernetesObject): ResourceEvent => ({ type: 'create', object: o });
const keys = (ids: ResourceID[]) => ids.map((id) => id.key);

describe('mapEvent', () => {
  it('returns the distinct IDs in first-seen order', () => {
    const h: EventHandler = { map: () => [ResourceID.of('b', 'x'), ResourceID.of('a', 'x'), ResourceID.of('b', 'x')] };
    expect(keys(mapEvent(h, create(obj('o'))))).to.deep.equal(['x/b', 'x/a']);
  });

  it('dedupes long results too, keeping first-seen order', () => {
    const names = Array.from({ length: 40 }, (_, i) => `p${i % 25}`);
    const h: EventHandler = { map: () => names.map((n) => ResourceID.of(n, 'x')) };
    expect(keys(mapEvent(h, create(obj('o'))))).to.deep.equal(Array.from({ length: 25 }, (_, i) => `x/p${i}`));
  });

  it('accepts a custom handler written as a generator', () => {
    const h: EventHandler = {
      name: 'byLabel',
      *map(e) {
        const c = e.object.metadata?.labels?.['cluster'];
        if (c) yield ResourceID.of(c);
      },
    };
    expect(keys(mapEvent(h, create({ metadata: { name: 'j', labels: { cluster: 'c1' } } })))).to.deep.equal(['c1']);
    expect(mapEvent(h, create(obj('j')))).to.deep.equal([]);
  });

  it('reports a throwing map with the object key and handler name, keeping the IDs already produced', () => {
    const errors: HandlerErrorT[] = [];
    const h: EventHandler = {
      name: 'halfway',
      *map() {
        yield ResourceID.of('first');
        throw new Error('lookup failed');
      },
    };
    expect(keys(mapEvent(h, create(obj('o')), (e) => errors.push(e)))).to.deep.equal(['first']);
    expect(errors).to.have.length(1);
    expect(errors[0]).to.be.instanceOf(HandlerError);
    expect(errors[0]!).to.include({ handler: 'halfway', objectKey: 'ns/o', eventType: 'create', field: undefined });
    expect((errors[0]!.cause as Error).message).to.equal('lookup failed');
  });

  it('throws the first error when no listener is given', () => {
    const h: EventHandler = {
      map: () => {
        throw new Error('nope');
      },
    };
    expect(() => mapEvent(h, create(obj('o')))).to.throw(HandlerError, /anonymous.*ns\/o.*nope/);
    const reporting: EventHandler = { map: (_e, report) => (report(new Error('soft')), [ResourceID.of('x')]) };
    expect(() => mapEvent(reporting, create(obj('o')))).to.throw(HandlerError, /soft/);
  });

  it('carries the field of a reported InvalidResourceError and the object it was reported for', () => {
    const errors: HandlerErrorT[] = [];
    const h: EventHandler = {
      map: (_e, report) => {
        report(new InvalidResourceError('ns/other', 'spec.clusterName', 'missing'), obj('other'));
        return [ResourceID.of('ok')];
      },
    };
    expect(keys(mapEvent(h, create(obj('o')), (e) => errors.push(e)))).to.deep.equal(['ok']);
    expect(errors[0]!.field).to.equal('spec.clusterName');
    expect(errors[0]!.objectKey).to.equal('ns/other');
  });

  it('reports values that are not ResourceIDs and keeps the others', () => {
    const errors: HandlerErrorT[] = [];
    const h = { map: () => ['ns/a', ResourceID.of('b')] } as unknown as EventHandler;
    expect(keys(mapEvent(h, create(obj('o')), (e) => errors.push(e)))).to.deep.equal(['b']);
    expect(errors[0]!.message).to.match(/not a ResourceID/);
  });
});
