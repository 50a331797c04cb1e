/**
 * The server's door to the engine's answer pipeline (engine/request.ts, `Session.ask`):
 * a request body becomes the pipeline's request, shaped as `quotient whatif --submit ...
 * --as USER` shapes its own, so the server's WhatIfReport is byte for byte the CLI's. The
 * job's name defaults to `submitted-job` and its submitter to the caller (as `--submit`
 * and `--as` do); findings name the body's fields (`submit.priority`) in the file
 * `request`, and a PAI body's are placed on its own lines (interop/pai-whatif.ts).
 */
import { sortFindings, type Finding } from '../errors.js';
import type { FullAnswer } from '../engine/pipeline.js';
import type { Session } from '../engine/session.js';
import { readPaiJob } from '../interop/pai-job.js';
import { manifestAsk } from '../interop/manifest-submission.js';
import { paiRequest } from '../interop/pai-whatif.js';
import { escapeDisplay } from '../model/display-text.js';

/** A question, as plain values (the pipeline's request). */
export interface AskRequest {
  /** A WhatIf's `spec.submit`, as JSON values; validated as a document's would be. */
  submit?: unknown;
  /** The name of a WhatIf document of the policy. */
  query?: string;
  /** The user whose view the answer is (SEMANTICS 10); absent: everything (an administrator). */
  as?: string;
  /** Estimate when a `wait` answer would start (default true, as the CLI). */
  estimate?: boolean;
  /**
   * The caller is not an administrator: the submitter is the caller (`as`), and a
   * `submittedBy` naming anyone else is refused (`request/not-submitter`). Otherwise a
   * member could ask as a colleague of another team and pass its membership check.
   */
  submitterIsCaller?: boolean;
}

/** One element of a WhatIfReport's `answers`. */
export type ReportAnswer = FullAnswer;

/** The answer, or the findings that stop it (errors name the request's fields: `submit.priority`). */
export interface AskResult {
  answer?: ReportAnswer;
  findings: Finding[];
}

/** The session the engine thread opened (with the policy's label and the start estimator). */
export interface AskContext {
  session: Session;
}

/** The file name findings about a request carry (no line or column: the field path says where). */
export const REQUEST_FILE = 'request';

/** Answers one request. A user no workspace lists asks as an outsider: every job anonymous. */
export async function ask(ctx: AskContext, request: AskRequest): Promise<AskResult> {
  const { submit, submitterIsCaller, ...rest } = request;
  if (submitterIsCaller) {
    const refused = notSubmitter(submit, request.as);
    if (refused) return { findings: [refused] };
  }
  const shaped = submit === undefined ? rest : { ...rest, submit: withDefaults(submit, request.as) };
  const r = await ctx.session.ask(shaped, { file: REQUEST_FILE, path: ['submit'], outsider: true });
  return r.answer ? { answer: r.answer, findings: r.findings } : { findings: sortFindings(r.findings) };
}

/**
 * Answers a PAI DLC CreateJob request body (`quotient whatif --job FILE`): read by
 * interop/pai-job.ts and asked as its submission, its findings on the body's own lines,
 * how each field was read added to the answer's notes.
 */
export async function askPai(ctx: AskContext, body: string, request: Omit<AskRequest, 'submit' | 'query'>): Promise<AskResult> {
  const { submission: sub, report } = readPaiJob({ path: REQUEST_FILE, text: body });
  if (!sub) return { findings: sortFindings(report.findings) };
  const { request: asked, origin } = paiRequest(sub, REQUEST_FILE, request.as);
  const r = await ctx.session.ask({ ...asked, ...(request.estimate === undefined ? {} : { estimate: request.estimate }) }, { ...origin, outsider: true });
  return r.answer ? { answer: r.answer, findings: r.findings } : { findings: sortFindings(r.findings) };
}

/** The finding when a caller who is not an administrator names another submitter; undefined when the job names the caller or no one. */
function notSubmitter(submit: unknown, as: string | undefined): Finding | undefined {
  if (typeof submit !== 'object' || submit === null || Array.isArray(submit)) return undefined;
  const by = (submit as { submittedBy?: unknown }).submittedBy;
  if (by === undefined || by === as) return undefined;
  // The value is not quoted back: it is the caller's, and a hidden colleague's name must read as any other.
  return {
    file: REQUEST_FILE,
    line: 0,
    column: 0,
    code: 'request/not-submitter',
    severity: 'error',
    path: 'submit.submittedBy',
    message: `submittedBy must be you${as !== undefined ? ` (${escapeDisplay(as).text})` : ''}: you ask as yourself`,
    hint: 'leave submittedBy out (it defaults to you); an administrator may ask as another user with `as`',
  };
}

/**
 * Answers a Kubernetes manifest (`POST /v1/whatif/kubernetes`, as `quotient whatif --job
 * job.yaml`): read and mapped by interop/manifest-submission.ts, its LocalQueue led
 * through the objects beside it or the policy's workspaces, findings on the body's lines.
 */
export async function askKubernetes(ctx: AskContext, body: string, request: Omit<AskRequest, 'submit' | 'query'> & { namespace?: string }): Promise<AskResult> {
  const read = manifestAsk({ path: REQUEST_FILE, text: body }, ctx.session.policy, {
    ...(request.as !== undefined ? { as: request.as } : {}),
    ...(request.namespace !== undefined ? { namespace: request.namespace } : {}),
  });
  if (!read.request) return { findings: sortFindings(read.findings) };
  const { request: asked, origin } = read.request;
  const r = await ctx.session.ask({ ...asked, ...(request.estimate === undefined ? {} : { estimate: request.estimate }) }, { ...origin, outsider: true });
  return r.answer ? { answer: r.answer, findings: [...read.findings, ...r.findings] } : { findings: sortFindings([...read.findings, ...r.findings]) };
}

/** A submitted job with the defaults `--submit` gives: its name, and the caller as its submitter. */
function withDefaults(submit: unknown, as: string | undefined): unknown {
  if (typeof submit !== 'object' || submit === null || Array.isArray(submit)) return submit;
  return { name: 'submitted-job', ...(as !== undefined ? { submittedBy: as } : {}), ...submit };
}
