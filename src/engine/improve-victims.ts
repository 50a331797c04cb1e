/**
 * A second look at the kernel's victim set, for SEMANTICS 5.3's criteria 2-4.
 *
 * The kernel's greedy pass sorts candidates by (standing, priority) first, so the level
 * of the most important victim — criterion 1 — is optimal (docs/semantics.md §7). But
 * within that level it stops at the first feasible prefix of the priority order, and
 * may take several jobs where one cheaper job, further down that order, would do.
 *
 * The second look keeps the level and changes the order: among the candidates no more
 * important than the set's most important victim and losing no more than the whole set,
 * sorted by lost work, then GPUs, it
 * finds the shortest feasible prefix (feasibility is monotone, so a binary search: about
 * log2(candidates) kernel calls) and lets the kernel choose a minimal set inside it. The
 * cheaper of the two sets (lost work, then GPUs, then victims) is the answer. Both are
 * minimal and share the optimal criterion-1 level, so invariants 3 and 4 still hold.
 */
import type { Candidate, GangRequest, Kernel, KernelSnapshot, QuotaConstraint, VictimResult } from '../kernel/types.js';
import { compareCost, victimSetCost } from './victim-cost.js';

/** The better of the kernel's set and the lost-work-ordered one. */
export function improveVictims(kernel: Kernel, state: KernelSnapshot, req: GangRequest, candidates: Candidate[], constraints: QuotaConstraint[], first: VictimResult): VictimResult {
  if (!first.ok || first.victims.length === 0) return first;
  const firstCost = victimSetCost(state, first.victims);
  const level = (j: number) => state.jobs[j];
  // Lost work is a sum of non-negative parts: a job losing more than the whole first set
  // cannot be in a cheaper set. Keeping only the rest keeps the search short (B3).
  const within = candidates.filter((c) => {
    const job = level(c.job);
    const sameLevel = job.rank < firstCost.rank || (job.rank === firstCost.rank && job.priority <= firstCost.priority);
    return sameLevel && job.lostWork <= firstCost.lostWork;
  });
  if (within.length <= first.victims.length) return first;
  within.sort((a, b) => {
    const x = level(a.job);
    const y = level(b.job);
    return x.lostWork - y.lostWork || x.gpus - y.gpus || y.startedAt - x.startedAt || x.order - y.order;
  });
  // The whole `within` is feasible (it holds the first set); find the shortest feasible prefix.
  let lo = 1;
  let hi = within.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (kernel.selectVictims(req, within.slice(0, mid), constraints).ok) hi = mid;
    else lo = mid + 1;
  }
  const second = kernel.selectVictims(req, within.slice(0, lo), constraints);
  if (!second.ok) return first;
  return compareCost(victimSetCost(state, second.victims), firstCost) < 0 ? second : first;
}
