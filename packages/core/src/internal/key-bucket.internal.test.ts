import { expect } from 'chai';
import fc from 'fast-check';
import { bucketForEach, bucketWith, bucketWithout, type Bucket } from './key-bucket.js';

const items = (bucket: Bucket<string> | undefined): string[] => {
  const out: string[] = [];
  bucketForEach(bucket, (item) => out.push(item));
  return out;
};

describe('bucketWith', () => {
  it('grows an array bucket into a new array of exactly one more item, leaving the old one as it was', () => {
    const two = bucketWith('a', 'b') as string[];
    const three = bucketWith(two, 'c');
    expect(three).to.not.equal(two);
    expect(two).to.deep.equal(['a', 'b']);
    expect(three).to.deep.equal(['a', 'b', 'c']);
    expect(bucketWith(three, 'b')).to.equal(three); // already there: the same bucket
  });

  it('holds the same items as a Set under any sequence of adds and removes (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 40 }))), (ops) => {
        let bucket: Bucket<string> | undefined;
        const model = new Set<string>();
        for (const [add, n] of ops) {
          const item = `k${n}`;
          if (add) {
            bucket = bucketWith(bucket, item);
            model.add(item);
          } else {
            bucket = bucketWithout(bucket, item);
            model.delete(item);
          }
          expect(items(bucket).sort()).to.deep.equal([...model].sort());
        }
      }),
    );
  });
});
