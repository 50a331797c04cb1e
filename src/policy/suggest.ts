/** "did you mean" hints for misspelt names. */

/** The known name closest to `name` (case-insensitive), when it is close enough to be a typo. */
export function nearest(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(name.toLowerCase(), k.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  // One edit for short names ("bea" is not a typo of "dev"), more for longer ones.
  return best !== undefined && bestD <= Math.max(1, Math.floor(name.length / 3)) ? best : undefined;
}

/** A hint naming the closest known name, or listing the known ones when none is close. */
export function closest(name: string, known: readonly string[], what: string): string {
  const best = nearest(name, known);
  if (best !== undefined) return `did you mean ${what} "${best}"?`;
  if (known.length === 0) return `no ${what} is declared; declare it first`;
  const list = known.slice(0, 8).map((k) => `"${k}"`).join(', ');
  return `known ${what}s: ${list}${known.length > 8 ? ', …' : ''}`;
}

/** Levenshtein distance. */
export function editDistance(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    // dp has b.length + 1 entries and j stays within them.
    let prev = dp[0]!;
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j]!;
      dp[j] = Math.min(tmp + 1, dp[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length]!;
}
