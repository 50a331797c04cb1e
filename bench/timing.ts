/**
 * Timing helpers for benchmarks: per-call samples with a repetition cap and a time
 * budget, summarised as median, min and max. Machines here are shared and noisy, so a
 * figure is a median with its spread, and claims are ratios measured in the same run.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Median, min and max of one measured operation, in microseconds. */
export interface TimingSummary {
  medianUs: number;
  minUs: number;
  maxUs: number;
  samples: number;
}

/** Options of `measure`. */
export interface MeasureOptions {
  /** Untimed calls first, so the JIT and caches settle (default 3). */
  warmup?: number;
  /** At most this many timed samples (default 500). */
  maxSamples?: number;
  /** At least this many samples, even past the budget (default 5). */
  minSamples?: number;
  /** Stop sampling after this much wall time, in ms (default 1000). */
  budgetMs?: number;
  /** Calls per sample, for operations too short for the clock (default 1). */
  batch?: number;
}

/** Times `op` (one sample = `batch` calls) and summarises per call. */
export function measure(op: () => unknown, opts: MeasureOptions = {}): TimingSummary {
  const { warmup = 3, maxSamples = 500, minSamples = 5, budgetMs = 1000, batch = 1 } = opts;
  for (let i = 0; i < warmup; i++) op();
  const samples: number[] = [];
  const deadline = performance.now() + budgetMs;
  while (samples.length < maxSamples && (samples.length < minSamples || performance.now() < deadline)) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) op();
    samples.push(Number(process.hrtime.bigint() - start) / 1000 / batch);
  }
  samples.sort((a, b) => a - b);
  const mid = samples.length >> 1;
  const medianUs = samples.length % 2 ? samples[mid]! : (samples[mid - 1]! + samples[mid]!) / 2;
  return { medianUs, minUs: samples[0]!, maxUs: samples.at(-1)!, samples: samples.length };
}

/** A duration in µs with a sensible number of digits. */
export function formatUs(us: number): string {
  if (us >= 1000) return `${(us / 1000).toFixed(2)} ms`;
  if (us >= 10) return `${us.toFixed(1)} µs`;
  return `${us.toFixed(2)} µs`;
}

/** Median, p99, min and max of samples already taken, in microseconds. */
export interface Distribution extends TimingSummary {
  p99Us: number;
}

/** Summarises samples (µs): median, p99 (nearest rank), min, max. */
export function distribution(samplesUs: readonly number[]): Distribution {
  const s = [...samplesUs].sort((a, b) => a - b);
  if (s.length === 0) return { medianUs: NaN, p99Us: NaN, minUs: NaN, maxUs: NaN, samples: 0 };
  const mid = s.length >> 1;
  const medianUs = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  const p99Us = s[Math.min(s.length - 1, Math.ceil(0.99 * s.length) - 1)]!;
  return { medianUs, p99Us, minUs: s[0]!, maxUs: s.at(-1)!, samples: s.length };
}

/** Microseconds since `start` (a `process.hrtime.bigint()` reading). */
export function sinceUs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1000;
}

/** Prints rows as an aligned text table. */
export function printRows(head: string[], body: string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cols: string[]): string =>
    cols
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const b of body) console.log(line(b));
}

/**
 * A full garbage collection, run before a timed region so that it does not time the
 * collector clearing or promoting what was allocated before it: V8's
 * `--expose-gc` turned on at run time and its `gc` taken from a fresh context, so the
 * benchmark needs no Node flag (a flag would also reach Piscina's workers).
 */
export function collectGarbage(): void {
  if (!gcFn) {
    setFlagsFromString('--expose-gc');
    gcFn = runInNewContext('gc') as () => void;
  }
  gcFn();
}
let gcFn: (() => void) | undefined;

/** Wraps a kernel's query methods (place, selectVictims) to add up the wall time spent inside them, in µs. */
export function timeKernelCalls(kernel: { place: unknown; selectVictims: unknown }): { us: number; calls: number } {
  const acc = { us: 0, calls: 0 };
  for (const m of ['place', 'selectVictims'] as const) {
    const original = (kernel[m] as (...a: unknown[]) => unknown).bind(kernel);
    (kernel as Record<string, unknown>)[m] = (...args: unknown[]) => {
      const start = process.hrtime.bigint();
      const out = original(...args);
      acc.us += sinceUs(start);
      acc.calls++;
      return out;
    };
  }
  return acc;
}
