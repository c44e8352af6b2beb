import { expect } from 'chai';
import { InvalidResourceError } from '@kindex/core';
import type { KubernetesObject } from '@kindex/core';
import { dropManagedFields, keepAppliedFields } from '../object-transform.js';
import { TransformError } from '../reflector-error.js';
import { prepareItem, prepareObject } from './prepare-object.js';
import type { PrepareContext } from './prepare-object.js';

function context(overrides: Partial<PrepareContext<KubernetesObject>> = {}): PrepareContext<KubernetesObject> {
  return { kind: 'ConfigMap', apiVersion: 'v1', namespaced: true, transform: dropManagedFields, onTransformError: () => {}, ...overrides };
}

const good = () => ({
  metadata: { name: 'a', namespace: 'ns', resourceVersion: '7', uid: 'u', managedFields: [{ manager: 'x' }] },
  data: { k: 'v' },
});

describe('prepareObject', () => {
  it('adds kind and apiVersion first when a list item lacks them, drops managedFields and freezes deeply', () => {
    const { key, resourceVersion, object } = prepareObject(good(), context());
    expect(key).to.equal('ns/a');
    expect(resourceVersion).to.equal('7');
    expect(Object.keys(object).slice(0, 2)).to.deep.equal(['kind', 'apiVersion']);
    expect(object).to.deep.equal({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'a', namespace: 'ns', resourceVersion: '7', uid: 'u' },
      data: { k: 'v' },
    });
    expect(Object.isFrozen(object)).to.equal(true);
    expect(Object.isFrozen(object.metadata)).to.equal(true);
    expect(Object.isFrozen((object as unknown as { data: object }).data)).to.equal(true);
  });

  it('names the object and the field of bad input', () => {
    const cases: Array<[unknown, string | undefined, string]> = [
      [[1, 2], undefined, 'object'],
      [{ kind: 'ConfigMap' }, undefined, 'metadata'],
      [{ metadata: { namespace: 'ns' } }, undefined, 'metadata.name'],
      [{ metadata: { name: 'a', namespace: 'ns', resourceVersion: 7 } }, 'ns/a', 'metadata.resourceVersion'],
      [{ metadata: { name: 'a', resourceVersion: '1' } }, 'a', 'metadata.namespace'],
      [{ metadata: { name: 'a', namespace: 5, resourceVersion: '1' } }, 'a', 'metadata.namespace'],
      [{ metadata: { name: 'a', namespace: 'ns', resourceVersion: '1', uid: 3 } }, 'ns/a', 'metadata.uid'],
      [{ kind: 5, apiVersion: 'v1', metadata: { name: 'a', namespace: 'ns', resourceVersion: '1' } }, 'ns/a', 'kind'],
    ];
    for (const [raw, objectKey, field] of cases) {
      let caught: unknown;
      try {
        prepareObject(raw, context());
      } catch (error) {
        caught = error;
      }
      expect(caught, field).to.be.instanceOf(InvalidResourceError);
      expect(caught).to.include({ objectKey, field });
    }
  });

  it('keeps the object untransformed and reports when the transform throws', () => {
    const errors: TransformError[] = [];
    const { object } = prepareObject(
      good(),
      context({
        transform: () => {
          throw new Error('boom');
        },
        onTransformError: (e) => errors.push(e),
      }),
    );
    expect(object.metadata?.managedFields).to.have.length(1);
    expect(errors).to.have.length(1);
    expect(errors[0]).to.include({ objectKey: 'ns/a' });
  });
});

describe('prepareItem', () => {
  it('gives a list item the object prepareObject gives, with no wrapper, and the same errors', () => {
    const item = prepareItem(good(), context());
    expect(item).to.deep.equal(prepareObject(good(), context()).object);
    expect(Object.isFrozen(item.metadata)).to.equal(true);
    expect(() => prepareItem({ metadata: { name: 'a', namespace: 'ns', resourceVersion: '' } }, context()))
      .to.throw(InvalidResourceError)
      .that.includes({ objectKey: 'ns/a', field: 'metadata.resourceVersion' });
  });

  it('reports a throwing transform with the key the server gave, and keeps the object', () => {
    const errors: TransformError[] = [];
    const transform = (o: KubernetesObject): KubernetesObject => {
      throw new Error(`no ${o.metadata?.name}`);
    };
    const item = prepareItem(good(), context({ transform, onTransformError: (e) => errors.push(e) }));
    expect(item.metadata?.managedFields).to.have.length(1);
    expect(errors.map((e) => e.objectKey)).to.deep.equal(['ns/a']);
  });
});

describe('dropManagedFields', () => {
  it('copies a frozen object instead of failing on it', () => {
    const frozen = Object.freeze({ metadata: Object.freeze({ name: 'a', managedFields: [] }) });
    const dropped = dropManagedFields(frozen);
    expect(dropped).to.deep.equal({ metadata: { name: 'a' } });
    expect(frozen.metadata).to.have.property('managedFields');
  });
});

describe('keepAppliedFields (the default transform)', () => {
  const apply = { manager: 'op', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } };
  const update = { manager: 'kubectl', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } };
  it('keeps the Apply entries a server-side apply match reads and drops the Update ones', () => {
    const o = { metadata: { name: 'a', managedFields: [update, apply, update] } };
    expect(keepAppliedFields(o).metadata.managedFields).to.deep.equal([apply]);
  });
  it('drops managedFields nobody applied, and leaves an all-Apply list as it is', () => {
    expect(keepAppliedFields({ metadata: { name: 'a', managedFields: [update] } })).to.deep.equal({ metadata: { name: 'a' } });
    const applied = { metadata: { name: 'a', managedFields: [apply] } };
    expect(keepAppliedFields(applied)).to.equal(applied);
  });
  it('copies a frozen object instead of failing on it', () => {
    const frozen = Object.freeze({ metadata: Object.freeze({ name: 'a', managedFields: Object.freeze([update, apply]) as unknown[] }) });
    expect(keepAppliedFields(frozen)).to.deep.equal({ metadata: { name: 'a', managedFields: [apply] } });
    expect(frozen.metadata.managedFields).to.have.length(2);
  });
});
