/**
 * Why queues waited (docs/simulate.md "Blocked queues"): per quota, the time a job its
 * strategy does not let the others pass (a blocked head: engine/queue-order.ts servePass's
 * `blocked`) held the queue, with that job's own reasons as the engine gave them (codes),
 * the GPU-hours held back (the GPUs the queue's waiting jobs request, over that time), and
 * the time it starved: the head blocked while the pool had free GPUs enough for a job
 * behind it, that another strategy would have tried.
 *
 * The state only changes at scheduling passes, so the event loop observes after each pass
 * and the time since the previous observation is integrated exactly.
 */
import type { Reason } from '../engine/reason-codes.js';
import type { JobQueue } from '../engine/queue-order.js';
import { r2, type BlockedHead, type QueueDiagnosis, type SimFinding } from './report.js';
import { gpusOf, HOUR, type Entry, type JobState } from './sim-job.js';

/** How many blocked heads the report keeps per queue, and over all queues. */
export const TOP_HEADS = 5;

interface HeadAcc {
  js: JobState;
  ms: number;
  heldMs: number;
}

interface QueueAcc {
  head?: JobState;
  heldGpus: number;
  starvedIdle: number;
  blockedMs: number;
  heldMs: number;
  starvedMs: number;
  starvedIdleMs: number;
  reasons: Map<string, { message: string; ms: number }>;
  heads: Map<JobState, HeadAcc>;
}

export class QueueDiagnostics {
  private readonly acc: QueueAcc[];
  private last = 0;

  constructor(
    private readonly quotaNames: readonly string[],
    private readonly strategies: readonly string[],
  ) {
    this.acc = quotaNames.map(() => ({ heldGpus: 0, starvedIdle: -1, blockedMs: 0, heldMs: 0, starvedMs: 0, starvedIdleMs: 0, reasons: new Map(), heads: new Map() }));
  }

  /**
   * After a scheduling pass at `t`: `blocked` holds, per queue index, the blocking job that
   * could not start; `freeGpus(q)` the free GPUs of quota q's pool now.
   */
  observe(t: number, blocked: ReadonlyMap<number, Entry>, queues: ReadonlyArray<JobQueue<Entry>>, freeGpus: (q: number) => number): void {
    this.integrate(t);
    this.acc.forEach((a, q) => {
      const e = blocked.get(q);
      if (!e || e.js.status !== 'waiting') {
        a.head = undefined;
        return;
      }
      a.head = e.js;
      let held = 0;
      let smallestBehind = Infinity;
      for (const w of queues[q]!.all()) {
        const g = gpusOf(w.js);
        held += g;
        if (w !== e) smallestBehind = Math.min(smallestBehind, g);
      }
      a.heldGpus = held;
      const free = freeGpus(q);
      a.starvedIdle = free >= smallestBehind ? free : -1;
    });
  }

  /** Adds the time from the last observation to `t` with the state then. */
  integrate(t: number): void {
    const dt = t - this.last;
    if (dt <= 0) return;
    for (const a of this.acc) {
      const js = a.head;
      if (!js) continue;
      a.blockedMs += dt;
      a.heldMs += a.heldGpus * dt;
      if (a.starvedIdle >= 0) {
        a.starvedMs += dt;
        a.starvedIdleMs += a.starvedIdle * dt;
      }
      const seen = new Set<string>();
      for (const r of js.reasons ?? [{ code: 'unknown', message: 'no answer recorded' }]) {
        // A code the head gives twice (its quota and an ancestor's) counts its time once.
        if (seen.has(r.code)) continue;
        seen.add(r.code);
        const x = a.reasons.get(r.code);
        if (x) x.ms += dt;
        else a.reasons.set(r.code, { message: r.message, ms: dt });
      }
      const h = a.heads.get(js) ?? { js, ms: 0, heldMs: 0 };
      h.ms += dt;
      h.heldMs += a.heldGpus * dt;
      a.heads.set(js, h);
    }
    this.last = t;
  }

  /** The diagnoses at the run's end `end`, and the findings they call for. */
  finish(end: number): { queues: QueueDiagnosis[]; findings: SimFinding[] } {
    this.integrate(end);
    const queues = this.acc.map((a, q) => ({
      quota: this.quotaNames[q]!,
      strategy: this.strategies[q]!,
      blockedHours: r2(a.blockedMs / HOUR),
      heldBackGpuHours: r2(a.heldMs / HOUR),
      starvedHours: r2(a.starvedMs / HOUR),
      starvedIdleGpus: a.starvedMs > 0 ? r2(a.starvedIdleMs / a.starvedMs) : 0,
      reasons: [...a.reasons].map(([code, x]) => ({ code, message: x.message, hours: r2(x.ms / HOUR) })).sort((x, y) => y.hours - x.hours || (x.code < y.code ? -1 : 1)),
      topHeads: topHeads([...a.heads.values()], this.quotaNames[q]!),
    }));
    const findings: SimFinding[] = queues
      .filter((d) => d.starvedHours > 0)
      .map((d) => ({
        code: 'simulate/queue-starved',
        severity: 'warning',
        quota: d.quota,
        message: `the ${d.strategy} queue of ${d.quota} was held by a blocked head for ${d.starvedHours} h while the pool had ${d.starvedIdleGpus} GPUs free on average, enough for a job behind it`,
        hint:
          d.strategy === 'fifo'
            ? `a round-robin, balance or intelligent queueStrategy lets jobs pass a head that cannot start; or make the head startable (${d.reasons[0]?.code ?? 'see its reasons'})`
            : `widen the strategy's window (balanceWindow) or lower the priority class that blocks (intelligentFifoFrom); the head's reasons: ${d.reasons[0]?.code ?? 'none recorded'}`,
      }));
    return { queues, findings };
  }
}

function topHeads(heads: HeadAcc[], quota: string): BlockedHead[] {
  return heads
    .sort((a, b) => b.heldMs - a.heldMs || b.ms - a.ms || a.js.order - b.js.order)
    .slice(0, TOP_HEADS)
    .map((h) => ({
      job: h.js.sim.spec.name,
      quota,
      gpus: gpusOf(h.js),
      blockedHours: r2(h.ms / HOUR),
      heldBackGpuHours: r2(h.heldMs / HOUR),
      reasons: (h.js.reasons ?? []).map((r: Reason) => ({ code: r.code, message: r.message })),
    }));
}
