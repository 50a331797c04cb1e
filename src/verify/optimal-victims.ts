/**
 * The exact optimum of SEMANTICS 5.3 by exhaustive search, for small cases: every subset
 * of the candidates is tried and the feasible one with the best cost wins. It is the
 * yardstick for the kernel's greedy + reprieve (B4 and the optimality property); it is
 * exponential, so it refuses more than `MAX_CANDIDATES` candidates.
 *
 * Cost order (the preference order of 5.3, criteria 1-4):
 *   1. the most important victim, as (standing rank, priority), lower is better;
 *   2. total lost GPU-hours; 3. GPUs freed; 4. number of victims.
 * Criterion 5 (recency, name) only breaks ties and is not part of the cost.
 */
import { fitsOf, WorkingNodes } from '../kernel/reference-placement.js';
import { popcount } from '../kernel/gpu-mask.js';
import type { Candidate, GangRequest, KernelSnapshot, QuotaConstraint } from '../kernel/types.js';
import { compareCost, victimSetCost, type VictimSetCost } from '../engine/victim-cost.js';

export { compareCost, victimSetCost, type VictimSetCost };

export const MAX_CANDIDATES = 16;

/** True when preempting `jobs` satisfies every constraint and leaves room for the gang. */
export function feasible(state: KernelSnapshot, req: GangRequest, candidates: Candidate[], chosen: number[], constraints: QuotaConstraint[]): boolean {
  const deficit = constraints.map((c) => c.deficit);
  const nodes = new WorkingNodes(state.nodes);
  for (const k of chosen) {
    const c = candidates[k];
    const job = state.jobs[c.job];
    for (const pod of job.pods) {
      const n = nodes.edit(pod.node);
      n.usedMask = (n.usedMask & ~pod.mask) >>> 0;
      n.freeCpu += pod.cpu;
      n.freeMem += pod.mem;
      constraints.forEach((con, i) => {
        if (!((c.constraintMask >>> i) & 1)) return;
        deficit[i] -= con.resource === 0 ? popcount(pod.mask) : con.resource === 1 ? pod.cpu : pod.mem;
      });
    }
  }
  if (deficit.some((d) => d > 0)) return false;
  let fits = 0;
  state.nodes.forEach((node, i) => {
    if (node.pool === req.pool) fits += fitsOf(nodes, i, req);
  });
  return fits >= req.pods;
}

/** The best feasible victim set (kernel job indices) and its cost, or undefined when none is feasible. */
export function optimalVictims(state: KernelSnapshot, req: GangRequest, candidates: Candidate[], constraints: QuotaConstraint[]): { jobs: number[]; cost: VictimSetCost } | undefined {
  if (candidates.length > MAX_CANDIDATES) throw new Error(`exhaustive search refuses ${candidates.length} candidates (at most ${MAX_CANDIDATES})`);
  let best: { jobs: number[]; cost: VictimSetCost } | undefined;
  const n = candidates.length;
  for (let mask = 0; mask < 1 << n; mask++) {
    const chosen: number[] = [];
    for (let k = 0; k < n; k++) if ((mask >>> k) & 1) chosen.push(k);
    const jobs = chosen.map((k) => candidates[k].job);
    const cost = victimSetCost(state, jobs);
    if (best && compareCost(cost, best.cost) >= 0) continue;
    if (feasible(state, req, candidates, chosen, constraints)) best = { jobs, cost };
  }
  return best;
}
