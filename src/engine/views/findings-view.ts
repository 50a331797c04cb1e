/**
 * A policy's findings as one caller may read them (SEMANTICS 10). A finding about a job
 * is located in that job's entry of the snapshot (its file and field path, e.g.
 * `spec.jobs[3]`): that location is the structure that says which job it concerns, so a
 * finding about a job the caller may not see is replaced whole by an anonymous one —
 * its workspace and the finding's code, never the job's name, priority, module or source
 * line (the `policy/derived-standing` finding names the job's exact priority). A finding
 * located elsewhere that still names a hidden job (a job listed beside another) reads
 * the hidden label instead, as the last guard: findings are the policy's text, never the
 * caller's, so no guess of the caller is ever confirmed by it.
 *
 * Computed once per policy version and view (`FindingsViews`): a what-if answer carries
 * the version's findings, and scanning every job per answer was most of a team member's
 * answer cost (issue 32).
 */
import type { Finding } from '../../errors.js';
import type { RunningJob } from '../../model/policy.js';
import { scrubber, type Viewer } from '../visibility.js';
import { seesJob } from './job-entry.js';

/** A job as findings locate it: its name, who may see it, and where its entry is (file and field path). */
export interface LocatedJob extends Pick<RunningJob, 'name' | 'workspace' | 'quota'> {
  /** The file and field path of the job's entry (`spec.jobs[3]`); absent when unknown. */
  at?: { file: string; path: string };
}

/** `findings` as `viewer` may read them (undefined: an administrator, who reads them all). */
export function viewFindings(findings: readonly Finding[], jobs: readonly LocatedJob[], viewer: Viewer | undefined): Finding[] {
  if (viewer === undefined || findings.length === 0) return [...findings];
  const hidden = jobs.filter((j) => !seesJob(viewer, j));
  if (hidden.length === 0) return [...findings];
  const entries = new Map<string, LocatedJob>();
  for (const j of hidden) if (j.at) entries.set(`${j.at.file}\u0000${j.at.path}`, j);
  const scrub = scrubber(hidden);
  return findings.map((f) => {
    const about = entryOf(f, entries);
    if (about) return anonymous(f, about);
    return { ...f, message: scrub(f.message), hint: scrub(f.hint) };
  });
}

/** The hidden job whose entry holds the finding's location, if any: its path is the entry's, or below it. */
function entryOf(f: Finding, entries: ReadonlyMap<string, LocatedJob>): LocatedJob | undefined {
  if (entries.size === 0) return undefined;
  const m = /^spec\.(?:jobs|queue)\[\d+\]/.exec(f.path);
  return m ? entries.get(`${f.file}\u0000${m[0]}`) : undefined;
}

/** A finding about a hidden job, as its viewer reads it: where and what it says of the job are gone. */
function anonymous(f: Finding, job: LocatedJob): Finding {
  return {
    file: '',
    line: 0,
    column: 0,
    code: f.code,
    severity: f.severity,
    path: '',
    message: `a job of ${job.workspace} on ${job.quota}, which you may not see, has a ${f.severity} (${f.code})`,
    hint: `an administrator or a member of ${job.workspace} can read it`,
  };
}

/** The findings of one version as each view reads them, each computed once (keyed by the view's key). */
export class FindingsViews {
  private readonly made = new Map<string, Finding[]>();

  constructor(
    private readonly findings: readonly Finding[],
    private readonly jobs: () => readonly LocatedJob[],
  ) {}

  /** The findings as `viewer` reads them. */
  for(viewer: Viewer | undefined): Finding[] {
    if (viewer === undefined) return [...this.findings];
    const key = viewer.key;
    if (key === undefined) return viewFindings(this.findings, this.jobs(), viewer);
    let v = this.made.get(key);
    if (!v) this.made.set(key, (v = viewFindings(this.findings, this.jobs(), viewer)));
    return v;
  }
}
