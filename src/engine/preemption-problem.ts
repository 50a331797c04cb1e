/**
 * The victim-selection problem of one submission for one way it could run (SEMANTICS
 * 5.1 and 5.3): the gang, the quota overruns the victims must relieve, and the eligible
 * candidates, each with the overruns its preemption relieves. whatif.ts hands one
 * problem per way to the kernel in one call; the exact-optimum search
 * (verify/optimal-victims.ts) solves the same problems.
 */
import type { Candidate, GangRequest, QuotaConstraint } from '../kernel/types.js';
import { packCandidates } from '../kernel/packed-candidates.js';
import type { VictimOrder } from '../kernel/victim-order.js';
import type { JobSpec, Pool } from '../model/policy.js';
import { victimCriterion } from '../model/victim-order.js';
import type { CompiledRule } from '../rules/compile-rules.js';
import type { EligibilityTable, EligibilityTables } from '../rules/eligibility-table.js';
import { answerContext, wayOf, type AnswerContext, type Way } from './answer-context.js';
import { EligibleRules, eligibleThroughIndex, jobListsOf } from './eligible-jobs.js';
import { VICTIM_STANDINGS } from '../rules/facts.js';
import type { Snapshot } from './snapshot.js';
import type { Overrun } from './usage.js';
import { countsAt } from '../model/usage-rule.js';

export interface PreemptionProblem {
  /** The standing the job gets when this problem's victims are chosen. */
  standing: Way['standing'];
  req: GangRequest;
  /** The binding overruns, in constraint order: bit k of a candidate's mask is over[k]. */
  over: Overrun[];
  constraints: QuotaConstraint[];
  candidates: Candidate[];
  /** The rule per candidate job index. */
  ruleOf: Map<number, CompiledRule>;
  /** The pool's victimOrder as the kernel numbers the criteria. */
  order: VictimOrder;
}

/** A pool's victimOrder in the kernel's numbers (the criteria table's ids, model/victim-order.ts). */
export function kernelOrder(pool: Pool): VictimOrder {
  return pool.victimOrder.map((name) => victimCriterion(name).id);
}

/** The problem of preempting for the context's job to run as `way` says. */
export async function problemFor(ctx: AnswerContext, way: Way): Promise<PreemptionProblem> {
  const table = await ctx.tables.tableFor(ctx.q, ctx.job.priority, way.standing);
  const { candidates, ruleOf } = findCandidates(ctx.snapshot, table, ctx.poolIdx, way.binding);
  return {
    standing: way.standing,
    req: ctx.req,
    over: way.binding,
    constraints: way.binding.map((o) => ({ resource: o.resource, deficit: o.deficit })),
    candidates,
    ruleOf,
    order: kernelOrder(ctx.pool),
  };
}

/** Builds the problem of preempting for `job` to run as `target` (for callers without a context: tests, benchmarks). */
export async function preemptionProblem(snap: Snapshot, tables: EligibilityTables, job: JobSpec, target: Way['standing']): Promise<PreemptionProblem> {
  const ctx = answerContext({ snapshot: snap, tables }, 'problem', job);
  return problemFor(ctx, target === 'in-quota' ? ctx.inQuota : (ctx.borrowing ?? wayOf(snap, ctx.q, ctx.need, 'borrowing')));
}

/** Eligible jobs and the rule that makes each eligible. */
export interface CandidateSet {
  candidates: Candidate[];
  /** The rule per candidate job index. */
  ruleOf: Map<number, CompiledRule>;
}

/**
 * Eligible jobs under `table` (one preemptor class and target), against `overruns`. A
 * candidate's mask has bit k when it counts in usage at overruns[k]'s quota (SEMANTICS
 * 3), so preempting it relieves that overrun. The set is a pure function of the snapshot
 * state, the table, the pool and the overruns' quotas, so it is built once per snapshot
 * state from the table's eligible jobs (`eligibleJobs`) and then read: a warm answer does
 * not walk the running jobs. Callers must not change the returned set.
 */
