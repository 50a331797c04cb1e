/**
 * A PAI request as a WhatIf document the policy loader reads like any other, and the
 * loader's findings about it moved back onto the JSON fields they concern: a quota the
 * policy lacks is reported at `ResourceId`'s line:col in the request, not in a document
 * the user never wrote.
 */
import { stringify } from 'yaml';
import type { Finding } from '../errors.js';
import { API_VERSION } from '../policy/schema.js';
import type { InputFile } from '../policy/source-doc.js';
import type { PaiSubmission } from './pai-job.js';

/** The file name findings about the generated document carry before they are moved. */
export function jobDocumentPath(requestPath: string): string {
  return `--job ${requestPath}`;
}

/** The WhatIf document of a request (named after its DisplayName). */
export function paiWhatIfDocument(sub: PaiSubmission, requestPath: string, submittedBy?: string): InputFile {
  const doc = { apiVersion: API_VERSION, kind: 'WhatIf', metadata: { name: sub.job.name }, spec: { submit: { ...sub.job, ...(submittedBy !== undefined ? { submittedBy } : {}) } } };
  return { path: jobDocumentPath(requestPath), text: stringify(doc) };
}

/** Findings on the generated document, moved to the request field each one is about. */
export function relocateFindings(findings: Finding[], sub: PaiSubmission, requestPath: string): Finding[] {
  const generated = jobDocumentPath(requestPath);
  return findings.map((f) => {
    if (f.file !== generated) return f;
    const field = f.path.replace(/^spec\.submit\.?/, '');
    // The most specific known field the finding's path starts with (`resources.gpu` before `resources`).
    const key = [...sub.origins.keys()].filter((k) => field === k || field.startsWith(`${k}.`) || field.startsWith(`${k}[`)).sort((a, b) => b.length - a.length)[0];
    const o = key === undefined ? undefined : sub.origins.get(key);
    return o ? { ...f, file: requestPath, line: o.line, column: o.column, path: o.path } : { ...f, file: requestPath, line: 1, column: 1, path: '' };
  });
}
