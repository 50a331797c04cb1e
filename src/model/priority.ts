/** Job priorities are integers 1..9; a larger number is more important (PAI's scale). */
export const MIN_PRIORITY = 1;
export const MAX_PRIORITY = 9;

/** An inclusive priority range, kept with the text the user wrote for explanations. */
export interface PriorityRange {
  lo: number;
  hi: number;
}

/** True when `p` lies in the range. */
export function inRange(range: PriorityRange, p: number): boolean {
  return p >= range.lo && p <= range.hi;
}

/** `4` or `6-9`, as a policy would write it. */
export function formatRange(range: PriorityRange): string {
  return range.lo === range.hi ? String(range.lo) : `${range.lo}-${range.hi}`;
}
