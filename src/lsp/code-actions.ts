/**
 * Quick fixes, each the finding's own suggestion (the server invents none):
 * - `did you mean "X"` (hint or message): write X where the finding points — a misspelt
 *   field name, quota, workspace or user;
 * - `policy/missing-field` (`add "min:" to ...`): add the field's key to the map the
 *   finding marks, for the author to fill in;
 * - `policy/low-not-below-high` (`make lowPriority end below N`): end the range at N-1.
 */
import { CodeActionKind, type CodeAction, type Diagnostic, type TextEdit } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { DiagnosticData } from './diagnostics.js';

/** The name a finding suggests, from `did you mean [what] "X"?`. */
export function suggestedName(d: Diagnostic): string | undefined {
  const data = d.data as Partial<DiagnosticData> | undefined;
  const message = typeof d.message === 'string' ? d.message : d.message.value;
  const said = `${data?.hint ?? ''}\n${message}`;
  return /did you mean (?:[\w ]+ )?"([^"]+)"/.exec(said)?.[1];
}

function fix(doc: TextDocument, d: Diagnostic, title: string, edit: TextEdit): CodeAction {
  return { title, kind: CodeActionKind.QuickFix, diagnostics: [d], isPreferred: true, edit: { changes: { [doc.uri]: [edit] } } };
}

/** `add "min:" to ...`: the key inserted as the map's last entry (block or flow). */
function missingFieldFix(doc: TextDocument, d: Diagnostic): CodeAction | undefined {
  const hint = (d.data as Partial<DiagnosticData> | undefined)?.hint ?? '';
  const field = /^add "([\w.-]+):"/.exec(hint)?.[1];
  if (!field) return undefined;
  const text = doc.getText();
  const end = doc.offsetAt(d.range.end);
  const start = doc.offsetAt(d.range.start);
  if (text[start] === '{') {
    // A flow map `{ a: 1 }`: before its closing brace.
    const close = text.lastIndexOf('}', end - 1);
    if (close <= start) return undefined;
    const inner = text.slice(start + 1, close).trim();
    // Right after the last entry: `{ user: bob, role: }`.
    let after = close;
    while (after > start + 1 && /\s/.test(text[after - 1] ?? '')) after--;
    const at = doc.positionAt(after);
    return fix(doc, d, `Add "${field}:"`, { range: { start: at, end: at }, newText: inner ? `, ${field}: ` : ` ${field}: ` });
  }
  // A block map: a line of its own at the map's indentation, after its last line.
  const indent = ' '.repeat(d.range.start.character);
  const at = doc.positionAt(end);
  const newText = text[end - 1] === '\n' ? `${indent}${field}: \n` : `\n${indent}${field}: `;
  return fix(doc, d, `Add "${field}:"`, { range: { start: at, end: at }, newText });
}

/** `make lowPriority end below N`: the range as written, ended at N-1 (when it starts below N). */
function lowPriorityFix(doc: TextDocument, d: Diagnostic): CodeAction | undefined {
  const hint = (d.data as Partial<DiagnosticData> | undefined)?.hint ?? '';
  const below = Number(/end below (\d+)/.exec(hint)?.[1]);
  const written = doc.getText(d.range);
  const m = /^(["']?)(\d+)(?:-(\d+))?\1$/.exec(written);
  if (!m || !Number.isInteger(below)) return undefined;
  const lo = Number(m[2]);
  if (lo >= below) return undefined;
  const range = lo === below - 1 ? `${lo}` : `${lo}-${below - 1}`;
  return fix(doc, d, `Make lowPriority ${range}`, { range: d.range, newText: `${m[1]}${range}${m[1]}` });
}

/** The quick fixes for the diagnostics the editor asks about in one document. */
export function quickFixes(doc: TextDocument, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const out: CodeAction[] = [];
  for (const d of diagnostics) {
    if (d.source !== 'quotient') continue;
    const special = d.code === 'policy/missing-field' ? missingFieldFix(doc, d) : d.code === 'policy/low-not-below-high' ? lowPriorityFix(doc, d) : undefined;
    if (special) {
      out.push(special);
      continue;
    }
    const name = suggestedName(d);
    if (!name) continue;
    const written = doc.getText(d.range);
    // The span is the misspelt word (its key or value); a quoted one keeps its quotes.
    const q = written[0] === '"' || written[0] === "'" ? written[0] : '';
    const bare = q ? written.slice(1, written.endsWith(q) ? -1 : undefined) : written;
    if (!bare || bare === name || /[\s:]/.test(bare)) continue;
    out.push({
      title: `Change "${bare}" to "${name}"`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [d],
      isPreferred: true,
      edit: { changes: { [doc.uri]: [{ range: d.range, newText: `${q}${name}${q}` }] } },
    });
  }
  return out;
}
