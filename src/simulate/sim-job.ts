/**
 * A job's state in a simulation run, shared by the rooms of the simulator: the event loop
 * (simulator.ts), the quota scheduler (quota-scheduler.ts), the spot market
 * (spot-exchange.ts) and the report (sim-report.ts).
 */
import type { QueueEntry } from '../engine/queue-order.js';
import type { Reason } from '../engine/reason-codes.js';
import type { Standing } from '../model/policy.js';
import type { EventHeap } from './event-heap.js';
import type { Metrics } from './metrics.js';
import type { SimJob } from './workload.js';

/** One simulated hour, ms. */
export const HOUR = 3_600_000;

export type Status = 'pending' | 'waiting' | 'running' | 'done' | 'preempted' | 'rejected';

export interface JobState {
  sim: SimJob;
  id: number;
  order: number;
  team: string;
  quota: number;
  status: Status;
  /** Work saved at checkpoints, ms. */
  progress: number;
  runId: number;
  runStart: number;
  standing: Standing;
  restarts: number;
  firstStart: number;
  entry?: Entry;
  /** Spot: instance type index and bid. */
  typeIdx: number;
  bid: number;
  costAt: number;
  /** A quota job's reasons at its last `wait` answer (the report's blocked heads). */
  reasons?: Reason[];
}

/** A quota job in its queue. */
export interface Entry extends QueueEntry {
  js: JobState;
}

/** GPUs a job holds by its request: pods × GPUs per pod. */
export function gpusOf(js: JobState): number {
  return js.sim.spec.pods * js.sim.spec.resources.gpu;
}

/**
 * What the rooms of a run share with its event loop (simulator.ts): the clock, the
 * cluster's version (bumped by every change the engine would see), the measures, the
 * event heap, the running jobs by name, and the bookkeeping of starts and interruptions.
 */
export interface SimCore {
  readonly now: number;
  /** Bumped at every change of the cluster: an answer memoised at an older version is asked again. */
  version: number;
  readonly metrics: Metrics;
  readonly heap: EventHeap;
  /** Running jobs by name (victims and releases are named). */
  readonly byName: Map<string, JobState>;
  /** Per job id, its state from arrival until it ends. */
  readonly jobs: Array<JobState | undefined>;
  /** Bookkeeping of a start, on the cluster or the market. */
  begin(js: JobState, standing: Standing): void;
  /** The work a job loses if stopped now, and what it keeps. */
  interrupt(js: JobState): { lost: number; kept: number };
  /** After a preemption or release: restart per faultTolerance (true), or end Preempted. */
  afterInterrupt(js: JobState, kept: number): boolean;
  /** Takes a running quota job off the cluster. */
  stopCluster(js: JobState): void;
}
