/** Collects the findings of one stage; stages never throw on bad input. */
import type { Finding } from '../errors.js';
import type { Source } from '../model/source.js';
import { findingAt, type Doc, type PathSeg } from './parse/source-doc.js';

export class Collector {
  readonly findings: Finding[] = [];

  /** Records an error at `path` of `sd`. */
  error(sd: Doc, path: readonly PathSeg[], code: string, message: string, hint: string, key = false): void {
    this.findings.push(findingAt(sd, path, code, message, hint, { key }));
  }

  /** Records an error at a Source already resolved (a model object built earlier). */
  errorAt(src: Source, code: string, message: string, hint: string, severity: 'error' | 'warning' = 'error'): void {
    this.findings.push({ file: src.file, line: src.line, column: src.column, code, severity, path: src.path, message, hint });
  }

  /** Records a warning at `path` of `sd`. */
  warn(sd: Doc, path: readonly PathSeg[], code: string, message: string, hint: string): void {
    this.findings.push(findingAt(sd, path, code, message, hint, { severity: 'warning' }));
  }
}
