/**
 * Quick fixes: a finding whose hint (or message) says `did you mean "X"` offers to write X
 * where the finding points: a misspelt field name, quota, workspace or user. The fix is
 * the finding's own suggestion; the server invents none.
 */
import { CodeActionKind, type CodeAction, type Diagnostic } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { DiagnosticData } from './diagnostics.js';

/** The name a finding suggests, from `did you mean [what] "X"?`. */
export function suggestedName(d: Diagnostic): string | undefined {
  const data = d.data as Partial<DiagnosticData> | undefined;
  const message = typeof d.message === 'string' ? d.message : d.message.value;
  const said = `${data?.hint ?? ''}\n${message}`;
  return /did you mean (?:[\w ]+ )?"([^"]+)"/.exec(said)?.[1];
}

/** The quick fixes for the diagnostics the editor asks about in one document. */
export function quickFixes(doc: TextDocument, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const out: CodeAction[] = [];
  for (const d of diagnostics) {
    if (d.source !== 'quotient') continue;
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
