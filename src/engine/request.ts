/**
 * A question to the engine as plain values — what a `--submit` flag, an HTTP body or a
 * program hands in — and its check: the one place a request becomes a checked JobSpec,
 * a viewer and a query name, or located findings with field paths. The job's fields meet
 * the rules a WhatIf file's `submit` meets, from their one home (policy/build/read-job.ts);
 * nothing is written out as YAML and read again.
 */
import type { Finding } from '../errors.js';
import type { JobSpec, Policy } from '../model/policy.js';
import type { NameIndex } from '../policy/build/build-job.js';
import type { readJob } from '../policy/build/read-job.js';
import { findingAt, valueDoc, type Locate, type PathSeg } from '../policy/parse/source-doc.js';
import { escapeDisplay, unsafeCharacter } from '../model/display-text.js';
import { requestKey } from './answer-memo.js';
import type { Reason } from './reason-codes.js';
import type { Snapshot } from './snapshot.js';
import { outsiderView, type Viewer } from './visibility.js';

/** A question, as plain values (docs/cli.md "Requests"; the server's `POST /v1/whatif` body takes the same fields). */
export interface AnswerRequest {
  /** The job to ask about, as a WhatIf document's `spec.submit` holds it (`resources: { gpu: 8 }`, `maxRuntime: 2h`). */
  submit?: unknown;
  /** Or the name of one of the policy's WhatIf documents. */
  query?: string;
  /** Answer as this user may see it (SEMANTICS 10); absent: every job in full. */
  as?: string;
  /** Estimate when a `wait` answer starts (when the snapshot's running jobs give expected ends). Default true. */
  estimate?: boolean;
}

/** Where a request came from: how findings about it are placed, and what its translation adds. */
export interface RequestOrigin {
  /** The `file` of findings about it: `--submit`, `request`, a PAI request's path. Default `request`. */
  file?: string;
  /** The field path of the job inside what the user wrote (`spec.submit` for --submit, `submit` for an HTTP body). Default `submit`. */
  path?: PathSeg[];
  /** Where each field of the job was written (a PAI request: the JSON field it came from). */
  locate?: Locate;
  /** The answer's `query` for a submitted job. Default `submit`. */
  query?: string;
  /** Notes the translation adds to the answer (a PAI request: what was approximated). */
  notes?: readonly Reason[];
  /** A user no workspace lists asks as an outsider (every job anonymous) instead of being refused: for questions spanning several policies, and the server. */
  outsider?: boolean;
}

/** A request made ready to answer. */
export interface ReadRequest {
  query: string;
  job: JobSpec;
  viewer?: Viewer | undefined;
  estimate: boolean;
}

/** What the request check needs of a session. */
export interface RequestContext {
  policy: Policy;
  snapshot: Snapshot;
  names: NameIndex;
  /**
   * The job reader (policy/build/read-job.ts, with the schema and zod), which only a
   * request that submits a job needs: Session.ask imports it for such a request only, so a
   * WhatIf asked by name loads no validator (issue 22, start-up).
   */
  readJob?: typeof readJob;
  /** The view of a user; undefined when no workspace lists them. */
  viewerOf(user: string): Viewer | undefined;
}

/** The fields a request may have. */
const FIELDS = ['submit', 'query', 'as', 'estimate'];

/**
 * Checks a request: exactly one of `submit` and `query`, a known user in `as` (or an
 * outsider, when the origin allows one), a valid job. Every problem is a finding with the
 * request field's path; a job's problems are the loader's findings, at the job's fields.
 */
