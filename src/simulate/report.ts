/**
 * The report of a simulation: a stable JSON contract (docs/simulate.md "Report fields").
 * Hours are simulated hours from the start; GPU-hours and money are rounded to 0.01,
 * shares to 0.0001. Nothing in it depends on the wall clock, so the same seed gives
 * the same report, byte for byte.
 */

/** Report format version: bumped when a field changes meaning or goes away. */
export const REPORT_VERSION = 1;

/**
 * Queue wait in hours. `p50`, `p95`, `max`: over the jobs that started. A job still
 * waiting at the end never started: its wait is censored (at least end − submit), and
 * `stillWaiting`, `longestStillWaiting` and the `…WithWaiting` percentiles (over started
 * and censored waits together, so a lower bound) say so.
 */
export interface WaitStats {
  started: number;
  p50: number;
  p95: number;
  max: number;
  /** Jobs waiting at the end that never started. */
  stillWaiting: number;
  /** The longest wait among them so far, hours (0 when none). */
  longestStillWaiting: number;
  /** p50 and p95 over started and censored waits together (lower bounds when any is censored). */
  p50WithWaiting: number;
  p95WithWaiting: number;
}

/** Figures per team (workspace) or per quota. */
export interface GroupFigures {
  name: string;
  jobs: number;
  completed: number;
  /** Ended Preempted (no restart left). */
  endedPreempted: number;
  rejected: number;
  /** Still waiting or running when the run stopped. */
  unfinished: number;
  wait: WaitStats;
  /** GPU-hours run on the cluster, by standing. */
  gpuHours: { inQuota: number; borrowing: number; idle: number; total: number };
  /** Times this group's jobs were preempted or released. */
  preempted: number;
  lostGpuHours: number;
  restarts: number;
  /** Hours beyond submit + duration until completion, summed over completed jobs. */
  extraHours: number;
  spot: SpotFigures;
}

/** Spot figures of a group or of the whole market. */
export interface SpotFigures {
  jobs: number;
  gpuHours: number;
  cost: number;
  payAsYouGo: number;
  saved: number;
  interruptions: { price: number; inventory: number };
}

/** A quota: its guarantee and the share of it used on average. */
export interface QuotaFigures extends GroupFigures {
  minGpu: number;
  /** In-quota GPU-hours of its own jobs over min × hours. */
  guaranteeUsed: number;
  /**
   * The quota with its descendants (a parent's guarantee covers its children's use):
   * jobs, unfinished and GPU-hours summed over the subtree, and its in-quota GPU-hours over
   * min × hours. A leaf's equals its own figures.
   */
  subtree: { quotas: number; jobs: number; unfinished: number; gpuHours: { inQuota: number; borrowing: number; idle: number; total: number }; guaranteeUsed: number };
}

/** Preemptions grouped by rule. */
export interface RuleCount {
  rule: string;
  source: string;
  count: number;
  lostGpuHours: number;
}

/** One preemption or release, as the engine or the market stated it. */
export interface PreemptionEvent {
  hour: number;
  job: string;
  team: string;
  quota: string;
  rule: string;
  source: string;
  reason: string;
  lostGpuHours: number;
  /** The job it made room for (empty for a spot release). */
  by: string;
  restarted: boolean;
}

/** The time series, one entry per sample. */
export interface Series {
  hour: number[];
  /** Cluster GPUs in use, all teams. */
  used: number[];
  /** Per team: cluster GPUs in use. */
  byTeam: Record<string, number[]>;
  /** Per quota: GPUs counted in its usage (in-quota and borrowing). */
  byQuota: Record<string, number[]>;
  /**
   * Per parent quota (one with children): GPUs counted in the usage of its subtree, itself
   * and its descendants (their `byQuota` summed), what its guarantee covers.
   */
  byQuotaSubtree?: Record<string, number[]>;
  idle: number[];
  /** Free GPUs no waiting pod shape can use. */
  fragmented: number[];
  /** Jobs waiting in quota queues. */
  waiting: number[];
  spotRunning: number[];
  /** Market price per instance type. */
  price: Record<string, number[]>;
}

/** One reason a head gave, with how long heads giving it held their queue. */
export interface BlockReason {
  code: string;
  /** The message of the first head that gave it. */
  message: string;
  hours: number;
}

