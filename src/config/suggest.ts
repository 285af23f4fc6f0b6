/** "Did you mean" suggestions for unknown keys. */

/** Levenshtein distance, bounded: returns max+1 as soon as the distance must exceed max. */
function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      rowMin = Math.min(rowMin, cur[j]);
    }
    if (rowMin > max) return max + 1;
    prev = cur;
  }
  return prev[b.length];
}

/** The closest candidate within a distance that grows with the key's length, or undefined. */
export function suggest(key: string, candidates: Iterable<string>): string | undefined {
  const max = Math.max(2, Math.floor(key.length / 6));
  let best: string | undefined;
  let bestDistance = max + 1;
  for (const candidate of candidates) {
    const d = editDistance(key, candidate, max);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
