/**
 * The web app's client of `quotient serve` (docs/serve.md): same-origin requests (relative URLs, so a proxy may serve it under a path), so the
 * identity is whatever the proxy in front adds (X-Remote-User), or under `--auth
 * tokens:FILE` the token the user signed in with: kept in sessionStorage (this tab only,
 * gone when it closes; never localStorage or a cookie) and sent as a bearer token. Every
 * failure becomes an `ApiError` with the server's code, which the views show as text.
 */
import type { ErrorDocument, JobExplanation, JobSubmit, JobView, NodeView, QuotaView, ServeStatus, WhatIfReport } from './api-types.js';

/** A request that did not give the document asked for. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** Where the signed-in token is kept: this tab's session only. */
const TOKEN_KEY = 'quotient.token';

/** The token signed in with, if any. */
export function signedInToken(): string | undefined {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Keeps `token` for this tab's session (undefined: signs out). */
export function keepToken(token: string | undefined): void {
  try {
    if (token === undefined) sessionStorage.removeItem(TOKEN_KEY);
    else sessionStorage.setItem(TOKEN_KEY, token);
  } catch {
    // Storage refused (a private window's quota): the token lasts as long as nothing reloads the page.
  }
}

/** The headers of a request: JSON, and the bearer token when one is signed in. */
function headersWith(extra: Record<string, string> = {}): Record<string, string> {
  const token = signedInToken();
  return { accept: 'application/json', ...extra, ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}) };
}

/** The body of a response as JSON, or an ApiError saying it was not. */
async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(response.status, 'web/not-json', `the server answered ${response.status} with a body that is not JSON`);
  }
}

function errorOf(status: number, body: unknown): ApiError {
  const e = body as Partial<ErrorDocument> | null;
  if (e && e.kind === 'Error' && typeof e.code === 'string') return new ApiError(status, e.code, String(e.message ?? ''), typeof e.hint === 'string' ? e.hint : undefined);
  return new ApiError(status, 'web/unexpected', `the server answered ${status}`);
}

async function getJson<T>(path: string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, { headers: headersWith(), cache: 'no-store' });
  } catch {
    throw new ApiError(0, 'web/unreachable', 'the server did not answer', 'is quotient serve still running?');
  }
  const body = await readJson(response);
  if (!response.ok) throw errorOf(response.status, body);
  return body as T;
}

/** `GET /v1/status`. */
export const fetchStatus = (): Promise<ServeStatus> => getJson<ServeStatus>('v1/status');
/** `GET /v1/quotas`. */
export const fetchQuotas = (): Promise<QuotaView> => getJson<QuotaView>('v1/quotas');
/** `GET /v1/nodes`. */
export const fetchNodes = (): Promise<NodeView> => getJson<NodeView>('v1/nodes');
/** `GET /v1/jobs?mine=true`: the caller's own running jobs. */
export const fetchMyJobs = (): Promise<JobView> => getJson<JobView>('v1/jobs?mine=true');
/** `GET /v1/jobs/NAME/explain`. */
export const fetchExplanation = (name: string): Promise<JobExplanation> => getJson<JobExplanation>(`v1/jobs/${encodeURIComponent(name)}/explain`);

/** A what-if answer with the policy version it came from. */
export interface WhatIfResult {
  report: WhatIfReport;
  /** The Quotient-Policy-Version header. */
  version: string | null;
}

/** `POST /v1/whatif` with one job: a report with answers (200) or with the job's findings (400). */
export async function askWhatIf(submit: JobSubmit): Promise<WhatIfResult> {
  let response: Response;
  try {
    response = await fetch('v1/whatif', { method: 'POST', headers: headersWith({ 'content-type': 'application/json' }), body: JSON.stringify({ submit }) });
  } catch {
    throw new ApiError(0, 'web/unreachable', 'the server did not answer', 'is quotient serve still running?');
  }
  const body = await readJson(response);
  const report = body as Partial<WhatIfReport> | null;
  if ((response.ok || response.status === 400) && report && report.kind === 'WhatIfReport') return { report: report as WhatIfReport, version: response.headers.get('quotient-policy-version') };
  throw errorOf(response.status, body);
}
