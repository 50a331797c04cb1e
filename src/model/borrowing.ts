/**
 * Who may run `borrowing` on a quota (SEMANTICS 5.2), in one place: the range a quota's
 * `borrowing.priority` gives, else its `selfPreemption.highPriority` (the default), else
 * nobody; and nobody on a root, which has no same-level quotas to borrow from. The rule
 * `<Q>/borrowing` is compiled from this (rules/compile-rules.ts) and tabulated per
 * (quota, priority) (rules/borrowing-table.ts), which the engine reads; the loader's
 * `standings: derive` (policy/build/derive-standings.ts), which runs below rules/, reads it
 * directly. A job whose priority is in the range may run borrowing: without victims on
 * unused capacity, or with the victims its quota's rules allow (self-level, idle reclaim).
 */
import type { Quota } from './policy.js';
import { inRange, type PriorityRange } from './priority.js';
import type { Source } from './source.js';

/** The effective borrowing rule of one quota. */
export interface BorrowingRange {
  /** The rule's name: `<quota>/borrowing`. */
  rule: string;
  priority: PriorityRange;
  /** Which field the range comes from: written, or the default. */
  from: 'borrowing.priority' | 'selfPreemption.highPriority';
  /** Where that field is written. */
  src: Source;
}

/**
 * The fields of a quota that decide who borrows on it: what `borrowingRange` reads, so
 * generators that hold a quota as written (no sources) ask the same function.
 */
export interface BorrowingFields {
  parent: string | null;
  borrowing?: { priority: PriorityRange } | undefined;
  selfPreemption?: { highPriority: PriorityRange } | undefined;
}

/** The priorities that may run borrowing on the quota (the rule above), or undefined for nobody. */
export function borrowingRange(quota: BorrowingFields): PriorityRange | undefined {
  if (quota.parent === null) return undefined;
  return quota.borrowing ? quota.borrowing.priority : quota.selfPreemption?.highPriority;
}

/** The quota's borrowing rule, or undefined when none of its jobs may borrow. */
export function borrowingOf(quota: Quota): BorrowingRange | undefined {
  const priority = borrowingRange(quota);
  if (!priority) return undefined;
  const rule = `${quota.name}/borrowing`;
  // Which field `borrowingRange` read, and where it is written.
  if (quota.borrowing) return { rule, priority, from: 'borrowing.priority', src: quota.borrowing.src };
  return { rule, priority, from: 'selfPreemption.highPriority', src: quota.selfPreemption!.src };
}

/** True when a job of `priority` on `quota` may run borrowing (the rule above, for callers below rules/ and generators). */
export function mayBorrow(quota: BorrowingFields, priority: number): boolean {
  const range = borrowingRange(quota);
  return range !== undefined && inRange(range, priority);
}
