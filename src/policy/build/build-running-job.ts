/**
 * One running job of a Cluster document, built in named steps: its name claimed (a second
 * job of that name is a duplicate), its spec resolved against the quotas and workspaces
 * and their access rules, its standing (SEMANTICS 2), its start and expected end, and its
 * placement (place-pods.ts). The first step with a finding stops the job; the snapshot
 * goes on with the next.
 *
 * Its own room because a running job is the one part of a snapshot that is read against
 * everything else: names, times, nodes and the GPUs other jobs hold. build-cluster.ts
 * only walks the documents and hands each job here.
 */
import type { ClusterNode, JobSpec, PodPlacementSpec, RunningJob, Standing } from '../../model/policy.js';
import type { Collector } from '../collector.js';
import { accessRefusal } from './access.js';
import { buildJobSpec, type NameIndex } from './build-job.js';
import { parseDurationField, parseTimeField } from './parse-fields.js';
import { checkPlacement, type GpuHolders } from './place-pods.js';
import type { RunningJobInput } from '../validate/schema.js';
import { sourceAt, type PathSeg, type SourceDoc } from '../parse/source-doc.js';

/** Where each job came from, for findings made after building. */
export type JobOrigins = Map<string, { sd: SourceDoc; path: PathSeg[]; derive?: boolean }>;

/** What every running job of one snapshot is built against, and what building them records. */
export interface RunningJobContext {
  readonly names: NameIndex;
  /** The snapshot time. */
  readonly at: number;
  /** A malformed `at` was one finding already: the time it fell back to must not make every job "start after the snapshot". */
  readonly atBroken: boolean;
  readonly nodes: Map<string, ClusterNode>;
  /** Where each job so far was declared (a second job of a name is a duplicate). */
  readonly origins: JobOrigins;
  /** The GPUs the jobs so far hold, whole or shared (place-pods.ts). */
  readonly holders: GpuHolders;
  /** Start times already read, by their text (jobs of a snapshot share many): only good ones are kept. */
  readonly times: Map<string, number>;
}

/** The running job `input` at `path`, or undefined after a finding. */
export function buildRunningJob(c: Collector, sd: SourceDoc, path: PathSeg[], input: RunningJobInput, ctx: RunningJobContext): RunningJob | undefined {
  if (!claimName(c, sd, path, input.name, ctx.origins)) return undefined;
  const spec = resolveSpec(c, sd, path, input, ctx.names);
  if (!spec) return undefined;
  const standing = resolveStanding(c, sd, path, input, ctx.names);
  if (!standing) return undefined;
  const startedAt = readStartedAt(c, sd, path, input, spec.name, ctx);
  if (startedAt === undefined) return undefined;
  const expectedEnd = buildExpectedEnd(c, sd, path, input, spec.name, startedAt, ctx.at, ctx.atBroken);
  if (expectedEnd === null) return undefined;
  const placement = input.placement ?? [];
  if (input.placement && !checkPlacement(c, sd, path, spec, placement, ctx.names.quotas.get(spec.quota)!.pool, ctx.nodes, ctx.holders)) return undefined;
  return runningJob(spec, standing, startedAt, expectedEnd, placement.map(podPlacement));
}

/** Records where job `name` is declared; false (after a finding) when a job of that name already is. */
function claimName(c: Collector, sd: SourceDoc, path: PathSeg[], name: string, origins: JobOrigins): boolean {
  const o = origins.get(name);
  if (o) {
    const s = sourceAt(o.sd, o.path);
    c.error(sd, [...path, 'name'], 'policy/duplicate-job', `job "${name}" is already declared at ${s.file}:${s.line}:${s.column}`, 'job names are unique in a snapshot; rename one');
    return false;
  }
  origins.set(name, { sd, path });
  return true;
}

/** The job's spec with its names resolved, if its workspace may use its quota and module (access.ts); undefined after a finding. */
function resolveSpec(c: Collector, sd: SourceDoc, path: PathSeg[], input: RunningJobInput, names: NameIndex): JobSpec | undefined {
  const spec = buildJobSpec(c, sd, path, input, names);
  if (!spec) return undefined;
  const ws = names.workspaces.get(spec.workspace)!;
  const refusal = accessRefusal(spec, ws, names.quotas.get(spec.quota)!);
  if (refusal) {
    c.error(
      sd,
      [...path, refusal.field],
      refusal.code,
      `running job "${spec.name}": ${refusal.message} (${refusal.rule} at ${refusal.src.file}:${refusal.src.line}:${refusal.src.column})`,
      refusal.hint,
    );
    return undefined;
  }
  return spec;
}

