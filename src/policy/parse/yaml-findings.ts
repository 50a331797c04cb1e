/**
 * YAML syntax errors as findings a person can act on. One slip in a YAML file makes the
 * parser report several errors (a mis-indented key gives "All mapping items must start
 * at the same column", then a false duplicate key, then three errors about the lines
 * after it), so a document's first syntax error is its root cause and the only one
 * reported; the common ones are named (`policy/bad-indentation`, `policy/tab-indentation`,
 * an unclosed quote or bracket) with the place and a fix. Duplicate keys in an otherwise clean
 * document are real, each one is reported and names the key.
 */
import type { Document, LineCounter, YAMLError } from 'yaml';
import type { Finding } from '../../errors.js';
import { duplicateKeyInfo } from './duplicate-keys.js';
import { formatPath } from './field-path.js';

const SYNTAX_HINT = 'fix the YAML syntax at this position (indentation, a missing colon or an unclosed quote are common causes)';

/** The findings of one parsed document: its first syntax error, or each duplicate key; and its warnings. */
export function yamlFindings(file: string, text: string, lines: LineCounter, doc: Document.Parsed): Finding[] {
  const syntax = doc.errors.filter((e) => e.code !== 'DUPLICATE_KEY');
  const errors = syntax.length > 0 ? [syntax.reduce((a, b) => (b.pos[0] < a.pos[0] ? b : a))] : doc.errors;
  return [
    ...errors.map((e) => (e.code === 'DUPLICATE_KEY' ? duplicateKey(file, text, lines, e) : yamlErrorFinding(file, text, lines, e))),
    ...doc.warnings.map((w) => ({ ...yamlErrorFinding(file, text, lines, w), severity: 'warning' as const })),
  ];
}

/** One yaml error as a finding, named where the cause is known. */
export function yamlErrorFinding(file: string, text: string, lines: LineCounter, err: YAMLError): Finding {
  const at = (offset: number, end: number, code: string, message: string, hint: string): Finding => {
    const pos = lines.linePos(offset);
    return { file, line: pos.line, column: pos.col, start: offset, end: Math.max(end, offset), code, severity: 'error', path: '', message, hint };
  };
  const [start, end] = err.pos;
  switch (err.code) {
    case 'BAD_INDENT': {
      if (/^Flow (map|sequence)/.test(err.message)) {
        const what = err.message.startsWith('Flow map') ? 'a { … } mapping' : 'a [ … ] list';
        return at(
          start,
          end,
          'policy/yaml-syntax',
          `${what} opened above this line is not closed`,
          `close it with ${what.includes('{') ? '}' : ']'} (or indent its next lines more than the key that holds it)`,
        );
      }
      const keyAt = firstContent(text, start);
      const key = keyName(text, keyAt);
      const above = keyAbove(text, lines, keyAt);
      const here = lines.linePos(keyAt);
      const message = above
        ? `"${key}" on line ${here.line} starts at column ${here.col}, but "${above.key}" on line ${above.line} starts at column ${above.column}: the keys of one mapping must line up`
        : `"${key}" is not lined up with the other keys of its mapping`;
      const hint = above
        ? `indent "${key}" to column ${above.column} if it belongs with "${above.key}", or to the column of the mapping it belongs to`
        : 'indent every key of a mapping to the same column';
      return at(keyAt, keyAt + key.length, 'policy/bad-indentation', message, hint);
    }
    case 'TAB_AS_INDENT':
      return at(start, end, 'policy/tab-indentation', 'a tab is used for indentation; YAML indents with spaces only', 'replace the tab with spaces');
    case 'MISSING_CHAR':
      if (/quote/.test(err.message)) return at(start, end, 'policy/yaml-syntax', 'a quoted string is not closed', 'add the closing quote');
      return at(start, end, 'policy/yaml-syntax', firstLine(err.message), SYNTAX_HINT);
    default:
      return at(start, end, 'policy/yaml-syntax', firstLine(err.message), SYNTAX_HINT);
  }
}

/** A duplicate key, named, with where it first appeared and its field path (found by duplicate-keys.ts's walk). */
function duplicateKey(file: string, text: string, lines: LineCounter, err: YAMLError): Finding {
  const offset = err.pos[0];
  const known = duplicateKeyInfo(err);
  const name = known?.name ?? keyName(text, offset);
  const first = known?.first;
  const path = known ? formatPath(known.path) : '';
  const pos = lines.linePos(offset);
  const before = first === undefined ? undefined : lines.linePos(first);
  return {
    file,
    line: pos.line,
    column: pos.col,
    start: offset,
    end: offset + name.length,
    code: 'policy/duplicate-key',
    severity: 'error',
    path,
    message: `key "${name}" appears twice in one mapping${before ? ` (first on line ${before.line}, column ${before.col})` : ''}`,
    hint: `each key may appear once in a mapping; remove one "${name}", or check its indentation (it may belong to another mapping)`,
  };
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
}

/** The first character at or after `offset` on its line that is not a space. */
function firstContent(text: string, offset: number): number {
  let i = offset;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
  return i;
}

/** The key written at `offset`: the text up to its colon (or the end of the line). */
function keyName(text: string, offset: number): string {
  const rest = text.slice(offset, text.indexOf('\n', offset) < 0 ? undefined : text.indexOf('\n', offset));
  const m = /^(?:-\s+)*("[^"]*"|'[^']*'|[^:#]*?)\s*(?::|$)/.exec(rest);
  return (m?.[1] ?? rest).trim() || rest.trim();
}

/** The key on the nearest line above `offset` that holds one (blank and comment lines skipped), and its 1-based column. */
function keyAbove(text: string, lines: LineCounter, offset: number): { key: string; line: number; column: number } | undefined {
  let end = text.lastIndexOf('\n', offset - 1);
  while (end > 0) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = lines.linePos(start).line;
    const body = text.slice(start, end);
    end = start - 1;
    const trimmed = body.trimStart();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('---')) continue;
    // `- name: x` holds the key `name`, two columns right of the dash.
    const m = /^(\s*(?:-\s+)*)/.exec(body);
    const indent = m?.[1]?.length ?? 0;
    const key = keyName(body, indent);
    if (!key) return undefined;
    return { key, line, column: indent + 1 };
  }
  return undefined;
}
