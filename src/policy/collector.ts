/** Collects the findings of one stage; stages never throw on bad input. */
import type { Finding } from '../errors.js';
import { findingAt, type PathSeg, type SourceDoc } from './source-doc.js';

export class Collector {
  readonly findings: Finding[] = [];

  /** Records an error at `path` of `sd`. */
  error(sd: SourceDoc, path: readonly PathSeg[], code: string, message: string, hint: string, key = false): void {
    this.findings.push(findingAt(sd, path, code, message, hint, { key }));
  }

  /** Records a warning at `path` of `sd`. */
  warn(sd: SourceDoc, path: readonly PathSeg[], code: string, message: string, hint: string): void {
    this.findings.push(findingAt(sd, path, code, message, hint, { severity: 'warning' }));
  }
}
