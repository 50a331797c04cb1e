/**
 * A quota's queue (SEMANTICS 8), and one scheduling pass over several: the one home of
 * the queue strategies, for the what-if at one instant (queue-serve.ts) and for the
 * simulator (simulate/simulator.ts). Jobs enter by priority, then submission time (then
 * the caller's `order`, name order). Each pass asks the strategy which jobs to try, in
 * order, and whether a job that cannot be dequeued blocks the ones after it:
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
 * Across queues, a pass takes the heads by submission time (then `order`): a job
 * submitted earlier is tried first, whichever quota it waits on (SEMANTICS 8, "Queues at
 * one instant").
 */
import type { QueueParameters, QueueStrategy } from '../model/policy.js';

/** A waiting job as the queue orders it. */
export interface QueueEntry {
  priority: number;
  submit: number;
  /** The last tie-break (name order): in a queue, and between the heads of queues. */
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

  /**
   * Position of `e` in the order the strategy considers the queue at `now` (0 = the next
   * job it tries), or -1: the jobs ahead of it are the ones a pass tries first.
   */
  position(e: E, now: number): number {
    return this.ordered(now).indexOf(e);
  }

  /**
   * Every waiting job in the order the strategy considers them at `now`: queue order,
   * except `intelligent`, which takes its FIFO class first and the rest by aged priority.
   */
  ordered(now: number): E[] {
    if (this.strategy !== 'intelligent') return this.entries.slice();
    const from = this.params.intelligentFifoFrom;
    const high = this.entries.filter((e) => e.priority >= from);
    const aged = (e: E) => Math.max(e.priority, Math.min(this.params.agingCap, e.priority + Math.floor((now - e.enqueuedAt) / this.params.agingInterval)));
    const keyed = this.entries.filter((e) => e.priority < from).map((e) => ({ e, p: aged(e) }));
    keyed.sort((a, b) => b.p - a.p || a.e.submit - b.e.submit || a.e.order - b.e.order);
    return [...high, ...keyed.map((k) => k.e)];
  }

  /** The jobs to try at `now`, in order. */
  attempts(now: number): Array<Attempt<E>> {
    const list = this.ordered(now);
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
        const from = this.params.intelligentFifoFrom;
        return list.map((entry) => ({ entry, blocking: entry.priority >= from }));
      }
    }
  }
}

/**
 * What trying one job of a pass came to: `started` (it runs now; the caller took it out
 * of its queue), `left` (it left the queue without running, or was not waiting: the
 * pass goes on), `waits` (it cannot run now: a blocking attempt ends its queue's pass),
 * `stop` (end the whole pass now).
 */
export type PassOutcome = 'started' | 'left' | 'waits' | 'stop';

/** How a pass ended. */
export interface PassResult<E extends QueueEntry> {
  /** Per queue index, the blocking job whose `waits` ended that queue's pass. */
  blocked: Map<number, E>;
  /** True when an attempt said `stop`. */
  stopped: boolean;
}

/**
 * One scheduling pass over `queues` at `now` (an undefined queue has nothing waiting):
 * each queue's attempts as its strategy gives them at the pass's start, the queues'
 * next attempts taken by submission time, then `order`, then queue index. A `waits` on
 * a blocking attempt ends that queue's pass; `stop` ends the whole pass.
 */
export async function servePass<E extends QueueEntry>(queues: ReadonlyArray<JobQueue<E> | undefined>, now: number, attempt: (entry: E, queue: number) => Promise<PassOutcome>): Promise<PassResult<E>> {
  const lists: Array<Array<Attempt<E>>> = queues.map((q) => (q && q.size > 0 ? q.attempts(now) : []));
  const next = new Int32Array(lists.length);
  const blocked = new Map<number, E>();
  for (;;) {
    // The queue whose next attempt was submitted first (then order, then queue index):
    // a linear scan, since quotas with waiting jobs are few beside the answers a pass asks.
    let pick = -1;
    for (let i = 0; i < lists.length; i++) {
      const a = lists[i]![next[i]!];
      if (!a || blocked.has(i)) continue;
      const b = pick < 0 ? undefined : lists[pick]![next[pick]!]!.entry;
      if (!b || a.entry.submit < b.submit || (a.entry.submit === b.submit && a.entry.order < b.order)) pick = i;
    }
    if (pick < 0) return { blocked, stopped: false };
    const { entry, blocking } = lists[pick]![next[pick]!]!;
    next[pick] = next[pick]! + 1;
    const outcome = await attempt(entry, pick);
    if (outcome === 'stop') return { blocked, stopped: true };
    if (outcome === 'waits' && blocking) blocked.set(pick, entry);
  }
}
