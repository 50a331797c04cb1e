/**
 * A policy's findings as one caller may read them: a finding may name a running job
 * ("job "train-b-llm" is borrowing ..."), and a caller who may not see that job reads its
 * hidden label instead, as in an answer (visibility.ts `redactAnswer`).
 */
import type { Finding } from '../../errors.js';
import type { RunningJob } from '../../model/policy.js';
import { scrubber, type Viewer } from '../visibility.js';
import { seesJob } from './job-entry.js';

/** `findings` with the name of every job of `jobs` that `viewer` may not see replaced in their message and hint. */
export function scrubFindings(findings: readonly Finding[], jobs: ReadonlyArray<Pick<RunningJob, 'name' | 'workspace' | 'quota'>>, viewer: Viewer | undefined): Finding[] {
  if (viewer === undefined || findings.length === 0) return [...findings];
  const hidden = jobs.filter((j) => !seesJob(viewer, j));
  if (hidden.length === 0) return [...findings];
  const scrub = scrubber(hidden);
  return findings.map((f) => ({ ...f, message: scrub(f.message), hint: scrub(f.hint) }));
}
