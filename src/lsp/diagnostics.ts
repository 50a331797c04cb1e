/**
 * Findings as LSP diagnostics: one per finding, on the file it names, with its code, its
 * hint and its field path kept (`data`, read back by the quick fixes), and every other
 * place of the policy it cites (`teams.yaml:9:7`, "already declared at ...") as related
 * information, so the editor links them.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DiagnosticSeverity, type Diagnostic, type DiagnosticRelatedInformation, type Range } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Finding } from '../errors.js';
import type { InputFile } from '../policy/parse/source-doc.js';

/** What a diagnostic carries for the code actions: the finding's hint and field path. */
export interface DiagnosticData {
  hint: string;
  path: string;
}

/** The URI of a file a finding names (relative to `base`, where the policy's display paths start). */
export function uriOf(base: string, file: string): string {
  return pathToFileURL(resolve(base, file)).href;
}

/** The range a finding marks: its span when it has one, else the word at its line and column. */
export function rangeOf(f: Finding, doc: TextDocument | undefined): Range {
  if (doc && f.start !== undefined) {
    const end = f.end !== undefined && f.end > f.start ? f.end : f.start + 1;
    return { start: doc.positionAt(f.start), end: doc.positionAt(end) };
  }
  const line = Math.max(0, f.line - 1);
  const character = Math.max(0, f.column - 1);
  const text = doc?.getText({ start: { line, character }, end: { line: line + 1, character: 0 } }) ?? '';
  const word = /^[^\s,:{}[\]]*/.exec(text)?.[0].length ?? 0;
  return { start: { line, character }, end: { line, character: character + Math.max(1, word) } };
}

/** Places cited in a finding's words (`file.yaml:12:5`) that are files of this policy. */
function related(f: Finding, base: string, texts: ReadonlyMap<string, TextDocument>): DiagnosticRelatedInformation[] {
  const out: DiagnosticRelatedInformation[] = [];
  const cite = /([^\s"'`(),]+\.ya?ml):(\d+):(\d+)/g;
  for (const m of `${f.message} ${f.hint}`.matchAll(cite)) {
    const file = m[1] ?? '';
    if (!texts.has(file)) continue;
    const line = Number(m[2]) - 1;
    const character = Number(m[3]) - 1;
    out.push({ location: { uri: uriOf(base, file), range: { start: { line, character }, end: { line, character: character + 1 } } }, message: 'cited here' });
  }
  return out;
}

/**
 * The diagnostics of a policy's findings by URI: every file of the policy has an entry
 * (empty when clean), so publishing them clears what an earlier edit reported.
 */
export function diagnosticsByUri(findings: readonly Finding[], files: readonly InputFile[], base: string): Map<string, Diagnostic[]> {
  const texts = new Map<string, TextDocument>();
  const docOf = (file: string): TextDocument | undefined => {
    let doc = texts.get(file);
    if (!doc) {
      const f = files.find((x) => x.path === file);
      if (!f) return undefined;
      doc = TextDocument.create(uriOf(base, file), 'yaml', 0, f.text);
      texts.set(file, doc);
    }
    return doc;
  };
  for (const f of files) docOf(f.path);
  const out = new Map<string, Diagnostic[]>(files.map((f) => [uriOf(base, f.path), []]));
  for (const f of findings) {
    const uri = uriOf(base, f.file);
    const data: DiagnosticData = { hint: f.hint, path: f.path };
    const info = related(f, base, texts);
    const d: Diagnostic = {
      range: rangeOf(f, docOf(f.file)),
      severity: f.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
      code: f.code,
      source: 'quotient',
      message: f.hint ? `${f.message}\nhint: ${f.hint}` : f.message,
      data,
      ...(info.length ? { relatedInformation: info } : {}),
    };
    const list = out.get(uri);
    if (list) list.push(d);
    else out.set(uri, [d]);
  }
  return out;
}
