/**
 * The policy text as the editor features read it: every YAML document of a file with its
 * kind, and what sits at a character offset (the field path, on a key or a value, the
 * scalar's text and span). Parsed with the yaml library's positions; findings never come
 * from here (they are check's), only the answers to "what is under the cursor".
 */
import { isMap, isPair, isScalar, isSeq, parseAllDocuments, type Document, type Node as YamlNode } from 'yaml';

export type Seg = string | number;

/** One document of a file: its kind (when it names one) and its parsed tree. */
export interface YamlDoc {
  kind?: string;
  doc: Document.Parsed;
}

/** What is at an offset. */
export interface Cursor {
  doc: YamlDoc;
  /** The field path to the key or value under the cursor (a key's own name is its last segment). */
  path: Seg[];
  /** On a key (or where a key goes), not a value. */
  onKey: boolean;
  /** The scalar's text, '' where none is written yet. */
  text: string;
  /** The scalar's span [start, end) in the file; at the offset when empty. */
  start: number;
  end: number;
}

/** Every document of the text. Never throws: a broken file gives what parses of it. */
export function parseYamlDocs(text: string): YamlDoc[] {
  let docs: Document.Parsed[];
  try {
    docs = parseAllDocuments(text, { keepSourceTokens: false, uniqueKeys: false }) as Document.Parsed[];
  } catch {
    return [];
  }
  if (!Array.isArray(docs)) return [];
  return docs.map((doc) => {
    const contents = doc.contents;
    const kindNode = isMap(contents) ? contents.get('kind', true) : undefined;
    const kind = isScalar(kindNode) && typeof kindNode.value === 'string' ? kindNode.value : undefined;
    return { doc, ...(kind ? { kind } : {}) };
  });
}

function within(node: YamlNode | null | undefined, offset: number): boolean {
  const r = node?.range;
  return !!r && offset >= r[0] && offset <= r[1];
}

/** A scalar's value as text: strings, numbers and booleans as written; anything else (null, a tag's object) empty. */
export function scalarText(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' ? String(v) : '';
}

function scalarCursor(doc: YamlDoc, node: YamlNode, path: Seg[], onKey: boolean): Cursor {
  const r = node.range ?? [0, 0, 0];
  const value = isScalar(node) ? node.value : '';
  return { doc, path, onKey, text: scalarText(value), start: r[0], end: r[1] };
}

/** The cursor inside one node at `path`. */
function descend(doc: YamlDoc, node: YamlNode, path: Seg[], offset: number, text: string): Cursor | undefined {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = pair.key as YamlNode | null;
      const name = isScalar(key) ? String(key.value) : '';
      if (key && within(key, offset)) return scalarCursor(doc, key, [...path, name], true);
      const value = pair.value as YamlNode | null;
      if (value && within(value, offset) && !(isScalar(value) && value.value === null && value.range?.[0] === value.range?.[1])) return descend(doc, value, [...path, name], offset, text);
      // `quota: |` with nothing written yet: the value of that key, on the key's line.
      const keyEnd = key?.range?.[1];
      if (keyEnd !== undefined && offset > keyEnd && !text.slice(keyEnd, offset).includes('\n') && (!value || (isScalar(value) && (value.value === null || value.value === ''))))
        return { doc, path: [...path, name], onKey: false, text: '', start: offset, end: offset };
    }
    return { doc, path, onKey: true, text: '', start: offset, end: offset };
  }
  if (isSeq(node)) {
    for (let i = 0; i < node.items.length; i++) {
      const item = node.items[i] as YamlNode | null;
      if (item && within(item, offset)) return descend(doc, item, [...path, i], offset, text);
    }
    return { doc, path: [...path, node.items.length], onKey: false, text: '', start: offset, end: offset };
  }
  return scalarCursor(doc, node, path, false);
}

/**
 * What is at `offset` of `text`. A line being typed that has no colon yet (`  mi`) is read
 * as the key it is becoming, so completion knows the map it belongs to.
 */
export function cursorAt(text: string, offset: number): Cursor | undefined {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const lineEndAt = text.indexOf('\n', offset);
  const lineEnd = lineEndAt < 0 ? text.length : lineEndAt;
  const line = text.slice(lineStart, lineEnd);
  let read = text;
  if (/^\s*(- )?[\w.-]*$/.test(line) && line.trim() !== '' && line.trim() !== '-') read = `${text.slice(0, lineEnd)}:${text.slice(lineEnd)}`;
  else if (/^\s*(- )?$/.test(line)) read = `${text.slice(0, offset)}x:${text.slice(offset)}`;
  const blankKey = read !== text && /^\s*(- )?$/.test(line);
  for (const d of parseYamlDocs(read)) {
    const contents = d.doc.contents as YamlNode | null;
    const r = d.doc.range;
    if (!contents || offset < r[0] || offset > r[2]) continue;
    const c = descend(d, contents, [], offset, read);
    if (!c) continue;
    // The placeholder key `x` of a blank line is no name: where a key goes.
    if (blankKey && c.onKey) return { ...c, path: c.path.slice(0, -1), text: '', start: offset, end: offset };
    return c;
  }
  return undefined;
}

/** A path without the sequence indices: `spec.quotas.children.name`. */
export function fieldsOf(path: readonly Seg[]): string {
  return path.filter((s) => typeof s === 'string').join('.');
}

/** Visits every scalar of a document with its path and whether it is a key. */
export function eachScalar(node: YamlNode | null | undefined, path: Seg[], visit: (node: YamlNode, path: Seg[], isKey: boolean) => void): void {
  if (!node) return;
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = pair.key as YamlNode | null;
      const name = isScalar(key) ? String(key.value) : '';
      if (key) visit(key, [...path, name], true);
      eachScalar(pair.value as YamlNode | null, [...path, name], visit);
    }
  } else if (isSeq(node)) node.items.forEach((item, i) => eachScalar(item as YamlNode | null, [...path, i], visit));
  else if (isScalar(node)) visit(node, path, false);
}
