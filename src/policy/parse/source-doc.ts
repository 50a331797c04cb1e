/**
 * YAML documents with their source positions. Offsets are kept as the yaml library
 * gives them and turned into line:column only when a finding is made, through the
 * file's LineCounter (eemeli/yaml's own approach).
 *
 * Positions are made only when asked for: a file is first read by the fast parsers
 * (policy/parse/subset-yaml.ts, else policy/parse/fast-parse.ts) into plain values, and its positioned parse runs the first time
 * a finding or a Source needs a line — for a large Cluster, usually never.
 */
import type { CST, Document, LineCounter, Node as YamlNode, Pair, YAMLMap } from 'yaml';
import { measureDocument } from './cst-shape.js';
import { addDuplicateKeyErrors } from './duplicate-keys.js';
import { recursiveAliasFindings } from './recursive-alias.js';
import { fastParse } from './fast-parse.js';
import { readSubset } from './subset-yaml.js';
import { scanText } from './text-depth.js';
import { currentLimits, formatBytes, LIMIT_ENV, raiseHint, type Limits } from './limits.js';
import { yamlErrorFinding, yamlFindings } from './yaml-findings.js';
import type { Finding } from '../../errors.js';
import { isFlagFile, type Source } from '../../model/source.js';
import { formatPath } from './field-path.js';
import { yamlLibrary } from './yaml-library.js';

// A field's path is its own small module: the syntax-tree findings (recursive-alias.ts,
// yaml-findings.ts, node-path.ts) need it, and taking it from here made files that this
// one imports import it back.
import type { PathSeg } from './field-path.js';
export { formatPath, type PathSeg } from './field-path.js';

/** One YAML document of one file. */
export interface SourceDoc {
  file: string;
  /** Position of the document in its file, from 0. */
  index: number;
  /** The positioned document (made on first use when the file was read by the fast path). */
  readonly doc: Document.Parsed;
  readonly lines: LineCounter;
  /** The document's plain value when the fast path read it: the same value `doc.toJS()` gives. */
  readonly value?: unknown;
  /** Every key and string of `value` is printable ASCII, so none holds a character a name may not hold. */
  readonly asciiOnly?: true;
}

/**
 * Where a field of a value document sits for the user: the file, line and column they
 * wrote it at, and the field path they know it by. A PAI request maps each Quotient field
 * to the JSON field it came from; undefined leaves the finding at line 0, column 0.
 */
export type Locate = (path: readonly PathSeg[], wantKey: boolean) => { file?: string; line: number; column: number; path?: string } | undefined;

/**
 * A document that came as values, not as text: a `--submit` flag, an HTTP request body, a
 * job a program hands the library, a PAI request translated field by field. It has no
 * YAML positions: findings about it carry its field path, and the position `locate` gives
 * (line and column 0 when it gives none: nothing the user wrote has a line). It is
 * validated by the same schema and builders as a document read from a file.
 */
export interface ValueDoc {
  readonly kind: 'value';
  file: string;
  index: number;
  readonly value: unknown;
  readonly locate?: Locate;
}

/** A document of either origin: read from text (positioned) or given as values. */
export type Doc = SourceDoc | ValueDoc;

/** True for a document given as values. */
export function isValueDoc(sd: Doc): sd is ValueDoc {
  return 'kind' in sd && sd.kind === 'value';
}

/** A document given as values, named `file` in findings; `locate` places its fields where the user wrote them. */
export function valueDoc(file: string, value: unknown, locate?: Locate): ValueDoc {
  return { kind: 'value', file, index: 0, value, ...(locate ? { locate } : {}) };
}

/** A file to read: its display path and its text. */
export interface InputFile {
  path: string;
  text: string;
  /** Problems found while reading it (bytes that are not UTF-8, a file over the size limit): parse errors of the file. */
  findings?: Finding[];
  /** SHA-256 of the bytes the text was read from (set when read from disk): `scale --apply` checks it before replacing the file. */
  digest?: string;
  /**
   * Named on the command line beside a policy folder (`quotient whatif policy/ cluster.yaml`):
   * its documents join the folder's, and its Cluster documents replace the folder's.
   */
  beside?: true;
}

/**
 * YAML 1.2 takes a lone CR as a line break, but the yaml library reads it as part of a
 * line, so a CR-only file would parse as one comment and its documents vanish. Each
 * lone CR becomes LF: one character for one, so every offset still points at the same
 * character of the file as written.
 */
export function normaliseLineBreaks(text: string): string {
  return text.includes('\r') ? text.replace(/\r(?!\n)/g, '\n') : text;
}

