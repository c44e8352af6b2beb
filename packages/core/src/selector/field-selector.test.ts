import { expect } from 'chai';
import fc from 'fast-check';
import { InvalidSelectorError } from '../index.js';
import { FieldSelector } from '../internal.js';

describe('FieldSelector', () => {
  const fields: Record<string, string> = { 'metadata.name': 'web', 'status.phase': 'Running' };
  const get = (f: string): string | undefined => fields[f];

  it('parses =, == and != joined by commas', () => {
    const s = FieldSelector.parse('metadata.name==web,status.phase!=Pending');
    expect(s.requirements).to.deep.equal([
      { field: 'metadata.name', operator: '=', value: 'web' },
      { field: 'status.phase', operator: '!=', value: 'Pending' },
    ]);
    expect(s.matches(get)).to.equal(true);
    expect(FieldSelector.parse('status.phase=Pending').matches(get)).to.equal(false);
  });

  it('reads an absent field as the empty string', () => {
    expect(FieldSelector.parse('spec.nodeName=').matches(get)).to.equal(true);
    expect(FieldSelector.parse('spec.nodeName!=').matches(get)).to.equal(false);
  });

  it('unescapes backslash, comma and equals in values', () => {
    const s = FieldSelector.parse('a=x\\,y\\=z\\\\');
    expect(s.requirements[0]!.value).to.equal('x,y=z\\');
    expect(s.toString()).to.equal('a=x\\,y\\=z\\\\');
  });

  it('rejects terms without an operator and bad escapes', () => {
    for (const bad of ['metadata.name', 'a=b\\x', 'a=b=c']) {
      expect(() => FieldSelector.parse(bad), bad).to.throw(InvalidSelectorError);
    }
    expect(() => FieldSelector.parse('name')).to.throw("invalid selector: 'name'; can't understand 'name'");
  });

  it('is empty for the empty string', () => {
    expect(FieldSelector.parse('').isEmpty()).to.equal(true);
    expect(FieldSelector.everything().matches(() => undefined)).to.equal(true);
  });

  const field = fc.stringMatching(/^[a-z]{1,6}(\.[a-z]{1,6}){0,2}$/);
  const requirement = fc.record({
    field,
    operator: fc.constantFrom('=' as const, '!=' as const),
    value: fc.string({ maxLength: 8 }),
  });

  it('round-trips any values through toString and parse', () => {
    fc.assert(
      fc.property(fc.array(requirement, { maxLength: 4 }), (reqs) => {
        const text = reqs.map((r) => `${r.field}${r.operator}${FieldSelector.escapeValue(r.value)}`).join(',');
        const s = FieldSelector.parse(text);
        expect(s.requirements.length).to.equal(reqs.length);
        expect(FieldSelector.parse(s.toString()).requirements).to.deep.equal(s.requirements);
      }),
    );
  });

  it('matches exactly when each requirement holds', () => {
    fc.assert(
      fc.property(fc.array(requirement, { maxLength: 4 }), fc.dictionary(field, fc.string({ maxLength: 3 })), (reqs, obj) => {
        const text = reqs.map((r) => `${r.field}${r.operator}${FieldSelector.escapeValue(r.value)}`).join(',');
        const expected = reqs.every((r) => ((obj[r.field] ?? '') === r.value) === (r.operator === '='));
        expect(FieldSelector.parse(text).matches((f) => obj[f])).to.equal(expected);
      }),
    );
  });
});
