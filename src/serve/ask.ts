/**
 * The one door from a request to an answer, for the server: a stand-in for the engine's
 * answer pipeline (issue 19, `session.ask(request)`) until it lands. It does today what
 * `quotient whatif --submit ... --json --as USER` does (src/cli/whatif.ts), so the server's
 * WhatIfReport is byte for byte the CLI's; when `session.ask` arrives, this file becomes
 * a call to it and nothing else in src/serve changes.
 *
 * The CLI writes a submission as a WhatIf document and reloads the whole policy with it.
 * A server cannot reload 10,000 nodes per request, so here the one document goes through
 * the same loader stages alone — parse (policy/source-doc.ts), validate
 * (policy/validate-schema.ts) and build (policy/build-whatifs.ts, against the session's
 * quotas, workspaces and running jobs) — which are all the stages that read a WhatIf.
 */
import { hasErrors, sortFindings, type Finding } from '../errors.js';
import type { Answer } from '../engine/answer.js';
import { snapshotOf, type AnswerSnapshot } from '../engine/answer-snapshot.js';
import { nameIndex } from '../engine/check-job.js';
import { because } from '../engine/reason-codes.js';
import type { Session } from '../engine/session.js';
import type { ViewedAnswer } from '../engine/visibility.js';
import { readPaiJob } from '../interop/pai-job.js';
import { relocateFindings } from '../interop/pai-whatif.js';
import type { JobSpec, WhatIf } from '../model/policy.js';
import { buildWhatIfs } from '../policy/build-whatifs.js';
import { Collector } from '../policy/collector.js';
import { tagStage } from '../policy/load-policy.js';
import { API_VERSION } from '../policy/schema.js';
import { parseFiles } from '../policy/source-doc.js';
import { validateDocuments } from '../policy/validate-schema.js';
import { canEstimate, estimateStart, type StartEstimate } from '../simulate/start-estimate.js';

/** A question, as plain values (the pipeline's request). */
export interface AskRequest {
  /** A WhatIf's `spec.submit`, as JSON values; validated here as a document's would be. */
  submit?: unknown;
  /** The name of a WhatIf document of the policy. */
  query?: string;
  /** The user whose view the answer is (SEMANTICS 10); absent: everything (an administrator). */
  as?: string;
  /** Estimate when a `wait` answer would start (default true, as the CLI). */
  estimate?: boolean;
}

/** One element of a WhatIfReport's `answers`. */
export type ReportAnswer = (Answer | ViewedAnswer) & { policy: string; snapshot?: AnswerSnapshot; estimate?: StartEstimate };

/** The answer, or the findings that stop it (errors name the request's fields: `submit.priority`). */
export interface AskResult {
  answer?: ReportAnswer;
  findings: Finding[];
}

/** How the session was opened: the label answers carry, and the kernel estimates run on. */
export interface AskContext {
  session: Session;
  label: string;
  backend: 'wasm' | 'reference';
}

/** The file name findings about a request carry (no line or column: the field path says where). */
export const REQUEST_FILE = 'request';

/** The file the submission's document is read as: a flag-like name, so its findings have line and column 0 (model/source.ts). */
const SUBMIT_FILE = '--submit';

/** The stand-in name of a submission whose own name a running job has, asked by a viewer (see `submission`). */
const SUBMIT_ALIAS = 'submitted-job#as';

/** Answers one request. */
export async function ask(ctx: AskContext, request: AskRequest): Promise<AskResult> {
  if (request.query !== undefined) {
    const w = ctx.session.policy.whatIfs.find((x) => x.name === request.query);
    if (!w)
      return {
        findings: [
          requestFinding('query', 'serve/unknown-query', `the policy has no WhatIf named "${request.query}"`, 'name a WhatIf document of the policy, or ask about a job with {"submit": JOB}'),
        ],
      };
    return { answer: await answerOf(ctx, w, request), findings: [] };
  }
  const built = submission(ctx, request.submit, request.as);
  if (!built.whatIf) return { findings: built.findings };
  const answer = await answerOf(ctx, built.whatIf, request);
  return { answer: built.name !== undefined && answer.job === SUBMIT_ALIAS ? { ...answer, job: built.name } : answer, findings: [] };
}

/**
 * Answers a PAI DLC CreateJob request body (`quotient whatif --job FILE`): read by
 * interop/pai-job.ts, asked as its submission, its findings moved back onto the body's
 * own lines, and how each field was read added to the answer's notes.
 */
export async function askPai(ctx: AskContext, body: string, request: Omit<AskRequest, 'submit' | 'query'>): Promise<AskResult> {
  const { submission: sub, report } = readPaiJob({ path: REQUEST_FILE, text: body });
  if (!sub) return { findings: sortFindings(report.findings) };
  const built = submission(ctx, sub.job, request.as, { file: `--job ${REQUEST_FILE}`, query: sub.job.name });
  if (!built.whatIf) return { findings: sortFindings(relocateFindings(built.findings, sub, REQUEST_FILE)) };
  const a = await answerOf(ctx, built.whatIf, request);
  return { answer: { ...a, notes: [...a.notes, ...sub.notes.map((n) => because('interop/pai-request', `PAI request: ${n}`))] }, findings: [] };
}

