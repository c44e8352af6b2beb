/** The value at quantile `p` (0..1) of ascending `sorted` values (nearest rank below); 0 when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.floor(p * (sorted.length - 1))]!;
}
