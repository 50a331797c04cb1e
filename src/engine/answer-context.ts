/**
 * Everything one answer needs about its submission, computed once (SEMANTICS 3 and 5.2):
 * the job's quota and pool, its gang as a kernel request, its total request, whether it
 * may borrow, and for each way it could run on quota (`in-quota`, `borrowing`) what that
 * way would overrun now and what it overruns even on an empty cluster. whatif.ts, the
 * preemption problem and the reasons all read it; none recomputes it.
 */
import type { GangRequest } from '../kernel/types.js';
import type { JobSpec, Pool, Quota } from '../model/policy.js';
import { inRange } from '../model/priority.js';
import type { ResourceName } from '../model/resources.js';
import type { EligibilityTables } from '../rules/eligibility-table.js';
import { gangRequest } from './gang.js';
import type { Snapshot } from './snapshot.js';
import { bindingOverruns, neverFits, overruns, totalRequest, type Overrun } from './usage.js';
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
  /** Overruns even with nothing running: no victim set can ever open this way. */
  never: Overrun[];
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
  /** SEMANTICS 5.2: a non-root quota with selfPreemption whose highPriority holds the job's priority. */
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
  const sp = quota.selfPreemption;
  const mayBorrow = quota.parent !== null && sp !== undefined && inRange(sp.highPriority, job.priority);
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
    mayBorrow,
    inQuota: way('in-quota'),
    borrowing: mayBorrow ? way('borrowing') : undefined,
  };
  return ctx;
}

/** What running `need` on quota `q` as `standing` would overrun, now and on an empty cluster. */
export function wayOf(snap: Snapshot, q: number, need: Record<ResourceName, number>, standing: Way['standing']): Way {
  const over = overruns(snap.tree, snap.usage, q, need, standing);
  return { standing, over, binding: bindingOverruns(over), never: neverFits(snap.tree, q, need, standing) };
}

/** The ways the job could run on quota: in quota, then borrowing when it may. */
export function waysOf(ctx: AnswerContext): Way[] {
  return ctx.borrowing ? [ctx.inQuota, ctx.borrowing] : [ctx.inQuota];
}
