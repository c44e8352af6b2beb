import { expect } from 'chai';
import type { FilterContext, FilterError as FilterErrorT, KubernetesObject, ObjectMeta, ResourceEvent } from '../index.js';
import {
  ABSENT,
  PRESENT,
  FilterError,
  InvalidFilterError,
  all_,
  and,
  any_,
  evaluate,
  generationChanged,
  kopfFilter,
  none_,
  not,
  not_,
  or,
} from '../index.js';

interface KopfExample extends KubernetesObject {
  spec?: { field?: unknown; items?: unknown[]; other?: string };
  status?: { phase?: string };
}

let seq = 0;
const ex = (spec?: KopfExample['spec'], meta: Partial<ObjectMeta> = {}): KopfExample => ({
  apiVersion: 'kopf.dev/v1',
  kind: 'KopfExample',
  metadata: { name: `kopf-example-${++seq}`, namespace: 'default', ...meta },
  ...(spec === undefined ? {} : { spec }),
});
const created = (o: KopfExample): ResourceEvent<KopfExample> => ({ type: 'create', object: o });
const updated = (oldObject: KopfExample, object: KopfExample): ResourceEvent<KopfExample> => ({ type: 'update', oldObject, object });
const deleted = (o: KopfExample): ResourceEvent<KopfExample> => ({ type: 'delete', object: o, deleteStateUnknown: false });
const generic = (o: KopfExample): ResourceEvent<KopfExample> => ({ type: 'generic', object: o });