export function findCandidates(snap: Snapshot, table: EligibilityTable, pool: number, overruns: Overrun[]): CandidateSet {
  const eligible = eligibleJobs(snap, table);
  const key = `${pool}:${overruns.map((o) => o.quota).join(',')}`;
  let set = eligible.sets.get(key);
  if (!set) {
    set = candidatesOf(snap, eligible, pool, overruns);
    eligible.sets.set(key, set);
  }
  return set;
}

/** A table's eligible running jobs (nonzero cell), and the candidate sets built from them. */
interface EligibleJobs {
  jobs: Int32Array;
  cells: Int32Array;
  /** Candidate sets by pool and overrun quotas. */
  sets: Map<string, CandidateSet>;
  /** The rule of every eligible job, shared by the candidate sets (read on demand). */
  rules: EligibleRules;
}

/** The table's eligible running jobs, found once per table and snapshot state. */
function eligibleJobs(snap: Snapshot, table: EligibilityTable): EligibleJobs {
  const byTable = snap.memo('eligible-jobs', () => new WeakMap<EligibilityTable, EligibleJobs>());
  let found = byTable.get(table);
  if (found) return found;
  // Through the jobs-by-quota and jobs-by-combo lists (eligible-jobs.ts): a new table reads few jobs.
  const { jobs, cells } = eligibleThroughIndex(table, snap.index, jobListsOf(snap));
  found = { jobs, cells, sets: new Map(), rules: new EligibleRules({ jobs, cells }, table) };
  byTable.set(table, found);
  return found;
}

/** VICTIM_STANDINGS positions, as a combo's last digit holds them (eligible-jobs.ts `standingOfCombo`). */
const IDLE = VICTIM_STANDINGS.indexOf('idle');

/**
 * The candidates among a table's eligible jobs: a job's mask has bit k when it counts in
 * usage at overruns[k]'s quota (`countsAt`, SEMANTICS 3's one usage rule: an idle job
 * counts nowhere, a borrower not at its own quota); a job that relieves no overrun and
 * holds nothing in the pool cannot help and is left out.
 */
function candidatesOf(snap: Snapshot, eligible: EligibleJobs, pool: number, overruns: Overrun[]): CandidateSet {
  const candidates: Candidate[] = [];
  const tree = snap.tree;
  // A job that relieves nothing is the same candidate in every problem: one object per
  // snapshot state, shared (most candidates are idle jobs: a distinct question made ~8,000
  // objects per problem at 10,000 nodes, ~86,000 at 100,000, and their collection).
  // Callers never change a candidate (findCandidates).
  const { jobQuota, jobPool, jobCombo } = snap.index;
  const relievesNothing = snap.memo('candidates-relieving-nothing', () => new Array<Candidate | undefined>(jobQuota.length));
  const quotas = overruns.map((o) => o.quota);
  const jobs = eligible.jobs;
  // The list's columns beside it (kernel/packed-candidates.ts): the wasm kernel copies them, not the objects.
  const candidateJobs = new Int32Array(jobs.length);
  const candidateMasks = new Int32Array(jobs.length);
  for (let e = 0; e < jobs.length; e++) {
    const i = jobs[e]!;
    const vq = jobQuota[i]!;
    // The standing as the index holds it (a typed-array read, not a read of the job object: its combo tracks it).
    const standing = jobCombo[i]! % STANDINGS;
    let mask = 0;
    if (standing !== IDLE) {
      const named = VICTIM_STANDINGS[standing]!;
      for (let k = 0; k < quotas.length; k++) if (countsAt(tree, named, vq, quotas[k]!)) mask |= 1 << k;
    } else if (jobPool[i] !== pool) continue;
    if (mask === 0 && jobPool[i] !== pool) continue;
    candidateJobs[candidates.length] = i;
    candidateMasks[candidates.length] = mask;
    candidates.push(mask !== 0 ? { job: i, constraintMask: mask >>> 0 } : (relievesNothing[i] ??= { job: i, constraintMask: 0 }));
  }
  packCandidates(candidates, { jobs: candidateJobs.subarray(0, candidates.length), masks: candidateMasks.subarray(0, candidates.length) });
  return { candidates, ruleOf: eligible.rules };
}

const STANDINGS = VICTIM_STANDINGS.length;
