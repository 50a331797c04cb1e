/**
 * Which running jobs a submission may preempt, and under which rule: one table lookup
 * per job (the table is the rules, run once for this preemptor class). Each candidate
 * also says which quota overruns its preemption relieves.
 */
import type { Candidate } from '../kernel/types.js';
import type { CompiledRule } from '../rules/compile-rules.js';
import type { EligibilityTable } from '../rules/eligibility-table.js';
import type { Snapshot } from './snapshot.js';
import { countsAt, type Overrun } from './usage.js';

export interface CandidateSet {
  candidates: Candidate[];
  /** The rule per candidate job index. */
  ruleOf: Map<number, CompiledRule>;
}

/** Eligible jobs under `table` (one preemptor class and target), against `overruns`. */
export function findCandidates(snap: Snapshot, table: EligibilityTable, pool: number, overruns: Overrun[]): CandidateSet {
  const candidates: Candidate[] = [];
  const ruleOf = new Map<number, CompiledRule>();
  const tree = snap.tree;
  snap.jobs.forEach((job, i) => {
    const vq = tree.indexOf(job.quota);
    const rule = table.lookup(vq, job.priority, job.module, job.standing);
    if (!rule) return;
    let mask = 0;
    overruns.forEach((o, k) => {
      if (countsAt(tree, job.standing, vq, o.quota)) mask |= 1 << k;
    });
    // A job that relieves no overrun and holds nothing in the pool cannot help: skip it.
    const inPool = snap.state.jobs[i].pods.some((p) => snap.state.nodes[p.node].pool === pool);
    if (mask === 0 && !inPool) return;
    candidates.push({ job: i, constraintMask: mask >>> 0 });
    ruleOf.set(i, rule);
  });
  return { candidates, ruleOf };
}
