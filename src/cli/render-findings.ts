/** Findings for people: `file:line:col  error  code  message`, a hint below, a count last. */
import type { Finding } from '../errors.js';
import { colour } from './output.js';

/** The lines for a list of findings. */
export function renderFindings(findings: Finding[]): string {
  const lines: string[] = [];
  for (const f of findings) {
    const sev = f.severity === 'error' ? colour.red('error') : colour.yellow('warning');
    // Findings in a document made from flags (--submit, --set) have no line a user wrote: name the flag.
    const where = f.file.startsWith('--') ? f.file : `${f.file}:${f.line}:${f.column}`;
    lines.push(`${colour.bold(where)}  ${sev}  ${colour.dim(f.code)}  ${f.message}`);
    if (f.path) lines.push(`    at ${f.path}`);
    if (f.hint) lines.push(`    ${colour.cyan('hint:')} ${f.hint}`);
  }
  return lines.join('\n');
}

/** "2 errors, 1 warning". */
export function countFindings(findings: Finding[]): string {
  const e = findings.filter((f) => f.severity === 'error').length;
  const w = findings.length - e;
  return `${e} error${e === 1 ? '' : 's'}, ${w} warning${w === 1 ? '' : 's'}`;
}
