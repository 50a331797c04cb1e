/**
 * YAML documents with their source positions. Offsets are kept as the yaml library
 * gives them and turned into line:column only when a finding is made, through the
 * file's LineCounter (eemeli/yaml's own approach).
 */
import { isMap, isNode, isPair, isScalar, isSeq, LineCounter, parseAllDocuments } from 'yaml';
import type { Document, Node as YamlNode } from 'yaml';
import type { Finding } from '../errors.js';
import type { Source } from '../model/source.js';

export type PathSeg = string | number;

/** One YAML document of one file. */
export interface SourceDoc {
  file: string;
  /** Position of the document in its file, from 0. */
  index: number;
  doc: Document.Parsed;
  lines: LineCounter;
}

/** A file to read: its display path and its text. */
export interface InputFile {
  path: string;
  text: string;
}

/** Formats a path as users read it: `spec.quotas[0].min.gpu`. */
export function formatPath(path: readonly PathSeg[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? seg : `.${seg}`;
  }
  return out;
}

/** Parses every file into documents; YAML errors become findings (code policy/yaml-syntax or policy/duplicate-key). */
export function parseFiles(files: InputFile[]): { docs: SourceDoc[]; findings: Finding[] } {
  const docs: SourceDoc[] = [];
  const findings: Finding[] = [];
  for (const file of files) {
    const lines = new LineCounter();
    const parsed = parseAllDocuments(file.text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
    const list = Array.isArray(parsed) ? parsed : [];
    if (!Array.isArray(parsed)) {
      // An empty stream: parseAllDocuments returns an EmptyStream; nothing to read.
      continue;
    }
    list.forEach((doc, index) => {
      for (const err of [...doc.errors, ...doc.warnings]) {
        const pos = lines.linePos(err.pos[0]);
        const duplicate = err.code === 'DUPLICATE_KEY';
        findings.push({
          file: file.path,
          line: pos.line,
          column: pos.col,
          code: duplicate ? 'policy/duplicate-key' : 'policy/yaml-syntax',
          severity: doc.errors.includes(err as never) ? 'error' : 'warning',
          path: '',
          message: firstLine(err.message),
          hint: duplicate
            ? 'each key may appear once in a mapping; remove or rename the repeated key'
            : 'fix the YAML syntax at this position (indentation, a missing colon or an unclosed quote are common causes)',
        });
      }
      // A document that is only comments or `---` has no content: skip it silently, as YAML does.
      if (doc.contents === null) return;
      docs.push({ file: file.path, index, doc, lines });
    });
  }
  return { docs, findings };
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
}

/**
 * The YAML node at `path`, or the deepest existing ancestor when the path runs out
 * (a missing field is reported at the mapping that should hold it).
 */
export function nodeAt(sd: SourceDoc, path: readonly PathSeg[], wantKey = false): YamlNode | undefined {
  let node: unknown = sd.doc.contents;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return node;
      if (wantKey && i === path.length - 1 && isNode(pair.key)) return pair.key;
      if (!isNode(pair.value)) return isNode(pair.key) ? pair.key : node;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg];
      if (!isNode(item)) return node;
      node = item;
    } else {
      return isNode(node) ? node : undefined;
    }
  }
  return isNode(node) ? node : undefined;
}

/** The Source (file:line:col and path) of the value at `path`, or of its key when `wantKey`. */
export function sourceAt(sd: SourceDoc, path: readonly PathSeg[], wantKey = false): Source {
  const node = nodeAt(sd, path, wantKey);
  const offset = node?.range?.[0] ?? 0;
  const pos = sd.lines.linePos(offset);
  return { file: sd.file, line: pos.line, column: pos.col, path: formatPath(path) };
}

/** Builds a finding located at `path` of `sd`. */
export function findingAt(
  sd: SourceDoc,
  path: readonly PathSeg[],
  code: string,
  message: string,
  hint: string,
  options: { severity?: 'error' | 'warning'; key?: boolean } = {},
): Finding {
  const src = sourceAt(sd, path, options.key ?? false);
  return {
    file: src.file,
    line: src.line,
    column: src.column,
    code,
    severity: options.severity ?? 'error',
    path: src.path,
    message,
    hint,
  };
}
