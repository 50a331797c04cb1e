/**
 * The victim-selection problem of one submission for one target standing: the gang,
 * the quota overruns to relieve, and the eligible candidates. whatif.ts hands it to the
 * kernel; the exact-optimum search (verify/optimal-victims.ts) solves the same problem.
 */
import type { Candidate, GangRequest, QuotaConstraint } from '../kernel/types.js';
import { CRITERIA, type CriterionId, type VictimOrder } from '../kernel/victim-order.js';
import type { JobSpec, Pool } from '../model/policy.js';
import type { VictimCriterion } from '../model/victim-order.js';
import type { CompiledRule } from '../rules/compile-rules.js';
import type { EligibilityTables } from '../rules/eligibility-table.js';
import { findCandidates } from './candidates.js';
import { gangRequest } from './gang.js';
import type { Snapshot } from './snapshot.js';
import { bindingOverruns, overruns, totalRequest, type Overrun } from './usage.js';

export interface PreemptionProblem {
  req: GangRequest;
  over: Overrun[];
  constraints: QuotaConstraint[];
  candidates: Candidate[];
  ruleOf: Map<number, CompiledRule>;
  /** The pool's victimOrder as the kernel numbers the criteria. */
  order: VictimOrder;
}

/** The policy's criterion names to the kernel's numbers (one entry per name: the compiler checks it). */
const CRITERION_ID: Readonly<Record<VictimCriterion, CriterionId>> = {
  priority: CRITERIA.CRITERION_PRIORITY,
  'lost-work': CRITERIA.CRITERION_LOST_WORK,
  gpus: CRITERIA.CRITERION_GPUS,
  count: CRITERIA.CRITERION_COUNT,
  recency: CRITERIA.CRITERION_RECENCY,
};

/** A pool's victimOrder in the kernel's numbers. */
export function kernelOrder(pool: Pool): VictimOrder {
  return pool.victimOrder.map((name) => CRITERION_ID[name]);
}

/** Builds the problem of preempting for `job` to run as `target`. */
export async function preemptionProblem(snap: Snapshot, tables: EligibilityTables, job: JobSpec, target: 'in-quota' | 'borrowing'): Promise<PreemptionProblem> {
  const q = snap.tree.indexOf(job.quota);
  const poolIdx = snap.poolIndexOf(job.quota);
  const req = gangRequest(job, poolIdx, snap.poolOf(job.quota), snap.modelsOf(job));
  const over = bindingOverruns(overruns(snap.tree, snap.usage, q, totalRequest(job), target));
  const table = await tables.tableFor(q, job.priority, target);
  const { candidates, ruleOf } = findCandidates(snap, table, poolIdx, over);
  return { req, over, constraints: over.map((o) => ({ resource: o.resource, deficit: o.deficit })), candidates, ruleOf, order: kernelOrder(snap.poolOf(job.quota)) };
}