/**
 * True for a document with nothing in it: `---` alone, or only comments (helm and
 * kubectl write them between objects). An explicit `null` or `~` is content, not empty.
 */
function isEmptyDocument(doc: Document.Parsed): boolean {
  const { isScalar } = yamlLibrary();
  const c = doc.contents;
  if (c === null) return true;
  return isScalar(c) && c.value === null && c.range[0] === c.range[1] && !c.anchor && !c.tag;
}

/**
 * Parses every file into documents. YAML errors become findings: the first error of a
 * document only (later ones are its echoes), named (`policy/bad-indentation`,
 * `policy/duplicate-key` with the key); documents nested past the depth limit and
 * policies past the size limits are findings too, found before anything recursive
 * reads them. Empty documents are skipped; a file with nothing else is a warning.
 */
export function parseFiles(files: InputFile[], limits: Limits = currentLimits()): { docs: SourceDoc[]; findings: Finding[] } {
  const docs: SourceDoc[] = [];
  const findings: Finding[] = [];
  let entries = 0;
  let chars = 0;
  for (const file of files) {
    if (file.findings?.length) {
      for (const f of file.findings) findings.push(f);
      continue;
    }
    chars += file.text.length;
    if (chars > limits.maxBytes) {
      // Text handed in by a library caller (the CLI checks bytes before reading).
      findings.push(tooLarge(file.path, `the policy is larger than the limit of ${formatBytes(limits.maxBytes)}`, raiseHint('maxBytes', limits.maxBytes)));
      break;
    }
    const text = normaliseLineBreaks(file.text);
    const fastLimits = { maxDepth: limits.maxDepth, maxEntries: limits.maxNodes - entries };
    // The common subset of YAML read directly first: it builds nothing recursive past the
    // depth limit and stops past the entries limit, so on a text it reads, the text scan
    // below would find nothing (test/unit/policy/subset-yaml.test.ts checks that too).
    const subset = readSubset(text, fastLimits);
    if (!subset) {
      // Both parsers recurse (the yaml parser when it closes a deep block, js-yaml per level),
      // and both build every entry before anything can count them: nesting far past the
      // limit, and more entries than the limit, are refused on the text first (one pass).
      const textShape = scanText(text, limits.maxDepth * 2, limits.maxNodes - entries);
      if (textShape.deepAt !== undefined) {
        findings.push(tooDeep(file.path, textShape.deepAt, positionIn(text, textShape.deepAt), limits));
        continue;
      }
      if (textShape.entriesOverAt !== undefined) {
        findings.push(tooManyEntries(file.path, positionIn(text, textShape.entriesOverAt), limits));
        break;
      }
    }
    const docsBefore = docs.length;
    // Without positions: the subset reader's values, else js-yaml's.
    const fast = subset ? { ok: true as const, ...subset } : { asciiOnly: false, ...fastParse(text, fastLimits) };
    if (fast.ok) {
      entries += fast.entries;
      // Positions on demand: the positioned parse of this file runs once, when first asked.
      // By index: a file of many documents asks for each one's positions (a finding in each).
      let positioned: Map<number, SourceDoc> | undefined;
      const positionedDoc = (index: number): SourceDoc => {
        positioned ??= new Map(parsePositioned(file.path, text, limits, 0).docs.map((d) => [d.index, d]));
        const sd = positioned.get(index);
        if (!sd) throw new Error(`internal: the positioned parse of ${file.path} has no document ${index} where the fast parse had one`);
        return sd;
      };
      fast.values.forEach((value, index) => docs.push(lazySourceDoc(file.path, index, value, positionedDoc, fast.asciiOnly)));
      if (docs.length === docsBefore) findings.push(emptyFile(file.path));
      continue;
    }
    const read = parsePositioned(file.path, text, limits, entries);
    entries = read.entries;
    // One by one: a file may hold more documents and findings than a spread can pass.
    for (const d of read.docs) docs.push(d);
    for (const f of read.findings) findings.push(f);
    if (read.overNodes) break;
    if (read.docs.length === 0 && read.findings.length === 0) findings.push(emptyFile(file.path));
  }
  return { docs, findings: findings.map((f) => (isFlagFile(f.file) ? withoutPosition(f) : f)) };
}

/**
 * A finding about a command-line value without the position in the document Quotient
 * built from the flag: line and column 0 and no span (the user never saw that document;
 * `file` names the flag and `path` the key).
 */
