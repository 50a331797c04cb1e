/**
 * A job given as values → a JobSpec, by exactly the rules a WhatIf document's `submit`
 * meets when it is read from a file: the `anyJobSpec` schema (any int32 priority: PAI's 1..9
 * is build-job.ts's check, by the quota's rules) (validate-schema.ts
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
import { anyJobSpec } from '../validate/schema.js';
import type { Doc, PathSeg } from '../parse/source-doc.js';
import { validateValue } from '../validate/validate-schema.js';

/** The JobSpec of `value` (found at `prefix` of `sd`), or every finding that stops it, tagged with its stage. */
export function readJob(sd: Doc, prefix: PathSeg[], value: unknown, names: NameIndex): { job: JobSpec; findings: Finding[] } | { job?: undefined; findings: Finding[] } {
  const checked = validateValue(sd, prefix, value, anyJobSpec);
  if (checked.data === undefined) return { findings: tagStage(checked.findings, 'validate') };
  const c = new Collector();
  const job = buildJobSpec(c, sd, prefix, checked.data, names);
  const findings = tagStage(c.findings, 'build');
  return job ? { job, findings } : { findings };
}