/** Answers a built WhatIf as the CLI does: the policy's label first, the snapshot it came from, the answer, the estimate. */
async function answerOf(ctx: AskContext, w: WhatIf, request: AskRequest): Promise<ReportAnswer> {
  const { session } = ctx;
  const a = request.as === undefined ? await session.answer(w.name, w.submit) : await session.answerAs(w.name, w.submit, request.as, { outsider: true });
  const snapshot = snapshotOf(session.policy);
  const head = snapshot ? { policy: ctx.label, snapshot } : { policy: ctx.label };
  return { ...head, ...a, ...(request.estimate === false ? {} : await estimateFor(ctx, a, w.submit, request.as)) };
}

/** A `wait` answer's start estimate (docs/cli.md "Start estimates"), when the snapshot's running jobs give expected ends. */
async function estimateFor(ctx: AskContext, a: { decision: string }, job: JobSpec, user: string | undefined): Promise<{ estimate?: StartEstimate }> {
  if (a.decision !== 'wait' || !canEstimate(ctx.session.policy)) return {};
  const viewer = user === undefined ? undefined : ctx.session.viewer(user, { outsider: true });
  return { estimate: await estimateStart(ctx.session.policy, job, { backend: ctx.backend, ...(viewer ? { viewer } : {}) }) };
}

/**
 * The submission as a WhatIf, through the loader's parse, validate and build stages, or
 * their findings. Under a viewer, "that name is taken" would confirm a job the viewer may
 * not see: a submission whose only fault is its name asks under a free stand-in name
 * instead (its answer is about the job, not the name) and `name` says what to put back.
 */
function submission(
  ctx: AskContext,
  submit: unknown,
  as: string | undefined,
  where: { file: string; query: string } = { file: SUBMIT_FILE, query: 'submit' },
): { whatIf?: WhatIf; name?: string; findings: Finding[] } {
  const job = isPlainObject(submit) ? { name: 'submitted-job', ...(as !== undefined ? { submittedBy: as } : {}), ...submit } : submit;
  const first = buildSubmission(ctx, job, where);
  if (first.whatIf || as === undefined || !isPlainObject(job)) return first;
  const errors = first.findings.filter((f) => f.severity === 'error');
  if (!errors.every((f) => f.code === 'policy/duplicate-job')) return first;
  const again = buildSubmission(ctx, { ...job, name: SUBMIT_ALIAS }, where);
  return again.whatIf ? { ...again, name: String(job.name) } : first;
}

function buildSubmission(ctx: AskContext, job: unknown, where: { file: string; query: string }): { whatIf?: WhatIf; findings: Finding[] } {
  const doc = { apiVersion: API_VERSION, kind: 'WhatIf', metadata: { name: where.query }, spec: { submit: job } };
  const parsed = parseFiles([{ path: where.file, text: JSON.stringify(doc) }]);
  const findings = tagStage(parsed.findings, 'parse');
  if (hasErrors(findings)) return { findings: requestFindings(findings, where.file) };
  const validated = validateDocuments(parsed.docs);
  findings.push(...tagStage(validated.findings, 'validate'));
  if (hasErrors(findings)) return { findings: requestFindings(findings, where.file) };
  const c = new Collector();
  // The builder reads the running jobs only for their names (a submission may not take one): the one
  // of the same name, if any, looked up rather than 40,000 names put in a set per request.
  const snap = ctx.session.snapshot;
  const name = (job as { name?: unknown } | null)?.name;
  const same = snap && typeof name === 'string' ? snap.jobIndex.get(name) : undefined;
  const [whatIf] = buildWhatIfs(c, validated.typed, namesOf(ctx.session), same !== undefined ? [snap!.jobs[same]!] : []);
  findings.push(...tagStage(c.findings, 'build'));
  if (!whatIf || hasErrors(findings)) return { findings: requestFindings(findings, where.file) };
  return { whatIf, findings: [] };
}

/**
 * Findings on the submission's document, about the request: `spec.submit.priority` is the
 * request's `submit.priority`, in the file `request`. A PAI request's are moved onto its
 * body's lines afterwards (relocateFindings reads them under their document's name).
 */
function requestFindings(findings: Finding[], file: string): Finding[] {
  if (file !== SUBMIT_FILE) return findings;
  const rename = (text: string): string => text.replaceAll('spec.submit', 'submit');
  return sortFindings(findings.map((f) => ({ ...f, file: REQUEST_FILE, path: rename(f.path), message: rename(f.message), hint: rename(f.hint) })));
}

const nameIndexes = new WeakMap<Session, ReturnType<typeof nameIndex>>();

/** The policy's quotas and workspaces by name, made once per session. */
function namesOf(session: Session): ReturnType<typeof nameIndex> {
  let n = nameIndexes.get(session);
  if (!n) nameIndexes.set(session, (n = nameIndex(session.policy)));
  return n;
}

/** A finding about a field of the request itself. */
function requestFinding(path: string, code: string, message: string, hint: string): Finding {
  return { file: REQUEST_FILE, line: 0, column: 0, code, severity: 'error', path, message, hint };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
