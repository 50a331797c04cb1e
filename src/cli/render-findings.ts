/**
 * Findings for people: `file:line:col  error  code  message`, the source line with a
 * caret under the spot, the field path and a hint below, a count last. Every value from
 * the input is escaped (a `display` template) before it is coloured, so a name or a line
 * cannot drive the terminal.
 */
import type { Finding } from '../errors.js';
import { display, escapeDisplay, joinDisplay, type Display } from '../model/display-text.js';
import { isFlagFile } from '../model/source.js';
import { readSourceText } from '../policy/parse/read-files.js';
import { colour } from './output.js';

/** Where the source texts come from (the files read in this process, by default). */
export type SourceLookup = (file: string) => string | undefined;

/** The lines for a list of findings. */
export function renderFindings(findings: Finding[], source: SourceLookup = readSourceText): Display {
  const lines: Display[] = [];
  // Each file is split into lines once, however many findings it has.
  const split = new Map<string, string[] | undefined>();
  const sourceLines = (file: string): string[] | undefined => {
    if (isFlagFile(file)) return undefined;
    if (!split.has(file)) split.set(file, source(file)?.split(/\r\n|\r|\n/));
    return split.get(file);
  };
  for (const f of findings) {
    const sev = f.severity === 'error' ? colour.red('error') : colour.yellow('warning');
    // Findings in a document made from flags (--submit, --set) have no line a user wrote: name the flag.
    const where = isFlagFile(f.file) ? f.file : `${f.file}:${f.line}:${f.column}`;
    lines.push(display`${colour.bold(where)}  ${sev}  ${colour.dim(f.code)}  ${f.message}`);
    const text = sourceLines(f.file);
    if (text !== undefined) lines.push(...snippet(text, f));
    if (f.path) lines.push(display`    at ${f.path}`);
    if (f.hint) lines.push(display`    ${colour.cyan('hint:')} ${f.hint}`);
  }
  return joinDisplay(lines);
}

/** Characters of a source line shown at most; a longer line is cut to a window around the spot. */
const WIDTH = 100;

/**
 * The finding's line (from the file's `lines`), numbered, with carets under `start`..`end` (one caret when the span
 * is empty or runs past the line), as eemeli/yaml's prettifyError and rustc print them.
 * Nothing when the line is not in the text (the file changed since).
 */
export function snippet(lines: readonly string[], f: Pick<Finding, 'line' | 'column' | 'start' | 'end' | 'severity'>): Display[] {
  const line = lines[f.line - 1];
  if (line === undefined || f.column < 1 || f.column > line.length + 1) return [];
  const from = f.column - 1;
  const span = f.start !== undefined && f.end !== undefined && f.end > f.start ? f.end - f.start : 1;
  const to = Math.min(line.length, from + span);
  // A window of WIDTH characters that holds the spot.
  const winStart = line.length <= WIDTH ? 0 : Math.max(0, Math.min(from - 20, line.length - WIDTH));
  const winEnd = Math.min(line.length, winStart + WIDTH);
  let shown = winStart > 0 ? '…' : '';
  let pad = shown.length;
  let marks = 0;
  for (let i = winStart; i < winEnd; i++) {
    const ch = escapeDisplay(line[i] ?? '').text;
    shown += ch;
    if (i < from) pad += ch.length;
    else if (i < Math.max(to, from + 1)) marks += ch.length;
  }
  if (winEnd < line.length) shown += '…';
  const num = String(f.line);
  const gutter = ' '.repeat(num.length);
  const paint = f.severity === 'error' ? colour.red : colour.yellow;
  // `shown` is escaped character by character above.
  return [display`    ${colour.dim(`${num} |`)} ${shown}`, display`    ${colour.dim(`${gutter} |`)} ${' '.repeat(pad)}${paint('^'.repeat(Math.max(1, marks)))}`];
}

/** "2 errors, 1 warning". */
export function countFindings(findings: Finding[]): string {
  const e = findings.filter((f) => f.severity === 'error').length;
  const w = findings.length - e;
  return `${e} error${e === 1 ? '' : 's'}, ${w} warning${w === 1 ? '' : 's'}`;
}
