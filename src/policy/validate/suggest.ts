/** "did you mean" hints for misspelt names. */

/** The known name closest to `name` (case-insensitive), when it is close enough to be a typo. */
export function nearest(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const limit = Math.max(1, Math.floor(name.length / 3));
  const lower = name.toLowerCase();
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase(), limit);
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  // One edit for short names ("bea" is not a typo of "dev"), more for longer ones.
  return best !== undefined && bestD <= limit ? best : undefined;
}

/** A hint naming the closest known name, or listing the known ones when none is close. */
export function closest(name: string, known: readonly string[], what: string): string {
  const best = nearest(name, known);
  if (best !== undefined) return `did you mean ${what} "${best}"?`;
  if (known.length === 0) return `no ${what} is declared; declare it first`;
  const list = known
    .slice(0, 8)
    .map((k) => `"${k}"`)
    .join(', ');
  return `known ${what}s: ${list}${known.length > 8 ? ', …' : ''}`;
}

/**
 * Edit distance counting a swap of two neighbouring letters as one edit (optimal string
 * alignment), since `mni` for `min` is one slip of the fingers, not two. With `atMost`,
 * any distance over it may be answered as `atMost + 1` without being worked out: the
 * lengths' difference is a lower bound, so a 250,000-character key is compared with a
 * field name in one step, not in a table of 250,000 rows per field (which made
 * `quotient check` take seconds per long key, and the server's engine thread with it).
 */
export function editDistance(a: string, b: string, atMost = Infinity): number {
  if (Math.abs(a.length - b.length) > atMost) return atMost + 1;
  // Three rows: the one before the previous is needed for a swap.
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const same = a[i - 1] === b[j - 1];
      let d = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (same ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (before[j - 2] ?? 0) + 1);
      row.push(d);
    }
    before = prev;
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/**
 * The fields an object takes (`here`) and, for each of them that is an object in turn,
 * the fields it takes (`below`, keyed by the field): what a misplaced field is looked up
 * in. Read from the schema (validate-schema.ts `fieldsAt`), so it never goes stale.
 */
export interface FieldPlaces {
  here: readonly string[];
  below: ReadonlyMap<string, readonly string[]>;
}

/**
 * The field an unknown `key` of an object was meant to be: a close field of the object
 * itself (`mni` → `min`), or a field one level down by that name or close to it (`gpu`
 * given beside `resources` → `resources.gpu`, `cpus` → `resources.cpu`). The closest
 * wins; on a tie, the object's own field. A field one level down is spelled with its
 * parent, so a hint never proposes the very name that was refused.
 */
export function nearestField(key: string, places: FieldPlaces): string | undefined {
  const limit = Math.max(1, Math.floor(key.length / 3));
  let best: string | undefined;
  let bestD = Infinity;
  const lower = key.toLowerCase();
  const consider = (candidate: string, name: string): void => {
    const d = editDistance(lower, name.toLowerCase(), limit);
    if (d < bestD && d <= limit) {
      bestD = d;
      best = candidate;
    }
  };
  for (const f of places.here) if (f !== key) consider(f, f);
  for (const [parent, fields] of places.below) for (const f of fields) consider(`${parent}.${f}`, f);
  return best;
}
