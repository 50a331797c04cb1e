/**
 * Kubernetes pod priorities (`spec.priority`, any int32) onto PAI's 1..9. The mapping is
 * a list of bands, each the lowest Kubernetes priority that earns a Quotient priority;
 * a pod below every band gets 1. The default bands follow the usual PriorityClass
 * values: 0 (no class) is 1, system-critical classes (2000000000 and up) are 9.
 */

/** One band: pods with `spec.priority >= from` get `priority` (unless a higher band matches). */
export interface PriorityBand {
  from: number;
  priority: number;
}

/** The default mapping, written as `--priority-map` takes it. */
export const DEFAULT_PRIORITY_MAP = '0=1,100=2,1000=3,10000=4,100000=5,1000000=6,10000000=7,100000000=8,1000000000=9';

/**
 * `--priority-map as-is`: priorities as Kubernetes and Kueue have them (any int32, never
 * banded), for a policy whose QuotaTree follows Kueue's rules (SEMANTICS 12). The one
 * list that means it: `mapPriority` tells it by identity.
 */
export const AS_IS_MAP = 'as-is';
const AS_IS: PriorityBand[] = [];

/** True for the as-is map (priorities kept as they are). */
export function isAsIs(bands: readonly PriorityBand[]): boolean {
  return bands === AS_IS;
}

/** The map as an import's notes say it. */
export function describePriorityMap(bands: readonly PriorityBand[]): string {
  return isAsIs(bands) ? "spec.priority kept as it is (any int32, Kueue's rules)" : `spec.priority → 1..9 by bands ${bands.map((b) => `${b.from}=${b.priority}`).join(',')}`;
}

/** Parses `from=priority,...` (or `as-is`); returns an error message for a bad map. */
export function parsePriorityMap(text: string): { bands?: PriorityBand[]; error?: string } {
  if (text.trim() === AS_IS_MAP) return { bands: AS_IS };
  const bands: PriorityBand[] = [];
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const m = /^(-?\d+)=([1-9])$/.exec(part);
    if (!m) return { error: `"${part}" is not FROM=PRIORITY (an integer, then a priority 1..9)` };
    bands.push({ from: Number(m[1]), priority: Number(m[2]) });
  }
  if (bands.length === 0) return { error: 'the map is empty' };
  bands.sort((a, b) => a.from - b.from);
  for (let i = 1; i < bands.length; i++) {
    const prev = bands[i - 1]!;
    const cur = bands[i]!;
    if (cur.from === prev.from) return { error: `${cur.from} is given twice` };
    if (cur.priority < prev.priority) return { error: `priorities must not fall as Kubernetes priorities rise (${prev.from}=${prev.priority} then ${cur.from}=${cur.priority})` };
  }
  return { bands };
}

/** The Quotient priority of a Kubernetes priority under `bands` (sorted ascending). */
export function mapPriority(kubePriority: number, bands: readonly PriorityBand[]): number {
  if (isAsIs(bands)) return kubePriority;
  let p = 1;
  for (const b of bands) if (kubePriority >= b.from) p = b.priority;
  return p;
}
