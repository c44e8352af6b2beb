import { expect } from 'chai';
import { validateCustomObject } from '../index.js';
import { pruneCustomObject } from '../internal.js';

describe('pruneCustomObject and validateCustomObject', () => {
  const schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        required: ['size'],
        properties: {
          size: { type: 'integer', minimum: 1 },
          mode: { type: 'string', enum: ['a', 'b'] },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          items: { type: 'array', items: { type: 'object', properties: { n: { type: 'string' } } } },
        },
      },
    },
  };

  it('prunes undeclared fields but keeps maps, preserved subtrees and apiVersion/kind/metadata', () => {
    const obj = {
      apiVersion: 'x/v1',
      kind: 'W',
      metadata: { name: 'w' },
      extra: 1,
      spec: { size: 2, junk: true, labels: { a: 'b' }, free: { any: { thing: 1 } }, items: [{ n: 'x', drop: 1 }] },
    };
    pruneCustomObject(schema, obj);
    expect(obj).to.deep.equal({
      apiVersion: 'x/v1',
      kind: 'W',
      metadata: { name: 'w' },
      spec: { size: 2, labels: { a: 'b' }, free: { any: { thing: 1 } }, items: [{ n: 'x' }] },
    });
  });

  it('reports type, enum, bound and required violations with their field paths', () => {
    const causes = validateCustomObject(schema, { spec: { size: 0, mode: 'c', items: [{ n: 5 }] } });
    expect(causes.map((c) => c.field)).to.have.members(['spec.size', 'spec.mode', 'spec.items[0].n']);
    const missing = validateCustomObject(schema, { spec: {} });
    expect(missing).to.deep.equal([
      { reason: 'FieldValueRequired', field: 'spec.size', message: 'Required value', summary: 'is required' },
    ]);
  });
});
