/**
 * A workload for `quotient simulate`: jobs that arrive at a simulated time and need a
 * given amount of work. Times are milliseconds from the start of the simulation.
 */
import type { Finding } from '../errors.js';
import type { JobSpec } from '../model/policy.js';

/** How a spot job bids (SEMANTICS 6). Prices are per instance-hour (docs/simulate.md). */
export interface SpotBid {
  instanceType: string;
  /** Absolute bid, per instance-hour (general-purpose resources). */
  priceLimit?: number;
  /** Share of the pay-as-you-go price, 0.1..0.9 in steps of 0.1 (Lingjun only). */
  discountLimit?: number;
}

/** One job of the workload. */
export interface SimJob {
  /** What the engine is asked about: workspace, quota, module, priority, gang, idle mode, checkpoint, fault tolerance. */
  spec: JobSpec;
  /** Submission time, ms from the start. */
  submit: number;
  /** Work to do, ms of running time. */
  duration: number;
  /** A spot job bids on the market instead of queueing on its quota. */
  spot?: SpotBid;
}

/** A workload with the rows it could not take, each a located finding. */
export interface Workload {
  /** Where it came from (a file, the openb trace, the PAI-shaped generator). */
  source: string;
  /** True when generated, not read from a real trace: the report says so. */
  synthetic: boolean;
  jobs: SimJob[];
  rejected: Finding[];
  /** How the source was mapped onto the policy (openb: QoS → priority, pods → teams). */
  notes: string[];
}

/** Sorts jobs by submission time, then name: the order arrivals are processed in. */
export function sortJobs(jobs: SimJob[]): SimJob[] {
  return jobs.sort((a, b) => a.submit - b.submit || (a.spec.name < b.spec.name ? -1 : a.spec.name > b.spec.name ? 1 : 0));
}
