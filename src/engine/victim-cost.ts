/**
 * The cost of a victim set in SEMANTICS 5.3's order, criteria 1-4: the most important
 * victim (standing rank, then priority), total lost GPU-hours, GPUs freed, victims.
 * Criterion 5 (recency, name) only breaks ties and is not part of the cost.
 */
import type { KernelSnapshot } from '../kernel/types.js';

export interface VictimSetCost {
  rank: number;
  priority: number;
  lostWork: number;
  gpus: number;
  count: number;
}

/** The cost of preempting `jobs` (kernel job indices). */
export function victimSetCost(state: KernelSnapshot, jobs: number[]): VictimSetCost {
  let rank = -1;
  let priority = 0;
  let lostWork = 0;
  let gpus = 0;
  for (const j of jobs) {
    const job = state.jobs[j];
    if (job.rank > rank || (job.rank === rank && job.priority > priority)) {
      rank = job.rank;
      priority = job.priority;
    }
    lostWork += job.lostWork;
    gpus += job.gpus;
  }
  return { rank, priority, lostWork: Math.round(lostWork * 100) / 100, gpus, count: jobs.length };
}

/** Negative when `a` is the better (cheaper) set. */
export function compareCost(a: VictimSetCost, b: VictimSetCost): number {
  return a.rank - b.rank || a.priority - b.priority || a.lostWork - b.lostWork || a.gpus - b.gpus || a.count - b.count;
}

