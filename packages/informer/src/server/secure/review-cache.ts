/**
 * Results of TokenReviews and SubjectAccessReviews, each kept for its own TTL, with reviews of the
 * same key in flight shared: k8s.io/apiserver's cached token authenticator and delegating
 * authorizer do the same so a scraper costs the API server one review per TTL, not one per scrape.
 * Bounded: a flood of distinct forged tokens evicts the oldest entries instead of growing memory.
 */
export class ReviewCache<V> {
  readonly #entries = new Map<string, { readonly value: V; readonly expiresAt: number }>();
  readonly #inFlight = new Map<string, Promise<V>>();
  readonly #maxEntries: number;

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  /**
   * The cached value of `key`, or the result of `review()` (shared by callers asking meanwhile),
   * kept for `ttlMs(value)`. A rejected review is not cached: the next request asks again.
   */
  get(key: string, review: () => Promise<V>, ttlMs: (value: V) => number): V | Promise<V> {
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      if (entry.expiresAt > performance.now()) return entry.value;
      this.#entries.delete(key);
    }
    const pending = this.#inFlight.get(key);
    if (pending !== undefined) return pending;
    const started = review().then(
      (value) => {
        this.#inFlight.delete(key);
        const ttl = ttlMs(value);
        if (ttl > 0) {
          if (this.#entries.size >= this.#maxEntries) this.#evict();
          this.#entries.set(key, { value, expiresAt: performance.now() + ttl });
        }
        return value;
      },
      (error: unknown) => {
        this.#inFlight.delete(key);
        throw error;
      },
    );
    this.#inFlight.set(key, started);
    return started;
  }

  /** Drops the expired entries, or the oldest one when none has expired (Map keeps insertion order). */
  #evict(): void {
    const now = performance.now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
    if (this.#entries.size >= this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
