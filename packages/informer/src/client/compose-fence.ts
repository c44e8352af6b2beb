/**
 * The fence of a client made by `withFence` from a fenced one: the outer fence first, then the
 * new one, so a write passes only while both hold (a leader's lease and a shard's, say).
 */
export function composeFence(outer: (() => void) | undefined, fence: () => void): () => void {
  if (outer === undefined) return fence;
  return (): void => {
    outer();
    fence();
  };
}
