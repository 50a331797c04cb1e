/**
 * A Cluster's `queue` → the jobs waiting at the snapshot time (SEMANTICS 8, "Queues at
 * one instant"). A queued job has a submission's fields, when it was submitted and,
 * for simulations, the running time it needs; it holds nothing, so nothing of a running
 * job's placement or standing applies. Checks, each located at its field: the names it
 * gives exist (build-job.ts), its workspace may submit it there (access.ts, the rule a
 * running job meets), its name is no running or other queued job's
 * (`policy/duplicate-job`), `submittedAt` is a time at or before the snapshot's `at`
 * (`policy/submitted-after-snapshot`) and `duration` a duration.
 */
import type { QueuedJob } from '../../model/policy.js';
import { accessRefusal } from './access.js';
import { buildJobSpec, type NameIndex } from './build-job.js';
import type { Collector } from '../collector.js';
import { parseDurationField, parseTimeField } from './parse-fields.js';
import type { QueuedJobInput } from '../validate/schema.js';
import { sourceAt, type PathSeg, type SourceDoc } from '../parse/source-doc.js';

/** What reading the queue needs of the Cluster being built. */
export interface QueueContext {
  names: NameIndex;
  /** The snapshot's time (epoch ms). */
  at: number;
  /** True when `at` itself did not parse: times are then not compared with it. */
  atBroken: boolean;
  /** Where every job (running and queued) was declared, by name: a second one is a duplicate (build-cluster.ts JobOrigins). */
  origins: Map<string, { sd: SourceDoc; path: PathSeg[] }>;
}

/** The queued jobs of one Cluster document, in file order; a job with a finding is left out. */
export function buildQueue(c: Collector, sd: SourceDoc, inputs: readonly QueuedJobInput[], ctx: QueueContext): QueuedJob[] {
  const out: QueuedJob[] = [];
  inputs.forEach((input, i) => {
    const job = buildQueuedJob(c, sd, ['spec', 'queue', i], input, ctx);
    if (job) out.push(job);
  });
  return out;
}

function buildQueuedJob(c: Collector, sd: SourceDoc, path: PathSeg[], input: QueuedJobInput, ctx: QueueContext): QueuedJob | undefined {
  const first = ctx.origins.get(input.name);
  if (first) {
    const s = sourceAt(first.sd, first.path);
    c.error(
      sd,
      [...path, 'name'],
      'policy/duplicate-job',
      `queued job "${input.name}" has the name of the job declared at ${s.file}:${s.line}:${s.column}`,
      'job names are unique in a snapshot, running and queued alike; rename one',
    );
    return undefined;
  }
  ctx.origins.set(input.name, { sd, path });
  const { submittedAt: submittedText, duration: durationText, ...fields } = input;
  const spec = buildJobSpec(c, sd, path, fields, ctx.names);
  const submittedAt = parseTimeField(c, sd, [...path, 'submittedAt'], submittedText);
  const duration = durationText === undefined ? undefined : parseDurationField(c, sd, [...path, 'duration'], durationText);
  if (!spec || submittedAt === undefined || (durationText !== undefined && duration === undefined)) return undefined;
  const refusal = accessRefusal(spec, ctx.names.workspaces.get(spec.workspace)!, ctx.names.quotas.get(spec.quota)!);
  if (refusal) {
    c.error(
      sd,
      [...path, refusal.field],
      refusal.code,
      `queued job "${spec.name}": ${refusal.message} (${refusal.rule} at ${refusal.src.file}:${refusal.src.line}:${refusal.src.column})`,
      refusal.hint,
    );
    return undefined;
  }
  if (submittedAt > ctx.at && !ctx.atBroken) {
    c.error(
      sd,
      [...path, 'submittedAt'],
      'policy/submitted-after-snapshot',
      `queued job "${spec.name}" is submitted at ${new Date(submittedAt).toISOString()}, after the snapshot time ${new Date(ctx.at).toISOString()}`,
      "a job waiting at the snapshot time was submitted at or before the Cluster's `at`",
    );
    return undefined;
  }
  return Object.assign({}, spec, { submittedAt }, duration === undefined ? {} : { duration });
}
