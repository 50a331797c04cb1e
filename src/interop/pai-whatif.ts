/**
 * A PAI CreateJob request as a request to the answer pipeline (engine/request.ts): its
 * job as plain values, and an origin that places every finding about a field on the JSON
 * field it came from — a quota the policy lacks is reported at `ResourceId`'s line:col in
 * the request, not at a field the user never wrote.
 */
import { because } from '../engine/reason-codes.js';
import type { AnswerRequest, RequestOrigin } from '../engine/request.js';
import { formatPath, type PathSeg } from '../policy/parse/source-doc.js';
import type { PaiSubmission } from './pai-job.js';

/** The request and its origin for a read PAI submission (`as`: the asking user). */
export function paiRequest(sub: PaiSubmission, requestPath: string, as?: string): { request: AnswerRequest; origin: RequestOrigin } {
  const job = { ...sub.job, ...(as !== undefined ? { submittedBy: as } : {}) };
  return {
    request: { submit: job, ...(as !== undefined ? { as } : {}) },
    origin: {
      file: requestPath,
      path: [],
      query: sub.job.name,
      locate: (path) => locateField(sub, requestPath, path),
      notes: sub.notes.map((n) => because('interop/pai-request', `PAI request: ${n}`)),
    },
  };
}

/** A submission read from another tool's request, with where each Quotient field came from (a PAI request, a Kubernetes manifest). */
export interface LocatedSubmission {
  origins: Map<string, { path: string; line: number; column: number }>;
  notes: string[];
}

/** The request field a Quotient field came from: the most specific known one (`resources.gpu` before `resources`), else the request as a whole. */
export function locateField(sub: LocatedSubmission, file: string, path: readonly PathSeg[]): { file: string; line: number; column: number; path: string } {
  const field = formatPath(path);
  const key = [...sub.origins.keys()].filter((k) => field === k || field.startsWith(`${k}.`) || field.startsWith(`${k}[`)).sort((a, b) => b.length - a.length)[0];
  const o = key === undefined ? undefined : sub.origins.get(key);
  return o ? { file, line: o.line, column: o.column, path: o.path } : { file, line: 1, column: 1, path: '' };
}
