/**
 * The one shape of a refused request (docs/serve.md "Errors"): a status, a stable code, a
 * message, a hint and, when a field is at fault, its path. Never a stack trace: what the
 * server knows beyond this goes to its log under the request id.
 */
import { API_VERSION, documentJson } from '../engine/report-document.js';

/** A refused request's document. */
export interface ErrorDocument {
  apiVersion: typeof API_VERSION;
  kind: 'Error';
  status: number;
  code: string;
  message: string;
  hint: string;
  /** The field at fault (`submits[3]`), when one is. */
  path?: string;
  requestId?: string;
}

/** The JSON text of an error document. */
export function errorText(status: number, code: string, message: string, hint: string, extra: { path?: string; requestId?: string } = {}): string {
  const doc: ErrorDocument = {
    apiVersion: API_VERSION,
    kind: 'Error',
    status,
    code,
    message,
    hint,
    ...(extra.path !== undefined ? { path: extra.path } : {}),
    ...(extra.requestId !== undefined ? { requestId: extra.requestId } : {}),
  };
  return documentJson(doc);
}
