/**
 * What a simulation run takes (SimInput, SimOptions) and what it shows while it runs
 * (SimView): the event loop's contract with its callers (simulator.ts).
 */
import type { Snapshot } from '../engine/snapshot.js';
import type { Kernel } from '../kernel/types.js';
import type { ClusterNode, Policy, RunningJob } from '../model/policy.js';
import type { TypeSeries } from './market.js';
import type { SimStart } from './quota-scheduler.js';
import type { SimJob, Workload } from './workload.js';

/** A quota scaling at a time of the run (SEMANTICS 9). */
export interface ScaleEvent {
  at: number;
  set: Array<{ quota: string; gpu: number }>;
}

/** What a run needs. */
export interface SimInput {
  policy: Policy;
  /** A label for the report (the policy's path). */
  label: string;
  nodes: ClusterNode[];
  workload: Workload;
  market: TypeSeries[];
  scales?: ScaleEvent[];
  /**
   * Jobs already running when the run starts (a Cluster snapshot's, snapshot-start.ts), in
   * run time: `startedAt` <= 0, `expectedEnd` >= 0 or absent (then the job runs until the
   * run ends, unless preempted). They hold their placement (or the one the engine gives a
   * job without), count in their quotas with their standing, end at their expected end and
   * are victims by the policy's rules like any running job.
   */
  running?: RunningJob[];
  /**
   * Jobs waiting when the run starts (a Cluster snapshot's queue, snapshot-start.ts
   * `queuedAtStart`): `submit` is their submission in run time, at or before 0. They
   * arrive at time 0 before any job of the workload, keeping `submit` for their place
   * in their queue, for aging and balance's window and for their wait; at equal
   * priority and submission they come before the workload's jobs (SEMANTICS 8: they
   * were submitted first).
   */
  queued?: SimJob[];
  /** What the caller left out or assumed, for the report's notes (e.g. a snapshot not carried onto other nodes). */
  notes?: string[];
}

export interface SimOptions {
  seed: number;
  /** Stop at this simulated time (ms). */
  until?: number;
  backend?: 'wasm' | 'reference';
  kernel?: Kernel;
  /**
   * How the kernel follows the cluster: 'incremental' (default) adds and removes one job
   * per start and end (engine/dense-kernel.ts); 'reload' writes the whole cluster again
   * before a question after any change — the slow path, kept to check that both decide alike.
   */
  kernelUpdates?: 'incremental' | 'reload';
  /**
   * The scheduler's cycle (ms): queues are tried at multiples of it, as PAI's and
   * Kubernetes' schedulers run in cycles; 0 or absent = after every event.
   */
  cycle?: number;
  /** Chart sample spacing (ms); default: the run's span / 240, at least a minute. */
  sampleEvery?: number;
  /** Called now and then with the share of arrivals processed. */
  onProgress?: (done: number, total: number) => void;
  /** Called after every step with the live state (invariant tests). */
  onStep?: (view: SimView) => void;
  /** Called when a quota job starts on the cluster, with how it starts (start estimates). */
  onStart?: (start: SimStart) => void;
}

/** What a step looks like from outside (tests of invariants over time). */
export interface SimView {
  t: number;
  snapshot: Snapshot;
  spot: Array<{ type: string; price: number; inventory: number; running: Array<{ job: string; bid: number; startedAt: number; pods: number }> }>;
  protection: Map<string, number>;
  /** A waiting quota job's place in the order its queue's strategy tries it now (0 = next), or -1. */
  queuePosition: (job: string) => number;
}
