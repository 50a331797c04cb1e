/**
 * Everything one answer needs about its submission, computed once (SEMANTICS 3 and 5.2):
 * the job's quota and pool, its gang as a kernel request, its total request, the rule
 * that lets it borrow (if any), and for each way it could run on quota (`in-quota`,
 * `borrowing`) what that way would overrun now — guarantees and ceilings — and what it
 * overruns even on an empty cluster. whatif.ts, the preemption problem and the reasons
 * all read it; none recomputes it.
 */
import type { GangRequest } from '../kernel/types.js';
import type { JobSpec, Pool, Quota } from '../model/policy.js';
import type { ResourceName } from '../model/resources.js';
import type { CompiledRule } from '../rules/compile-rules.js';
import type { EligibilityTables } from '../rules/eligibility-table.js';
import { gangRequest } from './gang.js';
import type { Snapshot } from './snapshot.js';
import { bindingOverruns, ceilingOverruns, ceilingUsage, hasCeilings, neverFits, overruns, totalRequest, zeroUsage, type Overrun } from './usage.js';
import type { Viewer } from './visibility.js';

/** What the engine needs to answer: the snapshot (with its loaded kernel) and the rules' tables. */
export interface EngineContext {
  snapshot: Snapshot;
  tables: EligibilityTables;
  /** Who is asking: sentences name only the jobs they may see (visibility.ts). */
  viewer?: Viewer | undefined;
}

/** One way the job could run on quota, and what stands in its way. */
export interface Way {
  standing: 'in-quota' | 'borrowing';
  /** Every quota and resource this way overruns now (SEMANTICS 3), from the job's quota up. */
  over: Overrun[];
  /** The overruns victims must relieve: `over` without those a lower one implies (usage.ts). */
  binding: Overrun[];
  /**
   * Overruns even with nothing running — a guarantee or a ceiling the job alone exceeds:
   * no victim set can ever open this way.
   */
  never: Overrun[];
  /**
   * The ceilings (SEMANTICS 3, `max`) this way overruns now, from the job's quota up, its
   * own quota's included in both ways. Victims are never chosen to relieve them (a
   * ceiling never makes a running job a victim): they only close the way (whatif.ts).
   */
  ceilings: Overrun[];
}

/** One submission's context. */
export interface AnswerContext extends EngineContext {
  query: string;
  job: JobSpec;
  /** The job's quota, as an index of `snapshot.tree` and as the model's object. */
  q: number;
  quota: Quota;
  pool: Pool;
  poolIdx: number;
  req: GangRequest;
  need: Record<ResourceName, number>;
  /** SEMANTICS 5.2: the rule that lets the job run borrowing (`<Q>/borrowing`, rules/borrowing-table.ts), or undefined. */
  borrowRule: CompiledRule | undefined;
  /** True when `borrowRule` is set. */
  mayBorrow: boolean;
  inQuota: Way;
  /** Present when `mayBorrow`. */
  borrowing?: Way | undefined;
}

/** Builds the context of `job` against the engine's snapshot. */
export function answerContext(engine: EngineContext, query: string, job: JobSpec): AnswerContext {
  const snap = engine.snapshot;
  const q = snap.tree.indexOf(job.quota);
  const quota = snap.tree.quotas[q]!;
  const pool = snap.poolOf(job.quota);
  const poolIdx = snap.poolIndexOf(job.quota);
  const need = totalRequest(job);
  const borrowRule = engine.tables.borrowing.ruleFor(q, job.priority);
  const mayBorrow = borrowRule !== undefined;
  const way = (standing: Way['standing']): Way => wayOf(snap, q, need, standing);
  // An explicit literal: one hidden class for every context (a spread makes the shape vary).
  const ctx: AnswerContext = {
    snapshot: engine.snapshot,
    tables: engine.tables,
    viewer: engine.viewer,
    query,
    job,
    q,
    quota,
    pool,
    poolIdx,
    req: gangRequest(job, poolIdx, pool, snap.modelsOf(job)),
    need,
    borrowRule,
    mayBorrow,
    inQuota: way('in-quota'),
    borrowing: mayBorrow ? way('borrowing') : undefined,
  };
  return ctx;
}

/** What running `need` on quota `q` as `standing` would overrun, now and on an empty cluster. */
export function wayOf(snap: Snapshot, q: number, need: Record<ResourceName, number>, standing: Way['standing']): Way {
  const tree = snap.tree;
  const over = overruns(tree, snap.usage, q, need, standing);
  const never = neverFits(tree, q, need, standing);
  // A policy without `max` reads no ceiling usage at all.
  if (!hasCeilings(tree)) return { standing, over, binding: bindingOverruns(over), never, ceilings: [] };
  const alone = ceilingOverruns(tree, zeroUsage(tree), q, need);
  return { standing, over, binding: bindingOverruns(over), never: alone.length ? [...never, ...alone] : never, ceilings: ceilingOverruns(tree, ceilingUsage(snap), q, need) };
}

/** The ways the job could run on quota: in quota, then borrowing when it may. */
export function waysOf(ctx: AnswerContext): Way[] {
  return ctx.borrowing ? [ctx.inQuota, ctx.borrowing] : [ctx.inQuota];
}
