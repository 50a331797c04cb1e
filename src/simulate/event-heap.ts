/**
 * The simulator's future events, earliest first. Events at the same time run in phase
 * order — ends and releases free room before market moves, arrivals come after both,
 * and a scheduling cycle's tick comes last —
 * then in the order they were scheduled, so a run is deterministic.
 */

/** Event kinds, in the phase order they run at one time. */
export const PHASE = { end: 0, scale: 1, market: 2, protection: 3, arrival: 4, cycle: 5 } as const;
export type EventKind = keyof typeof PHASE;

/** One scheduled event; `a` and `b` are its arguments (job id and run id, or type index). */
export interface SimEvent {
  t: number;
  kind: EventKind;
  seq: number;
  a: number;
  b: number;
}

function less(x: SimEvent, y: SimEvent): boolean {
  if (x.t !== y.t) return x.t < y.t;
  const px = PHASE[x.kind];
  const py = PHASE[y.kind];
  return px !== py ? px < py : x.seq < y.seq;
}

/** A binary min-heap of events. */
export class EventHeap {
  private readonly heap: SimEvent[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  /** Schedules an event. */
  push(t: number, kind: EventKind, a = 0, b = 0): void {
    const h = this.heap;
    const e: SimEvent = { t, kind, seq: this.seq++, a, b };
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(e, h[p]!)) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = e;
  }

  /** The earliest event, without removing it. */
  peek(): SimEvent | undefined {
    return this.heap[0];
  }

  /** Removes and returns the earliest event. */
  pop(): SimEvent | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (top === undefined || last === undefined || h.length === 0) return top;
    let i = 0;
    const n = h.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && less(h[r]!, h[l]!) ? r : l;
      if (!less(h[c]!, last)) break;
      h[i] = h[c]!;
      i = c;
    }
    h[i] = last;
    return top;
  }
}
