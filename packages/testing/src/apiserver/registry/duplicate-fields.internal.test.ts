import { expect } from 'chai';
import { duplicateFields } from './duplicate-fields.js';

describe('duplicateFields', () => {
  it('finds nothing in JSON without repeated keys, whatever strings contain', () => {
    expect(duplicateFields('{"a":"{\\"a\\":1,\\"a\\":2}","b":[{"a":1},{"a":2}],"c":{"a":1}}')).to.deep.equal([]);
  });

  it('names repeated keys by path, in objects nested in arrays too, in document order', () => {
    const text = '{"spec":{"size":1,"items":[{"n":"a"},{"n":"b","n":"c"}],"size":2},"kind":"X","kind":"Y"}';
    expect(duplicateFields(text)).to.deep.equal(['spec.items[1].n', 'spec.size', 'kind']);
  });

  it('compares keys after unescaping them', () => {
    expect(duplicateFields('{"data":{"a":"1","\\u0061":"2"}}')).to.deep.equal(['data.a']);
  });
});
