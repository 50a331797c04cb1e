/**
 * A quota's queue (SEMANTICS 8). Jobs enter by priority, then submission time (then
 * name order). Each scheduling pass asks the strategy which jobs to try, in order, and
 * whether a job that cannot be dequeued blocks the ones after it:
 *
 *   fifo         the head only; it blocks everything behind it
 *   round-robin  every job in order; one that cannot run is skipped
 *   balance      FIFO that widens to round-robin over the first w jobs, w growing by one
 *                per `balanceWidenEvery` the head has waited, up to `balanceWindow`
 *   intelligent  jobs at or above `intelligentFifoFrom` (7) first, FIFO; then the rest
 *                round-robin by aged priority: +1 per `agingInterval` waited, up to
 *                `agingCap` (6), so aging never lifts a job into the FIFO class
 *
 * Aging changes only the order of the queue, never the priority the engine sees.
 */
import type { QueueParameters, QueueStrategy } from '../model/policy.js';

/** A waiting job as the queue orders it. */
export interface QueueEntry {
  priority: number;
  submit: number;
  /** Name order: the last tie-break. */
  order: number;
  /** When it (re-)entered the queue: aging and balance count from here. */
  enqueuedAt: number;
}

/** One job to try, and whether failing to dequeue it ends the pass for this queue. */
export interface Attempt<E extends QueueEntry> {
  entry: E;
  blocking: boolean;
}

function before(a: QueueEntry, b: QueueEntry): boolean {
  return a.priority !== b.priority ? a.priority > b.priority : a.submit !== b.submit ? a.submit < b.submit : a.order < b.order;
}

/** The waiting jobs of one quota, in queue order. */
export class JobQueue<E extends QueueEntry> {
  private readonly entries: E[] = [];

  constructor(
    readonly strategy: QueueStrategy,
    readonly params: QueueParameters,
  ) {}

  get size(): number {
    return this.entries.length;
  }

  /** The waiting jobs in queue order. */
  all(): readonly E[] {
    return this.entries;
  }

  /** Inserts by priority, then submission time, then name order. */
  add(e: E): void {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (before(this.entries[mid]!, e)) lo = mid + 1;
      else hi = mid;
    }
    this.entries.splice(lo, 0, e);
  }

  /** Takes a job out (dequeued, or rejected). */
  remove(e: E): void {
    const i = this.entries.indexOf(e);
    if (i >= 0) this.entries.splice(i, 1);
  }

  /** Position of `e` in the order the strategy would try the queue at `now` (0 = next), or -1. */
  position(e: E, now: number): number {
    return this.attempts(now).findIndex((a) => a.entry === e);
  }

  /** The jobs to try at `now`, in order. */
  attempts(now: number): Array<Attempt<E>> {
    const list = this.entries;
    switch (this.strategy) {
      case 'fifo':
        return list.length ? [{ entry: list[0]!, blocking: true }] : [];
      case 'round-robin':
        return list.map((entry) => ({ entry, blocking: false }));
      case 'balance': {
        const head = list[0];
        if (!head) return [];
        const w = Math.min(this.params.balanceWindow, 1 + Math.floor((now - head.enqueuedAt) / this.params.balanceWidenEvery));
        // Inside the window a job that cannot run is skipped; the window's last job blocks.
        return list.slice(0, w).map((entry, i) => ({ entry, blocking: i === w - 1 }));
      }
      case 'intelligent': {
        const high = list.filter((e) => e.priority >= this.params.intelligentFifoFrom);
        const low = list.filter((e) => e.priority < this.params.intelligentFifoFrom);
        const aged = (e: E) => Math.max(e.priority, Math.min(this.params.agingCap, e.priority + Math.floor((now - e.enqueuedAt) / this.params.agingInterval)));
        const keyed = low.map((e) => ({ e, p: aged(e) }));
        keyed.sort((a, b) => b.p - a.p || a.e.submit - b.e.submit || a.e.order - b.e.order);
        return [...high.map((entry) => ({ entry, blocking: true })), ...keyed.map((k) => ({ entry: k.e, blocking: false }))];
      }
    }
  }
}
