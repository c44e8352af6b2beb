import { expect } from 'chai';
import fc from 'fast-check';
import { InvalidSelectorError, LabelSelector } from '../index.js';

describe('LabelSelector', () => {
  it('parses equality, set, exists and not-exists requirements and matches them', () => {
    const s = LabelSelector.parse('app=web, tier in (a, b),!canary,env!=prod,zone');
    expect(s.matches({ app: 'web', tier: 'a', zone: 'z' })).to.equal(true);
    expect(s.matches({ app: 'web', tier: 'c', zone: 'z' })).to.equal(false);
    expect(s.matches({ app: 'web', tier: 'a', zone: 'z', canary: '' })).to.equal(false);
    expect(s.matches({ app: 'web', tier: 'a', zone: 'z', env: 'prod' })).to.equal(false);
    expect(s.matches({ app: 'web', tier: 'a' })).to.equal(false);
  });

  it('treats != and notin as satisfied by an absent label', () => {
    expect(LabelSelector.parse('a!=x').matches({})).to.equal(true);
    expect(LabelSelector.parse('a notin (x)').matches(undefined)).to.equal(true);
    expect(LabelSelector.parse('a notin (x)').matches({ a: 'x' })).to.equal(false);
  });

  it('accepts == and an empty value', () => {
    expect(LabelSelector.parse('a==b').matches({ a: 'b' })).to.equal(true);
    expect(LabelSelector.parse('a=').matches({ a: '' })).to.equal(true);
    expect(LabelSelector.parse('a=').matches({})).to.equal(false);
  });

  it('compares integers with > and <', () => {
    expect(LabelSelector.parse('n>5').matches({ n: '7' })).to.equal(true);
    expect(LabelSelector.parse('n<5').matches({ n: '7' })).to.equal(false);
    expect(LabelSelector.parse('n>5').matches({ n: 'x' })).to.equal(false);
  });

  it('matches everything when empty or blank', () => {
    expect(LabelSelector.parse('').isEmpty()).to.equal(true);
    expect(LabelSelector.parse('  ').isEmpty()).to.equal(true);
    expect(LabelSelector.everything().matches(undefined)).to.equal(true);
  });

  it('prints a canonical string sorted by key', () => {
    expect(LabelSelector.parse('b in (y,x), a=1, !c').toString()).to.equal('a=1,b in (x,y),!c');
  });

  it('validates keys and values like the apiserver', () => {
    for (const bad of [
      'a=b c',
      'a in (x',
      'a in ()',
      'x,',
      '-a=b',
      'a=' + 'v'.repeat(64),
      'Bad_Prefix/a=b',
      'a/b/c',
      'a b',
      '!a=b',
      ',a',
    ]) {
      expect(() => LabelSelector.parse(bad), bad).to.throw(InvalidSelectorError);
    }
    expect(() => LabelSelector.parse('example.com/app=v_1.x')).not.to.throw();
  });

  it('carries the selector text in the error', () => {
    try {
      LabelSelector.parse('a in (x');
      expect.fail('should throw');
    } catch (e) {
      expect(e).to.be.instanceOf(InvalidSelectorError);
      expect((e as InvalidSelectorError).selector).to.equal('a in (x');
    }
  });

  it('converts a metav1.LabelSelector object', () => {
    const s = LabelSelector.fromSelector({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['a'] },
        { key: 'gone', operator: 'DoesNotExist' },
      ],
    });
    expect(s.toString()).to.equal('app=web,!gone,tier in (a)');
    expect(s.matches({ app: 'web', tier: 'a' })).to.equal(true);
    expect(LabelSelector.fromSelector({}).isEmpty()).to.equal(true);
  });

  it('names the field of a bad metav1.LabelSelector', () => {
    expect(() => LabelSelector.fromSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }))
      .to.throw(InvalidSelectorError)
      .with.property('field', 'matchExpressions[0].values');
  });

  const key = fc.stringMatching(/^([a-z]{1,5}\.[a-z]{1,3}\/)?[A-Za-z0-9]([A-Za-z0-9_.-]{0,8}[A-Za-z0-9])?$/);
  const value = fc.stringMatching(/^([A-Za-z0-9]([A-Za-z0-9_.-]{0,6}[A-Za-z0-9])?)?$/);
  const requirement = fc.oneof(
    fc.tuple(key, fc.constantFrom('=', '==', '!='), value).map(([k, op, v]) => `${k}${op}${v}`),
    fc
      .tuple(
        key,
        fc.constantFrom(' in ', ' notin '),
        fc.array(value, { minLength: 1, maxLength: 3 }).filter((vs) => vs.join(',') !== ''),
      )
      .map(([k, op, vs]) => `${k}${op}(${vs.join(',')})`),
    key,
    key.map((k) => `!${k}`),
  );

  it('round-trips every valid selector through toString and parse', () => {
    fc.assert(
      fc.property(fc.array(requirement, { maxLength: 5 }), (reqs) => {
        const s = LabelSelector.parse(reqs.join(' , '));
        const again = LabelSelector.parse(s.toString());
        expect(again.toString()).to.equal(s.toString());
        expect(again.requirements).to.deep.equal(s.requirements);
      }),
    );
  });

  it('matches a label set exactly when every requirement holds on its own', () => {
    const labels = fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.constantFrom('x', 'y', ''));
    const simple = fc.oneof(
      fc
        .tuple(fc.constantFrom('a', 'b', 'c'), fc.constantFrom('=', '!='), fc.constantFrom('x', 'y', ''))
        .map(([k, o, v]) => `${k}${o}${v}`),
      fc
        .tuple(fc.constantFrom('a', 'b', 'c'), fc.constantFrom(' in ', ' notin '), fc.subarray(['x', 'y'], { minLength: 1 }))
        .map(([k, o, v]) => `${k}${o}(${v.join(',')})`),
      fc.constantFrom('a', 'b', '!a', '!c'),
    );
    fc.assert(
      fc.property(fc.array(simple, { maxLength: 4 }), labels, (reqs, l) => {
        const all = LabelSelector.parse(reqs.join(','));
        const each = reqs.every((r) => LabelSelector.parse(r).matches(l));
        expect(all.matches(l)).to.equal(each);
      }),
    );
  });
});