describe('kopfFilter', () => {
  describe('metadata filters (labels, annotations)', () => {
    it('matches a label and an annotation with a specific value', () => {
      // @kopf.on.create(labels={'some-label': 'somevalue'}, annotations={'some-annotation': 'somevalue'})
      const f = kopfFilter<KopfExample>({ labels: { 'some-label': 'somevalue' }, annotations: { 'some-annotation': 'somevalue' } });
      const both = { labels: { 'some-label': 'somevalue' }, annotations: { 'some-annotation': 'somevalue' } };
      expect(evaluate(f, created(ex({}, both)))).to.equal(true);
      expect(evaluate(f, created(ex({}, { ...both, labels: { 'some-label': 'other' } })))).to.equal(false);
      expect(evaluate(f, created(ex({}, { labels: both.labels })))).to.equal(false); // annotation missing
      expect(evaluate(f, created(ex({}, { annotations: both.annotations })))).to.equal(false);
    });

    it('matches a label and an annotation present with any value', () => {
      // @kopf.on.create(labels={'some-label': kopf.PRESENT}, annotations={'some-annotation': kopf.PRESENT})
      const f = kopfFilter<KopfExample>({ labels: { 'some-label': PRESENT }, annotations: { 'some-annotation': PRESENT } });
      expect(evaluate(f, created(ex({}, { labels: { 'some-label': 'x' }, annotations: { 'some-annotation': 'y' } })))).to.equal(true);
      expect(evaluate(f, created(ex({}, { labels: { 'some-label': 'x' } })))).to.equal(false);
      expect(evaluate(f, created(ex({})))).to.equal(false);
    });

    it('matches a label and an annotation that are absent', () => {
      // @kopf.on.create(labels={'some-label': kopf.ABSENT}, annotations={'some-annotation': kopf.ABSENT})
      const f = kopfFilter<KopfExample>({ labels: { 'some-label': ABSENT }, annotations: { 'some-annotation': ABSENT } });
      expect(evaluate(f, created(ex({})))).to.equal(true);
      expect(evaluate(f, created(ex({}, { labels: { other: 'x' }, annotations: {} })))).to.equal(true);
      expect(evaluate(f, created(ex({}, { labels: { 'some-label': 'x' } })))).to.equal(false);
      expect(evaluate(f, created(ex({}, { annotations: { 'some-annotation': 'y' } })))).to.equal(false);
    });

    it('treats an empty string as a present value', () => {
      const meta = { labels: { 'some-label': '' }, annotations: { 'some-annotation': '' } };
      expect(
        evaluate(kopfFilter({ labels: { 'some-label': PRESENT }, annotations: { 'some-annotation': PRESENT } }), created(ex({}, meta))),
      ).to.equal(true);
      expect(evaluate(kopfFilter({ labels: { 'some-label': ABSENT } }), created(ex({}, meta)))).to.equal(false);
      expect(evaluate(kopfFilter({ labels: { 'some-label': '' } }), created(ex({}, meta)))).to.equal(true);
      expect(evaluate(kopfFilter({ labels: { 'some-label': '' } }), created(ex({})))).to.equal(false);
    });

    it('checks labels of the new object on updates', () => {
      const f = kopfFilter<KopfExample>({ labels: { app: 'web' } });
      expect(evaluate(f, updated(ex({}, { labels: { app: 'db' } }), ex({}, { labels: { app: 'web' } })))).to.equal(true);
      expect(evaluate(f, updated(ex({}, { labels: { app: 'web' } }), ex({}, { labels: { app: 'db' } })))).to.equal(false);
    });
  });

  describe('field filters', () => {
    it('matches a field with a specific value', () => {
      // @kopf.on.create(field='spec.field', value='world')
      const f = kopfFilter<KopfExample>({ field: 'spec.field', value: 'world' });
      expect(evaluate(f, created(ex({ field: 'world' })))).to.equal(true);
      expect(evaluate(f, created(ex({ field: 'hello' })))).to.equal(false);
      expect(evaluate(f, created(ex({})))).to.equal(false);
      expect(evaluate(f, created(ex()))).to.equal(false);
    });

    it('matches a field present with any value, null included', () => {
      // @kopf.on.create(field='spec.field', value=kopf.PRESENT)
      const f = kopfFilter<KopfExample>({ field: 'spec.field', value: PRESENT });
      expect(evaluate(f, created(ex({ field: 'x' })))).to.equal(true);
      expect(evaluate(f, created(ex({ field: null })))).to.equal(true);
      expect(evaluate(f, created(ex({ field: '' })))).to.equal(true);
      expect(evaluate(f, created(ex({})))).to.equal(false);
    });

    it('matches a field that is absent', () => {
      // @kopf.on.create(field='spec.no-field', value=kopf.ABSENT)
      const f = kopfFilter<KopfExample>({ field: 'spec.no-field', value: ABSENT });
      expect(evaluate(f, created(ex({ field: 'x' })))).to.equal(true);
      expect(evaluate(f, created(ex()))).to.equal(true);
      expect(evaluate(f, created({ ...ex(), spec: { 'no-field': 1 } } as KopfExample))).to.equal(false);
    });

    it('treats field alone as value PRESENT on non-update events', () => {
      // @kopf.on.create(field='spec.field')
      const f = kopfFilter<KopfExample>({ field: 'spec.field' });
      expect(evaluate(f, created(ex({ field: 0 })))).to.equal(true);
      expect(evaluate(f, created(ex({ other: 'x' })))).to.equal(false);
      expect(evaluate(f, deleted(ex({ field: 'x' })))).to.equal(true);
      expect(evaluate(f, deleted(ex({})))).to.equal(false);
      expect(evaluate(f, generic(ex({ field: 'x' })))).to.equal(true);
      expect(evaluate(f, generic(ex({})))).to.equal(false);
    });

    it('on updates, passes field alone only when the field is affected: changed, added or removed', () => {
      // @kopf.on.update(field='spec.field')
      const f = kopfFilter<KopfExample>({ field: 'spec.field' });
      expect(evaluate(f, updated(ex({ field: 'a' }), ex({ field: 'b' })))).to.equal(true);
      expect(evaluate(f, updated(ex({}), ex({ field: 'b' })))).to.equal(true);
      expect(evaluate(f, updated(ex({ field: 'a' }), ex({})))).to.equal(true);
      expect(evaluate(f, updated(ex({ field: 'a', other: '1' }), ex({ field: 'a', other: '2' })))).to.equal(false);
      expect(evaluate(f, updated(ex({}), ex({ other: '2' })))).to.equal(false);
    });

    it('compares structured field values deeply, ignoring key order', () => {
      const f = kopfFilter<KopfExample>({ field: 'spec.field' });
      expect(evaluate(f, updated(ex({ field: { a: 1, b: [1, 2] } }), ex({ field: { b: [1, 2], a: 1 } })))).to.equal(false);
      expect(evaluate(f, updated(ex({ field: { a: 1, b: [1, 2] } }), ex({ field: { a: 1, b: [2, 1] } })))).to.equal(true);
      expect(evaluate(kopfFilter<KopfExample>({ field: 'spec.field', value: { a: 1 } }), created(ex({ field: { a: 1 } })))).to.equal(true);
    });

    it('reacts to several fields with one handler through or()', () => {
      // @kopf.on.update(field='spec.field', param='fld') + @kopf.on.update(field='spec.items', param='itm')
      const f = or(kopfFilter<KopfExample>({ field: 'spec.field' }), kopfFilter<KopfExample>({ field: 'spec.items' }));
      expect(evaluate(f, updated(ex({ field: 'a', items: [] }), ex({ field: 'a', items: ['x'] })))).to.equal(true);
      expect(evaluate(f, updated(ex({ field: 'a', items: [] }), ex({ field: 'b', items: [] })))).to.equal(true);
      expect(evaluate(f, updated(ex({ field: 'a', items: [] }), ex({ field: 'a', items: [], other: 'z' })))).to.equal(false);
    });

    it('on updates, lets value match either the old or the new value', () => {
      const f = kopfFilter<KopfExample>({ field: 'spec.field', value: 'world' });
      expect(evaluate(f, updated(ex({ field: 'hello' }), ex({ field: 'world' })))).to.equal(true); // criterion just satisfied
      expect(evaluate(f, updated(ex({ field: 'world' }), ex({ field: 'hello' })))).to.equal(true); // criterion just lost
      expect(evaluate(f, updated(ex({}), ex({ field: 'world' })))).to.equal(true);
      expect(evaluate(f, updated(ex({ field: 'world' }), ex({})))).to.equal(true);
      expect(evaluate(f, updated(ex({ field: 'a' }), ex({ field: 'b' })))).to.equal(false);
    });

    it('on updates, ignores a field that satisfies value but is not affected', () => {
      const f = kopfFilter<KopfExample>({ field: 'spec.field', value: 'world' });
      expect(evaluate(f, updated(ex({ field: 'world', other: '1' }), ex({ field: 'world', other: '2' })))).to.equal(false);
    });

    it('reacts to unrelated changes while the field satisfies the criterion with when', () => {
      const f = kopfFilter<KopfExample>({ when: ({ spec }) => spec?.field === 'world' });
      expect(evaluate(f, updated(ex({ field: 'world', other: '1' }), ex({ field: 'world', other: '2' })))).to.equal(true);
      expect(evaluate(f, updated(ex({ field: 'x', other: '1' }), ex({ field: 'x', other: '2' })))).to.equal(false);
    });

    it('applies ABSENT and PRESENT values to either side of an update', () => {
      const absent = kopfFilter<KopfExample>({ field: 'spec.field', value: ABSENT });
      expect(evaluate(absent, updated(ex({}), ex({ field: 'x' })))).to.equal(true);
      expect(evaluate(absent, updated(ex({ field: 'x' }), ex({})))).to.equal(true);
      expect(evaluate(absent, updated(ex({ field: 'x' }), ex({ field: 'y' })))).to.equal(false);
    });

    it('resolves array paths for keys that contain dots', () => {
      const f = kopfFilter<KopfExample>({ field: ['metadata', 'annotations', 'example.com/mode'], value: 'fast' });
      expect(evaluate(f, created(ex({}, { annotations: { 'example.com/mode': 'fast' } })))).to.equal(true);
      expect(evaluate(f, created(ex({}, { annotations: { example: 'x' } })))).to.equal(false);
    });

    it('does not index into arrays or read inherited properties', () => {
      expect(evaluate(kopfFilter<KopfExample>({ field: 'spec.items.0' }), created(ex({ items: ['a'] })))).to.equal(false);
      expect(evaluate(kopfFilter<KopfExample>({ field: 'spec.constructor' }), created(ex({})))).to.equal(false);
    });
  });

  describe('change filters (old, new)', () => {
    it('matches a field edited from one value to another', () => {
      // @kopf.on.update(field='spec.field', old='x', new='y')
      const f = kopfFilter<KopfExample>({ field: 'spec.field', old: 'x', new: 'y' });
      expect(evaluate(f, updated(ex({ field: 'x' }), ex({ field: 'y' })))).to.equal(true);
      expect(evaluate(f, updated(ex({ field: 'y' }), ex({ field: 'x' })))).to.equal(false);
      expect(evaluate(f, updated(ex({ field: 'z' }), ex({ field: 'y' })))).to.equal(false);
      expect(evaluate(f, updated(ex({}), ex({ field: 'y' })))).to.equal(false);
    });

    it('matches a field being added (old ABSENT, new PRESENT)', () => {
      const f = kopfFilter<KopfExample>({ field: 'spec.field', old: ABSENT, new: PRESENT });
      expect(evaluate(f, updated(ex({}), ex({ field: 'x' })))).to.equal(true);
      expect(evaluate(f, updated(ex(), ex({ field: null })))).to.equal(true);
      expect(evaluate(f, updated(ex({ field: 'w' }), ex({ field: 'x' })))).to.equal(false);
      expect(evaluate(f, updated(ex({ field: 'x' }), ex({})))).to.equal(false);
    });

    it('matches a field being removed (old PRESENT, new ABSENT)', () => {
      const f = kopfFilter<KopfExample>({ field: 'spec.field', old: PRESENT, new: ABSENT });
      expect(evaluate(f, updated(ex({ field: 'x' }), ex({})))).to.equal(true);
      expect(evaluate(f, updated(ex({}), ex({ field: 'x' })))).to.equal(false);
      expect(evaluate(f, updated(ex({ field: 'x' }), ex({ field: 'y' })))).to.equal(false);
    });

    it('with new only, matches reaching a value by edit or by addition, regardless of the old value', () => {
      // @kopf.on.update(field='spec.field', new='world')
      const f = kopfFilter<KopfExample>({ field: 'spec.field', new: 'world' });
      expect(evaluate(f, updated(ex({ field: 'hello' }), ex({ field: 'world' })))).to.equal(true);
      expect(evaluate(f, updated(ex({}), ex({ field: 'world' })))).to.equal(true);
      expect(evaluate(f, updated(ex({ field: 'world' }), ex({ field: 'hello' })))).to.equal(false);
    });

    it('with old only, matches losing a value by edit or by removal', () => {
      // @kopf.on.update(field='spec.field', old='world')
      const f = kopfFilter<KopfExample>({ field: 'spec.field', old: 'world' });
      expect(evaluate(f, updated(ex({ field: 'world' }), ex({ field: 'hello' })))).to.equal(true);
      expect(evaluate(f, updated(ex({ field: 'world' }), ex({})))).to.equal(true);
      expect(evaluate(f, updated(ex({ field: 'hello' }), ex({ field: 'world' })))).to.equal(false);
    });

    it('is not invoked when the field keeps its value', () => {
      const f = kopfFilter<KopfExample>({ field: 'spec.field', new: 'world' });
      expect(evaluate(f, updated(ex({ field: 'world', other: '1' }), ex({ field: 'world', other: '2' })))).to.equal(false);
      const g = kopfFilter<KopfExample>({ field: 'spec.field', old: PRESENT, new: PRESENT });
      expect(evaluate(g, updated(ex({ field: 'a' }), ex({ field: 'a', other: 'x' })))).to.equal(false);
      expect(evaluate(g, updated(ex({ field: 'a' }), ex({ field: 'b' })))).to.equal(true);
    });

    it('views create as absent-to-object, delete as object-to-absent, generic as object-to-itself', () => {
      const added = kopfFilter<KopfExample>({ field: 'spec.field', old: ABSENT, new: PRESENT });
      expect(evaluate(added, created(ex({ field: 'x' })))).to.equal(true);
      expect(evaluate(added, created(ex({})))).to.equal(false);
      expect(evaluate(added, deleted(ex({ field: 'x' })))).to.equal(false);
      const lost = kopfFilter<KopfExample>({ field: 'spec.field', old: 'world' });
      expect(evaluate(lost, deleted(ex({ field: 'world' })))).to.equal(true);
      expect(evaluate(lost, created(ex({ field: 'world' })))).to.equal(false);
      expect(evaluate(lost, generic(ex({ field: 'world' })))).to.equal(true);
    });
  });

  describe('value callbacks', () => {
    // def check_value(value, spec, **_): return value == 'some-value' and spec.get('field') is not None
    const checkValue = (value: string | undefined, { spec }: FilterContext<KopfExample>) => value === 'some-value' && spec?.field != null;

    it('receives the label or annotation value and the context', () => {
      const f = kopfFilter<KopfExample>({ labels: { 'some-label': checkValue }, annotations: { 'some-annotation': checkValue } });
      const meta = { labels: { 'some-label': 'some-value' }, annotations: { 'some-annotation': 'some-value' } };
      expect(evaluate(f, created(ex({ field: 'x' }, meta)))).to.equal(true);
      expect(evaluate(f, created(ex({}, meta)))).to.equal(false);
      expect(evaluate(f, created(ex({ field: 'x' }, { ...meta, labels: { 'some-label': 'nope' } })))).to.equal(false);
    });

    it('receives undefined for an absent key', () => {
      const seen: unknown[] = [];
      const f = kopfFilter<KopfExample>({ labels: { missing: (v) => (seen.push(v), v === undefined) } });
      expect(evaluate(f, created(ex({})))).to.equal(true);
      expect(seen).to.deep.equal([undefined]);
    });

    it('checks field values on either side of an update, the new one first', () => {
      const calls: unknown[] = [];
      const f = kopfFilter<KopfExample>({ field: 'spec.field', value: (v) => (calls.push(v), v === 'old') });
      expect(evaluate(f, updated(ex({ field: 'old' }), ex({ field: 'new' })))).to.equal(true);
      expect(calls).to.deep.equal(['new', 'old']);
      calls.length = 0;
      expect(evaluate(f, updated(ex({ field: 'x' }), ex({ field: 'old' })))).to.equal(true);
      expect(calls).to.deep.equal(['old']); // "new" satisfied: "old" not asked
    });

    it('gives old and new field values in the context', () => {
      let ctx: FilterContext<KopfExample> | undefined;
      const f = kopfFilter<KopfExample>({ field: 'spec.field', new: (_v, c) => ((ctx = c), true) });
      evaluate(f, updated(ex({}), ex({ field: 'n' })));
      expect(ctx!.old).to.equal(undefined);
      expect(ctx!.new).to.equal('n');
      expect(ctx!.type).to.equal('update');
      expect(ctx!.oldObject?.spec).to.deep.equal({});
    });
  });

  describe('callback filters (when)', () => {
    // def is_good_enough(spec, **_): return spec.get('field') in spec.get('items', [])
    const isGoodEnough = ({ spec }: FilterContext<KopfExample>) => (spec?.items ?? []).includes(spec?.field);

    it('passes when the whole-event callback returns true', () => {
      const f = kopfFilter<KopfExample>({ when: isGoodEnough });
      expect(evaluate(f, created(ex({ field: 'b', items: ['a', 'b'] })))).to.equal(true);
      expect(evaluate(f, created(ex({ field: 'c', items: ['a', 'b'] })))).to.equal(false);
      expect(evaluate(f, created(ex({ field: 'c' })))).to.equal(false);
    });

    it('accepts an inline arrow function like the lambda form', () => {
      const f = kopfFilter<KopfExample>({ when: ({ spec }) => (spec?.items ?? []).includes(spec?.field) });
      expect(evaluate(f, created(ex({ field: 'a', items: ['a'] })))).to.equal(true);
      expect(evaluate(f, created(ex({ field: 'a', items: [] })))).to.equal(false);
    });

    it('is evaluated last, only when every other criterion passed', () => {
      let calls = 0;
      const f = kopfFilter<KopfExample>({ labels: { app: 'web' }, when: () => (calls++, true) });
      expect(evaluate(f, created(ex({}, { labels: { app: 'db' } })))).to.equal(false);
      expect(calls).to.equal(0);
      expect(evaluate(f, created(ex({}, { labels: { app: 'web' } })))).to.equal(true);
      expect(calls).to.equal(1);
    });

    it('sees typed name, namespace, labels, meta, spec and status accessors', () => {
      let got: unknown[] = [];
      const f = kopfFilter<KopfExample>({
        when: (c) => (
          (got = [c.name, c.namespace, c.labels, c.annotations, c.meta.uid, c.spec?.field, c.status?.phase, c.body.kind]),
          true
        ),
      });
      evaluate(f, created({ ...ex({ field: 'f' }, { name: 'n', labels: { a: 'b' }, uid: 'u' }), status: { phase: 'Ready' } }));
      expect(got).to.deep.equal(['n', 'default', { a: 'b' }, {}, 'u', 'f', 'Ready', 'KopfExample']);
    });

    it('gives the old and new objects as old/new without a field', () => {
      let c: FilterContext<KopfExample> | undefined;
      const o = ex({ field: 1 });
      const n = ex({ field: 2 });
      evaluate(kopfFilter<KopfExample>({ when: (ctx) => ((c = ctx), true) }), updated(o, n));
      expect(c!.old).to.equal(o);
      expect(c!.new).to.equal(n);
      expect(c!.body).to.equal(n);
    });
  });

  describe('callback helpers (all_, any_, not_, none_)', () => {
    // def whole_fn1(name, **_): return name.startswith('kopf-')
    // def whole_fn2(spec, **_): return spec.get('field') == 'value'
    // def value_fn1(value, **_): return value.startswith('some')
    // def value_fn2(value, **_): return value.endswith('label')
    const wholeFn1 = ({ name }: FilterContext<KopfExample>) => name?.startsWith('kopf-') === true;
    const wholeFn2 = ({ spec }: FilterContext<KopfExample>) => spec?.field === 'value';
    const valueFn1 = (value: string | undefined) => value?.startsWith('some') === true;
    const valueFn2 = (value: string | undefined) => value?.endsWith('label') === true;
    const obj = (name: string, field: string, label: string) => ex({ field }, { name, labels: { somelabel: label } });

    it('all_: every callback must pass', () => {
      const f = kopfFilter<KopfExample>({ when: all_([wholeFn1, wholeFn2]), labels: { somelabel: all_([valueFn1, valueFn2]) } });
      expect(evaluate(f, created(obj('kopf-a', 'value', 'some-label')))).to.equal(true);
      expect(evaluate(f, created(obj('other', 'value', 'some-label')))).to.equal(false);
      expect(evaluate(f, created(obj('kopf-a', 'nope', 'some-label')))).to.equal(false);
      expect(evaluate(f, created(obj('kopf-a', 'value', 'some-thing')))).to.equal(false);
    });

    it('any_: at least one callback must pass', () => {
      const f = kopfFilter<KopfExample>({ when: any_([wholeFn1, wholeFn2]), labels: { somelabel: any_([valueFn1, valueFn2]) } });
      expect(evaluate(f, created(obj('other', 'value', 'the-label')))).to.equal(true);
      expect(evaluate(f, created(obj('kopf-a', 'nope', 'some-thing')))).to.equal(true);
      expect(evaluate(f, created(obj('other', 'nope', 'some-label')))).to.equal(false);
      expect(evaluate(f, created(obj('kopf-a', 'value', 'nothing')))).to.equal(false);
    });

    it('not_: the callback must return false', () => {
      const f = kopfFilter<KopfExample>({ when: not_(wholeFn1), labels: { somelabel: not_(valueFn1) } });
      expect(evaluate(f, created(obj('other', 'x', 'the-label')))).to.equal(true);
      expect(evaluate(f, created(obj('kopf-a', 'x', 'the-label')))).to.equal(false);
      expect(evaluate(f, created(obj('other', 'x', 'some-label')))).to.equal(false);
    });

    it('none_: every callback must return false', () => {
      const f = kopfFilter<KopfExample>({ when: none_([wholeFn1, wholeFn2]), labels: { somelabel: none_([valueFn1, valueFn2]) } });
      expect(evaluate(f, created(obj('other', 'nope', 'nothing')))).to.equal(true);
      expect(evaluate(f, created(obj('kopf-a', 'nope', 'nothing')))).to.equal(false);
      expect(evaluate(f, created(obj('other', 'nope', 'the-label')))).to.equal(false);
    });

    it('follows Python for empty lists: any_ false, all_ and none_ true', () => {
      expect(any_([])()).to.equal(false);
      expect(all_([])()).to.equal(true);
      expect(none_([])()).to.equal(true);
    });

    it('works for field value callbacks too', () => {
      const f = kopfFilter<KopfExample>({
        field: 'spec.field',
        value: all_([(v: unknown) => typeof v === 'string', not_((v: unknown) => v === '')]),
      });
      expect(evaluate(f, created(ex({ field: 'x' })))).to.equal(true);
      expect(evaluate(f, created(ex({ field: '' })))).to.equal(false);
      expect(evaluate(f, created(ex({ field: 3 })))).to.equal(false);
    });
  });

  describe('combined criteria and the one filter model', () => {
    it('ANDs every criterion', () => {
      const f = kopfFilter<KopfExample>({
        labels: { app: PRESENT },
        annotations: { skip: ABSENT },
        field: 'spec.field',
        value: 'on',
        when: ({ namespace }) => namespace === 'default',
      });
      const good = ex({ field: 'on' }, { labels: { app: 'x' } });
      expect(evaluate(f, created(good))).to.equal(true);
      expect(evaluate(f, created({ ...good, metadata: { ...good.metadata, namespace: 'kube-system' } }))).to.equal(false);
      expect(evaluate(f, created(ex({ field: 'on' }, { labels: { app: 'x' }, annotations: { skip: '' } })))).to.equal(false);
      expect(evaluate(f, created(ex({ field: 'off' }, { labels: { app: 'x' } })))).to.equal(false);
      expect(evaluate(f, created(ex({ field: 'on' })))).to.equal(false);
    });

    it('passes everything when empty', () => {
      const f = kopfFilter<KopfExample>({});
      for (const e of [created(ex()), updated(ex(), ex()), deleted(ex()), generic(ex())]) expect(evaluate(f, e)).to.equal(true);
    });

    it('combines with controller-runtime predicates through and/or/not', () => {
      const f = and(kopfFilter<KopfExample>({ labels: { app: 'web' } }), not(generationChanged()));
      const web = (g: number) => ex({}, { labels: { app: 'web' }, generation: g });
      expect(evaluate(f, updated(web(1), web(1)))).to.equal(true);
      expect(evaluate(f, updated(web(1), web(2)))).to.equal(false);
    });
  });

  describe('errors', () => {
    it('reports a throwing callback as a FilterError naming the option, and lets the event pass', () => {
      const errors: FilterErrorT[] = [];
      const f = kopfFilter<KopfExample>({
        name: 'mine',
        labels: {
          app: () => {
            throw new Error('bad');
          },
        },
      });
      expect(evaluate(f, created(ex({}, { labels: { app: 'x' } })), (e) => errors.push(e))).to.equal(true);
      expect(errors).to.have.length(1);
      expect(errors[0]).to.be.instanceOf(FilterError);
      expect(errors[0]!.predicate).to.equal('mine.labels.app');
      expect(errors[0]!.objectKey).to.match(/^default\/kopf-example-/);
      expect(() =>
        evaluate(
          kopfFilter<KopfExample>({
            when: () => {
              throw new Error('w');
            },
          }),
          created(ex()),
        ),
      ).to.throw(FilterError, /kopfFilter\.when/);
    });

    it('rejects a misspelled option', () => {
      expect(() => kopfFilter({ lables: { a: 'b' } } as never)).to.throw(InvalidFilterError, /lables: unknown option/);
    });

    it('rejects value together with old or new', () => {
      expect(() => kopfFilter({ field: 'spec.f', value: 'a', old: 'b' } as never))
        .to.throw(InvalidFilterError, /mutually exclusive/)
        .with.property('field', 'old');
      expect(() => kopfFilter({ field: 'spec.f', value: 'a', new: 'b' } as never))
        .to.throw(InvalidFilterError, /mutually exclusive/)
        .with.property('field', 'new');
    });

    it('rejects value, old or new without a field', () => {
      expect(() => kopfFilter({ value: 'a' } as never))
        .to.throw(InvalidFilterError)
        .with.property('field', 'value');
      expect(() => kopfFilter({ new: PRESENT } as never))
        .to.throw(InvalidFilterError)
        .with.property('field', 'new');
    });

    it('rejects criteria and paths of the wrong type', () => {
      expect(() => kopfFilter({ labels: { a: 1 } } as never))
        .to.throw(InvalidFilterError)
        .with.property('field', 'labels.a');
      expect(() => kopfFilter({ labels: ['a'] } as never))
        .to.throw(InvalidFilterError)
        .with.property('field', 'labels');
      expect(() => kopfFilter({ field: 'spec.f', value: Symbol('x') } as never))
        .to.throw(InvalidFilterError)
        .with.property('field', 'value');
      expect(() => kopfFilter({ field: 'spec.f', value: new Date() } as never))
        .to.throw(InvalidFilterError)
        .with.property('field', 'value');
      expect(() => kopfFilter({ field: 'spec..f' }))
        .to.throw(InvalidFilterError)
        .with.property('field', 'field');
      expect(() => kopfFilter({ field: '' })).to.throw(InvalidFilterError);
      expect(() => kopfFilter({ when: 'yes' } as never))
        .to.throw(InvalidFilterError)
        .with.property('field', 'when');
      expect(() => kopfFilter(null as never)).to.throw(InvalidFilterError);
    });

    it('judges objects without metadata or spec without throwing', () => {
      const f = kopfFilter<KopfExample>({ labels: { a: ABSENT }, field: 'spec.field', value: ABSENT, when: (c) => c.name === undefined });
      expect(evaluate(f, created({}))).to.equal(true);
    });
  });
});
