/**
 * A job given as values → a JobSpec, by exactly the rules a WhatIf document's `submit`
 * meets when it is read from a file: the `jobSpec` schema (`anyJobSpec`, any int32
 * priority, when its quota follows Kueue's rules) (validate-schema.ts
 * `validateValue`: unknown fields, types, ranges, control characters) and then the
 * builder (build-job.ts: names resolve, quantities and durations parse). A `--submit`
 * flag, an HTTP request body and a PAI request (once translated) all come this way, as
 * values: none is written out as YAML and parsed again.
 */
import type { Finding } from '../../errors.js';
import type { JobSpec } from '../../model/policy.js';
import { buildJobSpec, type NameIndex } from './build-job.js';
import { Collector } from '../collector.js';
import { tagStage } from '../stages.js';
import { anyJobSpec, jobSpec } from '../validate/schema.js';
import type { Doc, PathSeg } from '../parse/source-doc.js';
import { validateValue } from '../validate/validate-schema.js';

/** The JobSpec of `value` (found at `prefix` of `sd`), or every finding that stops it, tagged with its stage. */
export function readJob(sd: Doc, prefix: PathSeg[], value: unknown, names: NameIndex): { job: JobSpec; findings: Finding[] } | { job?: undefined; findings: Finding[] } {
  // A job for a quota under Kueue's rules takes any int32 priority; every other meets PAI's 1..9 in the schema, with its other problems at once.
  const quota = typeof value === 'object' && value !== null ? (value as { quota?: unknown }).quota : undefined;
  const kueue = typeof quota === 'string' && names.quotas.get(quota)?.kueue !== undefined;
  const checked = validateValue(sd, prefix, value, kueue ? anyJobSpec : jobSpec);
  if (checked.data === undefined) return { findings: tagStage(checked.findings, 'validate') };
  const c = new Collector();
  const job = buildJobSpec(c, sd, prefix, checked.data, names);
  const findings = tagStage(c.findings, 'build');
  return job ? { job, findings } : { findings };
}