export function readRequest(ctx: RequestContext, request: unknown, origin: RequestOrigin = {}): { read: ReadRequest; findings: Finding[] } | { read?: undefined; findings: Finding[] } {
  const file = origin.file ?? 'request';
  const problem = (path: string, code: string, message: string, hint: string): Finding => ({ file, line: 0, column: 0, code, severity: 'error', path, message, hint });
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    return {
      findings: [
        problem('', 'request/not-an-object', 'a request must be an object: { "submit": { ...job } } or { "query": "NAME" }', 'send a JSON object with submit (a job) or query (a WhatIf name)'),
      ],
    };
  }
  const r = request as Record<string, unknown>;
  const findings: Finding[] = [];
  for (const k of Object.keys(r)) {
    if (!FIELDS.includes(k)) findings.push(problem(k, 'request/unknown-field', `unknown field "${escapeDisplay(k).text}" in the request`, `a request takes ${FIELDS.join(', ')}`));
  }
  if ((r.submit === undefined) === (r.query === undefined)) {
    findings.push(problem('', 'request/one-job', 'a request asks about exactly one job: give either submit (a job) or query (a WhatIf name)', 'send { "submit": { ...job } } or { "query": "NAME" }'));
  }
  if (r.query !== undefined && typeof r.query !== 'string')
    findings.push(problem('query', 'request/invalid-type', 'query must be a string (the name of a WhatIf document)', "give the name of one of the policy's WhatIf documents"));
  if (r.as !== undefined && (typeof r.as !== 'string' || r.as === '')) findings.push(problem('as', 'request/invalid-type', 'as must be a user name', 'give the user to answer as, or leave it out'));
  if (r.estimate !== undefined && typeof r.estimate !== 'boolean')
    findings.push(problem('estimate', 'request/invalid-type', 'estimate must be true or false', "leave it out to estimate a waiting job's start"));
  if (findings.length > 0) return { findings };

  let viewer: Viewer | undefined;
  if (typeof r.as === 'string') {
    viewer = ctx.viewerOf(r.as);
    // Asked about several policies (or through the server), a user may belong to some only: in the others every job is anonymous usage.
    if (!viewer && origin.outsider) viewer = outsiderView(r.as);
    if (!viewer) return { findings: [problem('as', 'request/unknown-user', `user "${escapeDisplay(r.as).text}" is not a member or guest of any workspace`, knownUsers(ctx.policy))] };
  }
  const estimate = r.estimate !== false;

  if (typeof r.query === 'string') {
    const w = ctx.policy.whatIfs.find((x) => x.name === r.query);
    if (!w)
      return { findings: [problem('query', 'request/unknown-query', `no WhatIf named "${escapeDisplay(r.query).text}"`, 'list the WhatIf documents with `quotient whatif FILES`, or check the name')] };
    return { read: { query: w.name, job: w.submit, viewer, estimate }, findings: [] };
  }

  const prefix = origin.path ?? ['submit'];
  const doc = valueDoc(file, r.submit, origin.locate);
  if (!ctx.readJob) throw new Error('a request that submits a job needs the job reader (RequestContext.readJob)');
  const read = ctx.readJob(doc, prefix, r.submit, ctx.names);
  if (!read.job) return { findings: read.findings };
  const clash = ctx.snapshot.jobIndex.get(read.job.name);
  const queued = ctx.snapshot.cluster.queue?.find((j) => j.name === read.job.name);
  // A submitted job may not take the name of a running or queued job the asker can see:
  // its answer would read as that job's. The name of a job the asker may not see is
  // theirs to use: refusing it would confirm a job they may not know of.
  const taken = clash !== undefined ? ctx.snapshot.job(clash) : queued;
  if (taken && (!viewer || viewer.canSee(taken))) {
    const what = clash !== undefined ? 'running' : 'queued';
    const f = findingAt(
      doc,
      [...prefix, 'name'],
      'policy/duplicate-job',
      `the submitted job "${read.job.name}" has the name of a ${what} job`,
      'give the submission a name no running or queued job has',
    );
    return { findings: [{ ...f, stage: 'build' }] };
  }
  return { read: { query: origin.query ?? 'submit', job: read.job, viewer, estimate }, findings: read.findings };
}

/** The hint of an unknown user: the users the policy lists. */
function knownUsers(policy: Policy): string {
  const users = [...new Set(policy.workspaces.flatMap((w) => w.members.map((m) => m.user)))];
  return users.length ? `known users: ${users.map((u) => escapeDisplay(u).text).join(', ')}` : 'no workspace lists members';
}

/**
 * The memo key of a request that the memo may answer before its job is checked, with
 * the names it is served under; undefined for any other request. Only a request of a
 * `submit` and nothing else (no `as`: a viewer changes the sentences; no translation
 * notes) whose job's name passes the name's own rule and is no running job's: the key
 * holds every other field of the job as sent (answer-memo.ts `requestKey`), so an equal
 * key means an equal job that passed every other check when it was first answered.
 */
export function requestMemoKey(request: unknown, origin: RequestOrigin, snapshot: Snapshot, estimates: boolean): { key: string; query: string; name: string } | undefined {
  if (typeof request !== 'object' || request === null || origin.notes?.length) return undefined;
  const r = request as Record<string, unknown>;
  for (const k in r) if (k !== 'submit' && k !== 'estimate') return undefined;
  if (r.estimate !== undefined && typeof r.estimate !== 'boolean') return undefined;
  const submit = r.submit;
  if (typeof submit !== 'object' || submit === null || Array.isArray(submit)) return undefined;
  const name = (submit as Record<string, unknown>).name;
  if (typeof name !== 'string' || name === '' || unsafeCharacter(name) !== undefined || snapshot.jobIndex.has(name) || snapshot.cluster.queue?.some((j) => j.name === name)) return undefined;
  const estimate = estimates && r.estimate !== false;
  const key = requestKey(submit, `submit;${snapshot.cluster.at};${estimate ? 'e' : ''};`, KEEP_SRC);
  return key === undefined ? undefined : { key, query: origin.query ?? 'submit', name };
}

/** A job sent as values has no `src` to leave out of its key: a `src` field there is an unknown field, and must reach the check. */
const KEEP_SRC: ReadonlySet<string> = new Set(['name']);
