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

/**
 * Eligible jobs under `table` (one preemptor class and target), against `overruns`.
 * The hot path of an answer on a big snapshot: per running job it reads the snapshot's
 * per-job typed arrays and the table's cell, and tests the few overruns.
 */
export function findCandidates(snap: Snapshot, table: EligibilityTable, pool: number, overruns: Overrun[]): CandidateSet {
  const candidates: Candidate[] = [];
  const ruleOf = new Map<number, CompiledRule>();
  const tree = snap.tree;
  const { jobQuota, jobCombo, jobPool } = snap.index;
  for (let i = 0; i < jobQuota.length; i++) {
    const vq = jobQuota[i];
    const cell = table.cellFor(vq!, jobCombo[i]!); // index arrays are sized by the job count
    if (cell === 0) continue;
    let mask = 0;
    for (let k = 0; k < overruns.length; k++) {
      if (countsAt(tree, snap.jobs[i]!.standing, vq!, overruns[k]!.quota)) mask |= 1 << k;
    }
    // A job that relieves no overrun and holds nothing in the pool cannot help: skip it.
    if (mask === 0 && jobPool[i] !== pool) continue;
    candidates.push({ job: i, constraintMask: mask >>> 0 });
    ruleOf.set(i, table.ruleAt(cell)!);
  }
  return { candidates, ruleOf };
}
