/**
 * Completion: where a key goes, the fields the policy format allows there (those not
 * written yet), with their documentation; where a value goes, an enum's values, or the
 * quota, workspace or pool names the policy declares when the field refers to one.
 * Names come from the policy's text (name-sites.ts), so they complete in a policy that
 * does not check yet.
 */
import { CompletionItemKind, type CompletionItem } from 'vscode-languageserver/node';
import { isMap, type Node as YamlNode } from 'yaml';
import { DOCUMENT_KINDS, enumValues, fieldsAt } from './schema-fields.js';
import { nameField, type NameSite } from './name-sites.js';
import type { Cursor, Seg } from './yaml-tree.js';

/** The keys already written in the map at `path` of the cursor's document. */
function writtenKeys(cursor: Cursor, path: readonly Seg[]): Set<string> {
  let node = cursor.doc.doc.contents as YamlNode | null;
  for (const seg of path) {
    const next: unknown = node && (isMap(node) || 'items' in node) ? (node as { get(k: Seg, keep: true): unknown }).get(seg, true) : undefined;
    node = (next as YamlNode | undefined) ?? null;
  }
  const keys = new Set<string>();
  if (isMap(node)) for (const p of node.items) if (p.key && typeof p.key === 'object' && 'value' in p.key) keys.add(String(p.key.value));
  return keys;
}

/** The completion items at a cursor. */
export function completionsAt(cursor: Cursor, sites: readonly NameSite[]): CompletionItem[] {
  const kind = cursor.doc.kind;
  if (cursor.onKey) {
    // On a key being typed, its map is the path above it.
    const map = cursor.text ? cursor.path.slice(0, -1) : cursor.path;
    const have = writtenKeys(cursor, map);
    const fields: Array<{ name: string; doc?: string; required: boolean }> =
      map.length === 0 && !kind ? ['apiVersion', 'kind', 'metadata', 'spec'].map((name) => ({ name, required: true })) : fieldsAt(kind, map);
    return fields
      .filter((f) => !have.has(f.name) || f.name === cursor.text)
      .map((f) => ({
        label: f.name,
        kind: CompletionItemKind.Field,
        ...(f.doc ? { documentation: f.doc } : {}),
        detail: f.required ? 'required' : 'optional',
        insertText: `${f.name}: `,
      }));
  }
  const named = nameField(kind, cursor.path, false);
  if (named) {
    const names = [...new Set(sites.filter((s) => s.kind === named.kind && s.declaration).map((s) => s.name))].sort();
    return names.map((name) => ({ label: name, kind: named.kind === 'quota' ? CompletionItemKind.Class : CompletionItemKind.Module, detail: named.kind }));
  }
  if (cursor.path.length === 1 && cursor.path[0] === 'kind') return DOCUMENT_KINDS.map((k) => ({ label: k, kind: CompletionItemKind.EnumMember }));
  const path = typeof cursor.path.at(-1) === 'number' ? cursor.path.slice(0, -1) : cursor.path;
  return enumValues(kind, path).map((v) => ({ label: v, kind: CompletionItemKind.EnumMember }));
}
