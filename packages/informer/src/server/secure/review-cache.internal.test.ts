import { expect } from 'chai';
import { ReviewCache } from './review-cache.js';

describe('ReviewCache', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('keeps a result for its TTL, then reviews again', async () => {
    const cache = new ReviewCache<boolean>(10);
    let reviews = 0;
    const review = () => Promise.resolve(++reviews % 2 === 1);
    expect(await cache.get('k', review, () => 50)).to.equal(true);
    expect(cache.get('k', review, () => 50)).to.equal(true); // synchronously, from the cache
    expect(reviews).to.equal(1);
    await sleep(70);
    expect(await cache.get('k', review, () => 50)).to.equal(false);
    expect(reviews).to.equal(2);
  });

  it('shares one review among callers asking meanwhile, and caches nothing with TTL 0 or on failure', async () => {
    const cache = new ReviewCache<string>(10);
    let reviews = 0;
    let release!: (v: string) => void;
    const review = () => {
      reviews++;
      return new Promise<string>((resolve) => (release = resolve));
    };
    const both = Promise.all([cache.get('k', review, () => 0), cache.get('k', review, () => 0)]);
    release('user');
    expect(await both).to.deep.equal(['user', 'user']);
    expect(reviews).to.equal(1);
    await cache.get(
      'k',
      () => Promise.resolve('again'),
      () => 0,
    );
    const failing = () => Promise.reject(new Error('API server down'));
    await Promise.resolve(cache.get('f', failing, () => 1000)).then(
      () => expect.fail('should reject'),
      (e: Error) => expect(e.message).to.equal('API server down'),
    );
    expect(
      await cache.get(
        'f',
        () => Promise.resolve('up'),
        () => 1000,
      ),
    ).to.equal('up');
  });

  it('holds at most its bound, forgetting the oldest first', async () => {
    const cache = new ReviewCache<number>(3);
    for (let i = 0; i < 4; i++)
      await cache.get(
        `k${i}`,
        () => Promise.resolve(i),
        () => 60_000,
      );
    let reviewed = false;
    await cache.get(
      'k0',
      () => ((reviewed = true), Promise.resolve(0)),
      () => 60_000,
    );
    expect(reviewed, 'k0 was evicted').to.equal(true);
    expect(
      cache.get(
        'k3',
        () => Promise.resolve(-1),
        () => 60_000,
      ),
    ).to.equal(3);
  });
});