function withoutPosition(f: Finding): Finding {
  const { start: _start, end: _end, ...rest } = f;
  return { ...rest, line: 0, column: 0 };
}

/** A document read by the fast path: its value now, its positioned document when first asked. */
function lazySourceDoc(file: string, index: number, value: unknown, positioned: (index: number) => SourceDoc, asciiOnly: boolean): SourceDoc {
  return {
    file,
    index,
    value,
    ...(asciiOnly ? { asciiOnly: true as const } : {}),
    get doc(): Document.Parsed {
      return positioned(index).doc;
    },
    get lines(): LineCounter {
      return positioned(index).lines;
    },
  };
}

/**
 * One file through the yaml library with positions: every document, the findings of its
 * syntax, and the depth and size limits measured on the CST before anything recursive
 * reads it. `entriesBefore` counts the entries of the files read before this one.
 */
function parsePositioned(path: string, text: string, limits: Limits, entriesBefore: number): { docs: SourceDoc[]; findings: Finding[]; entries: number; overNodes: boolean } {
  const docs: SourceDoc[] = [];
  const findings: Finding[] = [];
  let entries = entriesBefore;
  const file = { path };
  const { Composer, LineCounter, Parser } = yamlLibrary();
  const lines = new LineCounter();
  const parser = new Parser(lines.addNewLine);
  // Duplicate keys are found by one walk per document (duplicate-keys.ts): the composer's
  // own check compares each key with every earlier one of its mapping, quadratic in a
  // mapping's size.
  const composer = new Composer({ uniqueKeys: false, prettyErrors: false });
  const skipped = new Set<number>();
  let index = 0;
  // Only a text with a `*` can hold an alias (one scan of the file, not one walk per document).
  const mayAlias = text.includes('*');
  const take = (doc: Document.Parsed): void => {
    const at = index++;
    if (skipped.has(at)) return;
    addDuplicateKeyErrors(doc);
    findings.push(...yamlFindings(file.path, text, lines, doc));
    if (isEmptyDocument(doc)) return;
    if (mayAlias) {
      // A value that holds itself is never handed on: every walk of it would run forever.
      const cycles = recursiveAliasFindings(file.path, text, lines, doc);
      if (cycles.length > 0) {
        findings.push(...cycles);
        return;
      }
    }
    docs.push({ file: file.path, index: at, doc, lines });
  };
  let docTokens = 0;
  let overNodes = false;
  let lastOffset = 0;
  try {
    for (const token of parser.parse(text)) {
      lastOffset = token.offset;
      let next: CST.Token = token;
      if (token.type === 'document') {
        const shape = measureDocument(token, limits.maxDepth, limits.maxNodes - entries);
        entries += shape.entries;
        if (shape.tooDeepAt !== undefined) {
          findings.push(tooDeep(file.path, shape.tooDeepAt, lines.linePos(shape.tooDeepAt), limits));
          // Compose an empty document in its place, so the composer's document count stays aligned.
          skipped.add(docTokens);
          next = { ...token, value: undefined };
        }
        docTokens++;
        if (entries > limits.maxNodes) {
          overNodes = true;
          findings.push(tooManyEntries(file.path, lines.linePos(token.offset), limits));
          break;
        }
      }
      for (const doc of composer.next(next)) take(doc);
    }
  } catch (e) {
    // The last line of defence: a shape the text scan underestimated overflowed the parser's stack.
    if (!(e instanceof RangeError)) throw e;
    return { docs: [], findings: [...findings, tooDeep(file.path, lastOffset, positionIn(text, lastOffset), limits)], entries, overNodes: false };
  }
  if (overNodes) return { docs, findings, entries, overNodes };
  for (const doc of composer.end()) take(doc);
  // Errors outside any document (a stray `...` before the first one) have no document to carry them.
  for (const err of composer.streamInfo().errors) findings.push(yamlErrorFinding(file.path, text, lines, err));
  return { docs, findings, entries, overNodes: false };
}

/**
 * A file that holds no document (empty, blank, only comments or empty `---` documents):
 * a warning, not silence, since a file saved empty beside a policy usually means a
 * lost edit, and everything meant to be in it is missing from the answers.
 */
function emptyFile(file: string): Finding {
  return {
    file,
    line: 1,
    column: 1,
    code: 'policy/empty-file',
    severity: 'warning',
    path: '',
    message: `${file} holds no document (it is empty, or holds only comments and empty documents), so nothing in it is part of the policy`,
    hint: 'remove the file, or check that it was saved: a policy file holds YAML documents that start with apiVersion and kind',
  };
}

