/**
 * Edit distance (optimal string alignment: insertions, deletions, substitutions and swaps of two
 * neighbours each cost 1), compared case-insensitively: typos of option names are mostly one
 * dropped, doubled or swapped letter (`loger`, `hots`) or a wrong case (`pagesize`).
 */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  // d[i][j]: distance between the first i characters of s and the first j of t.
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) => [i, ...new Array<number>(t.length).fill(0)]);
  for (let j = 1; j <= t.length; j++) d[0]![j] = j;
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[s.length]![t.length]!;
}

/**
 * The accepted name `key` most likely meant, or undefined when none is close: within a third of
 * the longer name's length (at least 1), or a name that starts with `key` (`watchTimeout` for
 * `watchTimeoutSeconds`, a unit suffix left off). Ties go to the alphabetically first name, so
 * the suggestion does not depend on the order of `accepted`.
 */
export function closestMatch(key: string, accepted: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of [...accepted].sort()) {
    const distance = editDistance(key, name);
    const limit = Math.max(1, Math.floor(Math.max(key.length, name.length) / 3));
    const prefix = key.length >= 4 && name.toLowerCase().startsWith(key.toLowerCase());
    if (distance > limit && !prefix) continue;
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  return best?.name;
}
