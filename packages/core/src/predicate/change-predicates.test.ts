import { expect } from 'chai';
import type { KubernetesObject, ObjectMeta, ResourceEvent } from '../index.js';
import { evaluate, generationChanged, labelsChanged, annotationsChanged, resourceVersionChanged } from '../index.js';

const o = (meta: Partial<ObjectMeta> = {}): KubernetesObject => ({ metadata: { name: 'a', namespace: 'ns', ...meta } });
const upd = (oldMeta: Partial<ObjectMeta>, newMeta: Partial<ObjectMeta>): ResourceEvent => ({
  type: 'update',
  oldObject: o(oldMeta),
  object: o(newMeta),
});
const others: ResourceEvent[] = [
  { type: 'create', object: o() },
  { type: 'delete', object: o(), deleteStateUnknown: true },
  { type: 'generic', object: o() },
];
const brokenUpdates = [
  { type: 'update', object: o({ generation: 2 }), oldObject: undefined },
  { type: 'update', object: undefined, oldObject: o({ generation: 1 }) },
] as unknown as ResourceEvent[];

describe('generationChanged', () => {
  const p = generationChanged();
  it('passes an update that changes generation', () => {
    expect(evaluate(p, upd({ generation: 1 }, { generation: 2 }))).to.equal(true);
  });
  it('drops a status-only write (same generation, new resourceVersion)', () => {
    expect(evaluate(p, upd({ generation: 3, resourceVersion: '1' }, { generation: 3, resourceVersion: '2' }))).to.equal(false);
  });
  it('treats a missing generation as 0, as controller-runtime does', () => {
    expect(evaluate(p, upd({}, {}))).to.equal(false);
    expect(evaluate(p, upd({}, { generation: 1 }))).to.equal(true);
    expect(evaluate(p, upd({ generation: 0 }, {}))).to.equal(false);
  });
  it('drops an update missing its old or new object', () => {
    for (const e of brokenUpdates) expect(evaluate(p, e)).to.equal(false);
  });
  it('passes create, delete and generic events', () => {
    for (const e of others) expect(evaluate(p, e)).to.equal(true);
  });
});

describe('labelsChanged', () => {
  const p = labelsChanged();
  it('passes an update that adds, removes or changes a label', () => {
    expect(evaluate(p, upd({ labels: { a: '1' } }, { labels: { a: '1', b: '2' } }))).to.equal(true);
    expect(evaluate(p, upd({ labels: { a: '1', b: '2' } }, { labels: { a: '1' } }))).to.equal(true);
    expect(evaluate(p, upd({ labels: { a: '1' } }, { labels: { a: '2' } }))).to.equal(true);
    expect(evaluate(p, upd({ labels: { a: '1' } }, { labels: { b: '1' } }))).to.equal(true);
    expect(evaluate(p, upd({}, { labels: { a: '' } }))).to.equal(true);
  });
  it('drops an update with equal labels in another order', () => {
    expect(evaluate(p, upd({ labels: { a: '1', b: '2' } }, { labels: { b: '2', a: '1' }, generation: 5 }))).to.equal(false);
  });
  it('treats a missing map as equal to an empty one', () => {
    expect(evaluate(p, upd({}, { labels: {} }))).to.equal(false);
  });
  it('ignores annotation changes', () => {
    expect(evaluate(p, upd({ annotations: { a: '1' } }, { annotations: { a: '2' } }))).to.equal(false);
  });
  it('drops an update missing its old or new object and passes other event types', () => {
    for (const e of brokenUpdates) expect(evaluate(p, e)).to.equal(false);
    for (const e of others) expect(evaluate(p, e)).to.equal(true);
  });
});

describe('annotationsChanged', () => {
  const p = annotationsChanged();
  it('passes an update that changes annotations and drops one that does not', () => {
    expect(evaluate(p, upd({ annotations: { a: '1' } }, { annotations: { a: '2' } }))).to.equal(true);
    expect(evaluate(p, upd({ annotations: { a: '1' } }, {}))).to.equal(true);
    expect(evaluate(p, upd({ annotations: { a: '1' } }, { annotations: { a: '1' }, labels: { x: 'y' } }))).to.equal(false);
  });
  it('drops an update missing its old or new object and passes other event types', () => {
    for (const e of brokenUpdates) expect(evaluate(p, e)).to.equal(false);
    for (const e of others) expect(evaluate(p, e)).to.equal(true);
  });
});

describe('resourceVersionChanged', () => {
  const p = resourceVersionChanged();
  it('passes a write and drops a resync of the same version', () => {
    expect(evaluate(p, upd({ resourceVersion: '1' }, { resourceVersion: '2' }))).to.equal(true);
    expect(evaluate(p, upd({ resourceVersion: '7' }, { resourceVersion: '7' }))).to.equal(false);
    expect(evaluate(p, upd({}, {}))).to.equal(false);
  });
  it('drops an update missing its old or new object and passes other event types', () => {
    for (const e of brokenUpdates) expect(evaluate(p, e)).to.equal(false);
    for (const e of others) expect(evaluate(p, e)).to.equal(true);
  });
});