function tooDeep(file: string, offset: number, pos: { line: number; col: number }, limits: Limits): Finding {
  return {
    file,
    line: pos.line,
    column: pos.col,
    start: offset,
    end: offset + 1,
    code: 'policy/too-deep',
    severity: 'error',
    path: '',
    message: `the document nests mappings and lists more than ${limits.maxDepth} levels deep here`,
    hint: `a policy needs a few levels (a quota tree ${Math.floor((limits.maxDepth - 4) / 2)} levels deep fits); flatten it, or raise the limit with ${LIMIT_ENV.maxDepth}`,
  };
}

/** Line and column (1-based) of `offset`, counted on the text (for findings made before the parser counted lines). */
function positionIn(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return { line, col: offset - (text.lastIndexOf('\n', offset - 1) + 1) + 1 };
}

function tooManyEntries(file: string, pos: { line: number; col: number }, limits: Limits): Finding {
  return tooLarge(file, `the policy holds more than ${limits.maxNodes.toLocaleString('en-US')} YAML entries (keys and list items)`, raiseHint('maxNodes', limits.maxNodes), pos);
}

function tooLarge(file: string, message: string, hint: string, pos = { line: 1, col: 1 }): Finding {
  return { file, line: pos.line, column: pos.col, code: 'policy/too-large', severity: 'error', path: '', message, hint };
}

/**
 * The YAML node at `path`, or the deepest existing ancestor when the path runs out
 * (a missing field is reported at the mapping that should hold it).
 */