/** A job that headed its queue blocked. */
export interface BlockedHead {
  job: string;
  quota: string;
  gpus: number;
  blockedHours: number;
  heldBackGpuHours: number;
  /** Its reasons at the last time it was asked, as the engine gave them. */
  reasons: Array<{ code: string; message: string }>;
}

/** A quota's queue over the run. */
export interface QueueDiagnosis {
  quota: string;
  strategy: string;
  /** Hours a blocking job headed the queue and could not start. */
  blockedHours: number;
  /** GPUs requested by the queue's waiting jobs, integrated over the blocked time. */
  heldBackGpuHours: number;
  /** Of the blocked hours, those while the pool had free GPUs for a job behind the head. */
  starvedHours: number;
  /** Mean free GPUs of the pool over the starved hours. */
  starvedIdleGpus: number;
  reasons: BlockReason[];
  topHeads: BlockedHead[];
}

/** A finding of the run: something an administrator should act on. */
export interface SimFinding {
  code: 'simulate/queue-starved';
  severity: 'warning';
  quota: string;
  message: string;
  hint: string;
}

/** The whole report. */
export interface Report {
  version: number;
  policy: string;
  workload: { source: string; synthetic: boolean; jobs: number; rejectedRows: number; notes: string[] };
  seed: number;
  /** Simulated hours covered. */
  hours: number;
  /** Set when --until stopped the run early. */
  until: number | null;
  /** The scheduler's cycle in seconds; 0 = queues tried after every event. */
  cycleSeconds: number;
  /**
   * `runningAtStart`: the snapshot's jobs running when the run starts; `queuedAtStart`: its
   * queued jobs, waiting then (absent when none). Both are counted in `totals.jobs`.
   */
  cluster: { nodes: number; gpus: number; runningAtStart: number; queuedAtStart?: number };
  totals: {
    jobs: number;
    completed: number;
    endedPreempted: number;
    rejected: number;
    unfinished: number;
    capacityGpuHours: number;
    usedGpuHours: number;
    idleGpuHours: number;
    /**
     * Of `idleGpuHours`, the room on GPUs that sharing pods partly held (only another share
     * fits there); present when a sharing pod ran (docs/simulate.md "GPU sharing in the report").
     */
    sharedRoomGpuHours?: number;
    utilisation: number;
    preemptions: number;
    restarts: number;
    lostGpuHours: number;
    wait: WaitStats;
  };
  teams: GroupFigures[];
  quotas: QuotaFigures[];
  preemptions: { byRule: RuleCount[]; byVictimTeam: Array<{ team: string; count: number; lostGpuHours: number }>; first: PreemptionEvent[] };
  spot: SpotFigures & { synthetic: boolean; byInstanceType: Array<SpotFigures & { name: string; payAsYouGoPrice: number }> };
  rejections: Array<{ job: string; team: string; quota: string; hour: number; reason: string }>;
  /** Per quota, the time its queue was held by a blocked head and why (queue-diagnostics.ts). */
  queues: QueueDiagnosis[];
  /** The blocked heads that held back the most GPU-hours, over all queues (at most 10). */
  blockedHeads: BlockedHead[];
  /** What the run found an administrator should act on (e.g. simulate/queue-starved). */
  findings: SimFinding[];
  series: Series;
  notes: string[];
}

/** Rounds to 0.01. */
export function r2(x: number): number {
  return Math.round(x * 100) / 100;
}

/** Rounds to 0.0001. */
export function r4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

/** p50 / p95 / max of the started jobs' waits (ms), and the censored waits (ms) of those still waiting, in hours. */
export function waitStats(waitsMs: number[], censoredMs: readonly number[] = []): WaitStats {
  const started = percentiles(waitsMs);
  const all = censoredMs.length ? percentiles([...waitsMs, ...censoredMs]) : started;
  const longest = censoredMs.reduce((m, x) => Math.max(m, x), 0);
  return {
    started: waitsMs.length,
    p50: started.p50,
    p95: started.p95,
    max: started.max,
    stillWaiting: censoredMs.length,
    longestStillWaiting: r2(longest / 3_600_000),
    p50WithWaiting: all.p50,
    p95WithWaiting: all.p95,
  };
}

function percentiles(ms: number[]): { p50: number; p95: number; max: number } {
  if (ms.length === 0) return { p50: 0, p95: 0, max: 0 };
  const s = Float64Array.from(ms).sort();
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
  return { p50: r2(at(0.5) / 3_600_000), p95: r2(at(0.95) / 3_600_000), max: r2(s[s.length - 1]! / 3_600_000) };
}
