/**
 * One located finding type for the whole pipeline. Stages collect findings instead of
 * throwing; the pipeline stops after the first stage that produced an error, carrying
 * all of that stage's findings (sorted by location), so a user fixes them in one pass.
 */

export type Severity = 'error' | 'warning';

/** A place in a policy file: 1-based line and column. */
export interface Loc {
  file: string;
  line: number;
  column: number;
}

/** A problem found in the user's input, in the stable shape `check --json` prints. */
export interface Finding {
  file: string;
  line: number;
  column: number;
  /** Character offset (from 0, in UTF-16 code units) of the spot in the file, when the finding points into a file. */
  start?: number;
  /** Character offset just past the spot: `start`..`end` is the span an editor can underline. */
  end?: number;
  /** Stable code such as `policy/unknown-field`; tests match on it, never on the message. */
  code: string;
  severity: Severity;
  /** The field path inside the document, e.g. `spec.quotas[0].children[1].min.gpu`. */
  path: string;
  message: string;
  hint: string;
  /** The loading stage that found it (`parse`, `validate`, `build`, `snapshot`, `scale`, `place`). */
  stage?: string;
}

/** Thrown only for conditions the user cannot fix in a policy file (exit code 2). */
export class QuotientError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint = '',
  ) {
    super(message);
    this.name = 'QuotientError';
  }
}

/** Thrown when a stage ends with errors: carries every finding of that stage. */
export class FindingsError extends Error {
  constructor(readonly findings: Finding[]) {
    super(`${findings.filter((f) => f.severity === 'error').length} error(s) in the policy`);
    this.name = 'FindingsError';
  }
}

/** Code-unit order: the same on every machine, whatever its locale. */
function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders findings by file, line, column, then code, so output is stable. */
export function sortFindings(findings: Finding[]): Finding[] {
  return [...findings].sort((a, b) => cmp(a.file, b.file) || a.line - b.line || a.column - b.column || cmp(a.code, b.code) || cmp(a.message, b.message));
}

/** True when any finding is an error (warnings alone do not stop the pipeline). */
export function hasErrors(findings: Finding[]): boolean {
  return findings.some((f) => f.severity === 'error');
}

/** `file:line:col`, the form editors and terminals make clickable. */
export function formatLoc(loc: Loc): string {
  return `${loc.file}:${loc.line}:${loc.column}`;
}