export function nodeAt(sd: SourceDoc, path: readonly PathSeg[], wantKey = false): YamlNode | undefined {
  const { isMap, isNode, isSeq } = yamlLibrary();
  let node: unknown = sd.doc.contents;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (isMap(node)) {
      const pair = pairOf(node, String(seg));
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

/** The pairs of large mappings by key: one finding per key of a mapping of 20,000 keys searched it 20,000 times. */
const PAIRS = new WeakMap<YAMLMap, Map<string, Pair>>();

/** The first pair of `map` whose scalar key reads as `key`. */
function pairOf(map: YAMLMap, key: string): Pair | undefined {
  const { isPair, isScalar } = yamlLibrary();
  const match = (p: unknown): p is Pair => isPair(p) && isScalar(p.key) && String(p.key.value) === key;
  if (map.items.length < 32) return map.items.find(match);
  let index = PAIRS.get(map);
  if (!index) {
    index = new Map();
    for (const p of map.items) if (isPair(p) && isScalar(p.key) && !index.has(String(p.key.value))) index.set(String(p.key.value), p);
    PAIRS.set(map, index);
  }
  return index.get(key);
}

/**
 * A Source whose line and column are worked out when first read: a model object's Source
 * costs nothing until a finding or an answer prints it, which keeps a large Cluster off
 * the positioned parse. `line` and `column` are getters (a spread `{ ...src }` does not
 * copy them: copy the fields by name); `toJSON` gives all four fields.
 */
class LazySource implements Source {
  // Private fields: what a Source is stays file, path, line and column to equality checks
  // and copies; the document it resolves from is not part of it.
  #pos?: { line: number; col: number };
  readonly #sd: SourceDoc;
  /** Undefined for a Source restored from the compiled-policy cache whose path reads back as `path` (parsePath). */
  readonly #at: readonly PathSeg[] | undefined;
  readonly #wantKey: boolean;
  constructor(
    readonly file: string,
    readonly path: string,
    sd: SourceDoc,
    at: readonly PathSeg[] | undefined,
    wantKey: boolean,
  ) {
    this.#sd = sd;
    this.#at = at;
    this.#wantKey = wantKey;
  }
  /** What makes `src` again (sourceRecipe), or undefined when it is not a LazySource. */
  static recipe(src: object): SourceRecipe | undefined {
    if (!(#sd in src)) return undefined;
    return { sd: src.#sd, path: src.path, at: src.#at ?? parsePath(src.path), wantKey: src.#wantKey };
  }
  #resolve(): { line: number; col: number } {
    // A value from a flag has no line the user wrote (see isFlagFile).
    if (!this.#pos && isFlagFile(this.file)) this.#pos = { line: 0, col: 0 };
    if (!this.#pos) {
      const node = nodeAt(this.#sd, this.#at ?? parsePath(this.path), this.#wantKey);
      this.#pos = this.#sd.lines.linePos(node?.range?.[0] ?? 0);
    }
    return this.#pos;
  }
  get line(): number {
    return this.#resolve().line;
  }
  get column(): number {
    return this.#resolve().col;
  }
  toJSON(): Source {
    return { file: this.file, line: this.line, column: this.column, path: this.path };
  }
}

/** The Source (file:line:col and path) of the value at `path`, or of its key when `wantKey`; resolved on first read. */
export function sourceAt(sd: Doc, path: readonly PathSeg[], wantKey = false): Source {
  if (isValueDoc(sd)) {
    const at = sd.locate?.(path, wantKey);
    return { file: at?.file ?? sd.file, line: at?.line ?? 0, column: at?.column ?? 0, path: at?.path ?? formatPath(path) };
  }
  return new LazySource(sd.file, formatPath(path), sd, path, wantKey);
}

/** Builds a finding located at `path` of `sd`, with the character offsets of the node it points at. */
export function findingAt(sd: Doc, path: readonly PathSeg[], code: string, message: string, hint: string, options: { severity?: 'error' | 'warning'; key?: boolean } = {}): Finding {
  if (isValueDoc(sd)) {
    const at = sd.locate?.(path, options.key ?? false);
    return { file: at?.file ?? sd.file, line: at?.line ?? 0, column: at?.column ?? 0, code, severity: options.severity ?? 'error', path: at?.path ?? formatPath(path), message, hint };
  }
  if (isFlagFile(sd.file)) return { file: sd.file, line: 0, column: 0, code, severity: options.severity ?? 'error', path: formatPath(path), message, hint };
  const node = nodeAt(sd, path, options.key ?? false);
  const start = node?.range?.[0] ?? 0;
  const end = node?.range?.[1] ?? start;
  const pos = sd.lines.linePos(start);
  return {
    file: sd.file,
    line: pos.line,
    column: pos.col,
    start,
    end,
    code,
    severity: options.severity ?? 'error',
    path: formatPath(path),
    message,
    hint,
  };
}

/**
 * What a lazily resolved Source is made of: the document it resolves in, its path as text
 * and as segments, and whether it points at the key. The compiled-policy cache
 * (engine/policy-cache.ts) stores it and makes the Source again with `restoreSource` over
 * `reopenedDocs`, so a cached policy's lines and columns are the same as a fresh load's.
 */
export interface SourceRecipe {
  sd: SourceDoc;
  path: string;
  at: readonly PathSeg[];
  wantKey: boolean;
}

/** The recipe of a Source made by `sourceAt` from a positioned document, or undefined for any other value. */
export function sourceRecipe(src: object): SourceRecipe | undefined {
  return LazySource.recipe(src);
}

/** A Source resolved on first read in `sd`; `at` undefined: the segments `path` reads back as (parsePath). */
export function restoreSource(sd: SourceDoc, path: string, at: readonly PathSeg[] | undefined, wantKey: boolean): Source {
  return new LazySource(sd.file, path, sd, at, wantKey);
}

/** The segments of a path as formatPath writes it (`spec.quotas[0].min` → spec, quotas, 0, min); a key holding `.` or `[` does not read back. */
export function parsePath(path: string): PathSeg[] {
  const out: PathSeg[] = [];
  const re = /\[(\d+)\]|\.?([^.[]+)/g;
  for (let m = re.exec(path); m; m = re.exec(path)) out.push(m[1] !== undefined ? Number(m[1]) : m[2]!);
  return out;
}

/**
 * The documents of `files` as `parseFiles` numbers them, each positioned on first use
 * (one positioned parse per file, as parseFiles's lazy documents): what a Source restored
 * from the compiled-policy cache resolves its line and column in.
 */
export function reopenedDocs(files: readonly InputFile[], limits: Limits = currentLimits()): (file: number, index: number) => SourceDoc {
  const parsed = new Map<number, Map<number, SourceDoc>>();
  const positioned = (file: number, index: number): SourceDoc => {
    let docs = parsed.get(file);
    if (!docs) {
      const f = files[file]!;
      docs = new Map(parsePositioned(f.path, normaliseLineBreaks(f.text), limits, 0).docs.map((d) => [d.index, d]));
      parsed.set(file, docs);
    }
    const sd = docs.get(index);
    if (!sd) throw new Error(`internal: the positioned parse of ${files[file]!.path} has no document ${index}`);
    return sd;
  };
  return (file, index) => ({
    file: files[file]!.path,
    index,
    get doc(): Document.Parsed {
      return positioned(file, index).doc;
    },
    get lines(): LineCounter {
      return positioned(file, index).lines;
    },
  });
}
