/**
 * Go to definition, find references and rename for quota, workspace and pool names, across
 * the files of the policy (name-sites.ts), and the outline of a file: its documents, and a
 * QuotaTree's quotas as a tree.
 */
import { SymbolKind, type DocumentSymbol, type Location, type TextEdit } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { isMap, isScalar, isSeq, type Node as YamlNode } from 'yaml';
import type { NameSite } from './name-sites.js';
import { scalarText, type YamlDoc } from './yaml-tree.js';

/** A file of the policy as navigation sees it: its URI and its text as a document. */
export interface NavFile {
  uri: string;
  doc: TextDocument;
}

/** The site under an offset of a file, if a name is there. */
export function siteAt(sites: readonly NameSite[], file: string, offset: number): NameSite | undefined {
  return sites.find((s) => s.file === file && offset >= s.start && offset <= s.end);
}

function locationOf(site: NameSite, files: ReadonlyMap<string, NavFile>): Location | undefined {
  const f = files.get(site.file);
  return f ? { uri: f.uri, range: { start: f.doc.positionAt(site.start), end: f.doc.positionAt(site.end) } } : undefined;
}

/** Where the name of `site` is declared. */
export function definitions(site: NameSite, sites: readonly NameSite[], files: ReadonlyMap<string, NavFile>): Location[] {
  return sites.filter((s) => s.declaration && s.kind === site.kind && s.name === site.name).flatMap((s) => locationOf(s, files) ?? []);
}

/** Every site of the name of `site`; with its declaration or without. */
export function references(site: NameSite, sites: readonly NameSite[], files: ReadonlyMap<string, NavFile>, withDeclaration: boolean): Location[] {
  return sites.filter((s) => s.kind === site.kind && s.name === site.name && (withDeclaration || !s.declaration)).flatMap((s) => locationOf(s, files) ?? []);
}

/** The scalar as written, with `name` in place of its text: quotes kept. */
function respell(written: string, name: string): string {
  const q = written[0];
  if (q === '"') return JSON.stringify(name);
  if (q === "'") return `'${name.replace(/'/g, "''")}'`;
  return name;
}

/** The edits, by URI, that rename the name of `site` everywhere the policy declares or refers to it. */
export function renameEdits(site: NameSite, newName: string, sites: readonly NameSite[], files: ReadonlyMap<string, NavFile>): Record<string, TextEdit[]> {
  const changes: Record<string, TextEdit[]> = {};
  for (const s of sites) {
    if (s.kind !== site.kind || s.name !== site.name) continue;
    const f = files.get(s.file);
    if (!f) continue;
    const range = { start: f.doc.positionAt(s.start), end: f.doc.positionAt(s.end) };
    (changes[f.uri] ??= []).push({ range, newText: respell(f.doc.getText(range), newName) });
  }
  return changes;
}

/** The symbols of a file: each document by kind and name; a QuotaTree's quotas nested as they are. */
export function documentSymbols(docs: readonly YamlDoc[], text: TextDocument): DocumentSymbol[] {
  const rangeOf = (n: YamlNode) => ({ start: text.positionAt(n.range?.[0] ?? 0), end: text.positionAt(n.range?.[1] ?? 0) });
  const quotaSymbols = (list: unknown): DocumentSymbol[] => {
    if (!isSeq(list)) return [];
    return list.items.flatMap((item) => {
      if (!isMap(item)) return [];
      const name = item.get('name', true);
      const label = isScalar(name) ? String(name.value) : '(unnamed quota)';
      const min = item.get('min', true);
      const gpu = isMap(min) ? min.get('gpu') : undefined;
      const node = item as YamlNode;
      return [
        {
          name: label,
          detail: gpu !== undefined ? `min ${scalarText(gpu)} GPU` : '',
          kind: SymbolKind.Class,
          range: rangeOf(node),
          selectionRange: isScalar(name) ? rangeOf(name) : rangeOf(node),
          children: quotaSymbols(item.get('children', true)),
        },
      ];
    });
  };
  const out: DocumentSymbol[] = [];
  for (const d of docs) {
    const contents = d.doc.contents as YamlNode | null;
    if (!isMap(contents)) continue;
    const meta = contents.get('metadata', true);
    const nameNode = isMap(meta) ? meta.get('name', true) : undefined;
    const name = isScalar(nameNode) ? String(nameNode.value) : '(unnamed)';
    const spec = contents.get('spec', true);
    out.push({
      name: `${d.kind ?? 'document'} ${name}`,
      kind: d.kind === 'QuotaTree' ? SymbolKind.Namespace : SymbolKind.Object,
      range: rangeOf(contents),
      selectionRange: isScalar(nameNode) ? rangeOf(nameNode) : rangeOf(contents),
      children: d.kind === 'QuotaTree' && isMap(spec) ? quotaSymbols(spec.get('quotas', true)) : [],
    });
  }
  return out;
}