/** SEMANTICS 2: an `only` job is idle; others in-quota unless stated; contradictions are errors. */
function resolveStanding(c: Collector, sd: SourceDoc, path: PathSeg[], input: RunningJobInput, names: NameIndex): Standing | undefined {
  const mode = input.idleResources ?? 'none';
  const standing: Standing = input.standing ?? (mode === 'only' ? 'idle' : 'in-quota');
  if (mode === 'only' && standing !== 'idle') {
    c.error(
      sd,
      [...path, 'standing'],
      'policy/standing-conflict',
      `job "${input.name}" has idleResources: only, so it runs idle, not ${standing}`,
      'remove standing, or change idleResources to none or acceptable',
    );
    return undefined;
  }
  if (mode === 'none' && standing === 'idle') {
    c.error(
      sd,
      [...path, 'standing'],
      'policy/standing-conflict',
      `job "${input.name}" has idleResources: none, so it cannot run idle`,
      'set idleResources: acceptable or only for a job that runs on idle capacity',
    );
    return undefined;
  }
  if (standing === 'borrowing' && names.quotas.get(input.quota)?.parent === null) {
    c.error(
      sd,
      [...path, 'standing'],
      'policy/borrowing-at-root',
      `job "${input.name}" is borrowing on root quota "${input.quota}", which has no siblings to borrow from`,
      'a root quota can only run in-quota jobs',
    );
    return undefined;
  }
  return standing;
}

/** When the job started: `startedAt`, at or before the snapshot time, else the snapshot time; undefined after a finding. */
function readStartedAt(c: Collector, sd: SourceDoc, path: PathSeg[], input: RunningJobInput, job: string, ctx: RunningJobContext): number | undefined {
  if (input.startedAt === undefined) return ctx.at;
  let t = ctx.times.get(input.startedAt);
  if (t === undefined) {
    t = parseTimeField(c, sd, [...path, 'startedAt'], input.startedAt);
    if (t === undefined) return undefined;
    ctx.times.set(input.startedAt, t);
  }
  if (t > ctx.at && !ctx.atBroken) {
    c.error(sd, [...path, 'startedAt'], 'policy/started-after-snapshot', `job "${job}" starts after the snapshot time`, "a running job must have started at or before the Cluster's `at`");
    return undefined;
  }
  return t;
}

/**
 * When a running job is expected to end: `expectedEnd` (a time), or `startedAt + duration`;
 * undefined when neither is given, null after a finding. Both at once is a conflict (one
 * would silently win), and an end before the snapshot time is a job that should be gone.
 */
function buildExpectedEnd(c: Collector, sd: SourceDoc, path: PathSeg[], input: RunningJobInput, job: string, startedAt: number, at: number, atBroken: boolean): number | undefined | null {
  if (input.expectedEnd !== undefined && input.duration !== undefined) {
    c.error(sd, [...path, 'duration'], 'policy/conflicting-end', `job "${job}" gives both expectedEnd and duration`, 'give one of them: expectedEnd (a time) or duration (from startedAt)');
    return null;
  }
  let end: number | undefined;
  let field = 'expectedEnd';
  if (input.expectedEnd !== undefined) {
    end = parseTimeField(c, sd, [...path, 'expectedEnd'], input.expectedEnd);
  } else if (input.duration !== undefined) {
    field = 'duration';
    const d = parseDurationField(c, sd, [...path, 'duration'], input.duration);
    end = d === undefined ? undefined : startedAt + d;
  } else return undefined;
  if (end === undefined) return null;
  if (end < at && !atBroken) {
    c.error(
      sd,
      [...path, field],
      'policy/ended-before-snapshot',
      `job "${job}" is expected to end at ${new Date(end).toISOString()}, before the snapshot time ${new Date(at).toISOString()}`,
      "a running job ends at or after the Cluster's `at`: correct its expected end, or remove the job if it has ended",
    );
    return null;
  }
  return end;
}

/**
 * The running job: the spec's fields, then the snapshot's. One object literal in the usual
 * case (no gpuModels, no expected end): every field in the object itself, one allocation.
 * Otherwise Object.assign onto a fresh object, so each kind of job still has one hidden
 * class — a `{ ...spec, extra }` literal gives nearly each job its own, and every per-job
 * read after that goes megamorphic (measured: ~14x slower reads on B3's 38,633 jobs).
 * The keys are the same either way: gpuModels and expectedEnd only when set.
 */
function runningJob(spec: JobSpec, standing: Standing, startedAt: number, expectedEnd: number | undefined, placement: PodPlacementSpec[]): RunningJob {
  if (!('gpuModels' in spec) && expectedEnd === undefined) {
    return {
      name: spec.name,
      workspace: spec.workspace,
      quota: spec.quota,
      module: spec.module,
      priority: spec.priority,
      pods: spec.pods,
      resources: spec.resources,
      idleResources: spec.idleResources,
      checkpoint: spec.checkpoint,
      faultTolerance: spec.faultTolerance,
      submittedBy: spec.submittedBy,
      maxRuntime: spec.maxRuntime,
      src: spec.src,
      standing,
      startedAt,
      placement,
      placedByEngine: false,
    };
  }
  return Object.assign({}, spec, { standing, startedAt, ...(expectedEnd !== undefined ? { expectedEnd } : {}), placement, placedByEngine: false });
}

/** A pod's placement as the model holds it: its GPU indices sorted, or marked to be assigned (given by count). */
function podPlacement(p: { node: string; gpus?: number[] }): PodPlacementSpec {
  return p.gpus ? { node: p.node, gpus: sortedCopy(p.gpus) } : { node: p.node, gpus: [], indicesAssigned: true };
}

/** A copy of GPU indices in ascending order (they usually are already: then no sort). */
function sortedCopy(gpus: readonly number[]): number[] {
  const out = gpus.slice();
  for (let i = 1; i < out.length; i++) if (out[i]! < out[i - 1]!) return out.sort((a, b) => a - b);
  return out;
}
