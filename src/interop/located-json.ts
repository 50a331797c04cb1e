/**
 * JSON and YAML inputs of other tools, read with positions. JSON (what `kubectl -o json`
 * prints) is read by `JSON.parse` after one pass for its limits and duplicate keys
 * (json-scan.ts), and a position is found only when a finding or an origin asks for one
 * (json-locator.ts): a 20,000-pod List reads in about a second. Other text, and JSON
 * that does not parse as JSON, goes through the policy loader's parsers (JSON is YAML
 * 1.2) under the policy's limits, positions made on the first finding. Either way every
 * finding about a foreign object points at `file:line:col` of the field it is about.
 */
import type { Finding } from '../errors.js';
import { currentLimits, formatBytes, LIMIT_ENV } from '../policy/parse/limits.js';
import { isNode } from 'yaml';
import { findingAt, formatPath, normaliseLineBreaks, parseFiles, sourceAt, type InputFile, type PathSeg, type SourceDoc } from '../policy/parse/source-doc.js';
import type { Source } from '../model/source.js';
import { currentImportLimits, IMPORT_LIMIT_ENV } from './import-limits.js';
import { writableText } from './imported-name.js';
import { JsonLocator } from './json-locator.js';
import { scanJson } from './json-scan.js';

/** One parsed document with its plain value. */
export interface LocatedDoc {
  sd: SourceDoc;
  value: unknown;
}

/** How to read an input, and what to call it in findings. */
export interface ReadOptions {
  /** Read JSON text as JSON (fast, positions on demand) rather than through the YAML parsers. */
  json?: boolean;
  /** What the input is, for findings about it as a whole: "the kubectl List" (default "the input"). */
  what?: string;
}

/** The positions of documents read as JSON (every other SourceDoc has the YAML parser's). */
const LOCATORS = new WeakMap<SourceDoc, JsonLocator>();

/** The text documents read through the YAML path came from (line breaks normalised, as their offsets count). */
const TEXTS = new WeakMap<SourceDoc, string>();

/** Parses a file's documents; syntax errors come back as `interop/yaml-syntax` (and the parser's other) findings. */
export function readLocated(file: InputFile, options: ReadOptions = {}): { docs: LocatedDoc[]; findings: Finding[] } {
  const what = options.what ?? 'the input';
  if (options.json && !file.findings?.length && /^[\s]*[[{]/.test(file.text.slice(0, 1024))) {
    const read = readJson(file, what);
    if (read) return read;
  }
  // Not JSON: the policy's parsers, under the policy's limits, named for what the input is.
  const limits = currentLimits();
  if (file.text.length > limits.maxBytes) {
    return {
      docs: [],
      findings: [
        wholeFile(
          file.path,
          'interop/too-large',
          `${what} ${file.path} is ${formatBytes(file.text.length)}, larger than the limit of ${formatBytes(limits.maxBytes)} for YAML input (read with positions, which cost ~110 bytes of memory per byte)`,
          `${options.json ? `give it as JSON (\`kubectl get ... -o json\`: JSON is read up to ${formatBytes(currentImportLimits().maxBytes)}), or ` : ''}raise the limit with ${LIMIT_ENV.maxBytes}=${limits.maxBytes * 2} (a larger input needs more memory: NODE_OPTIONS=--max-old-space-size=8192)`,
        ),
      ],
    };
  }
  const parsed = parseFiles([file], limits);
  // The parser's findings (yaml-syntax, duplicate-key, too-deep…) keep their names and hints, in this layer's scheme.
  const findings = parsed.findings.map((f) => ({ ...f, code: f.code.replace(/^policy\//, 'interop/') }));
  const docs: LocatedDoc[] = [];
  const text = normaliseLineBreaks(file.text);
  for (const sd of parsed.docs) {
    TEXTS.set(sd, text);
    // The fast parsers' value when they read the document; the positioned parse only when they declined it.
    if (sd.value !== undefined) {
      docs.push({ sd, value: sd.value });
      continue;
    }
    try {
      docs.push({ sd, value: sd.doc.toJS({ maxAliasCount: 100 }) });
    } catch (e) {
      findings.push(findingAt(sd, [], 'interop/unreadable', `the document could not be read: ${(e as Error).message.split('\n')[0]}`, 'use fewer YAML aliases'));
    }
  }
  return { docs, findings };
}

/**
 * A JSON text as one document, or undefined when `JSON.parse` refuses it and the YAML
 * path may say where (it reads more than JSON: a flow mapping with plain keys is YAML).
 */
function readJson(file: InputFile, what: string): { docs: LocatedDoc[]; findings: Finding[] } | undefined {
  const text = file.text;
  const limits = currentImportLimits();
  const raise = (key: 'maxBytes' | 'maxValues', value: number): string =>
    `raise the limit with ${IMPORT_LIMIT_ENV[key]}=${Math.min(value * 2, Number.MAX_SAFE_INTEGER)} (a larger input needs more memory: NODE_OPTIONS=--max-old-space-size=8192)`;
  const fail = (finding: Finding) => ({ docs: [], findings: [finding] });
  if (text.length > limits.maxBytes) {
    return fail(
      wholeFile(
        file.path,
        'interop/too-large',
        `${what} ${file.path} is ${formatBytes(text.length)}, larger than the limit of ${formatBytes(limits.maxBytes)} for a JSON input`,
        raise('maxBytes', limits.maxBytes),
      ),
    );
  }
  const maxDepth = currentLimits().maxDepth;
  // Depth and size before anything is built: JSON.parse would build every value first.
  const scan = scanJson(text, { maxDepth, maxValues: limits.maxValues });
  const problem = scan.problem;
  const locator = new JsonLocator(text, scan.children);
  const at = (offset: number, code: string, message: string, hint: string, path: PathSeg[] = []): Finding => {
    const pos = locator.linePos(offset);
    return { file: file.path, line: pos.line, column: pos.col, start: offset, end: offset + 1, code, severity: 'error', path: formatPath(path), message, hint };
  };
  if (problem?.kind === 'too-deep') {
    return fail(at(problem.at, 'interop/too-deep', `the document nests objects and lists more than ${maxDepth} levels deep here`, `flatten it, or raise the limit with ${LIMIT_ENV.maxDepth}`));
  }
  if (problem?.kind === 'too-many-values') {
    return fail(
      at(problem.at, 'interop/too-large', `${what} holds more than ${limits.maxValues.toLocaleString('en-US')} JSON values (objects, lists, strings, numbers)`, raise('maxValues', limits.maxValues)),
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    if (text.length <= currentLimits().maxBytes) return undefined;
    // Too large for the YAML path to locate it: where JSON.parse says it stopped.
    const message = (e as Error).message;
    const position = /at position (\d+)/.exec(message);
    return fail(at(position ? Number(position[1]) : 0, 'interop/json-syntax', `${what} is not valid JSON: ${message.split('\n')[0]}`, 'give the output of kubectl unchanged (`-o json`)'));
  }
  if (problem?.kind === 'duplicate-key') {
    const first = locator.linePos(problem.firstAt);
    const path = [...problem.path, problem.key];
    return fail(
      at(
        problem.at,
        'interop/duplicate-key',
        `the key "${problem.key}" appears twice in one object (first at line ${first.line}, column ${first.col})`,
        'keep one of them: which value is meant is not known',
        path,
      ),
    );
  }
  const sd = jsonSourceDoc(file, value);
  LOCATORS.set(sd, locator);
  return { docs: [{ sd, value }], findings: [] };
}

/**
 * The one document of a JSON input. Its YAML `doc` and `lines` (which a caller may
 * still walk) are made by the positioned parse on first use; this module's own
 * findings and origins never ask for them.
 */
function jsonSourceDoc(file: InputFile, value: unknown): SourceDoc {
  let positioned: SourceDoc | undefined;
  const full = (): SourceDoc => {
    positioned ??= parseFiles([{ path: file.path, text: file.text }]).docs[0];
    if (!positioned) throw new Error(`internal: the positioned parse of ${file.path} holds no document`);
    return positioned;
  };
  return {
    file: file.path,
    index: 0,
    value,
    get doc() {
      return full().doc;
    },
    get lines() {
      return full().lines;
    },
  };
}

/** A finding about a whole file (at its first line). */
function wholeFile(file: string, code: string, message: string, hint: string): Finding {
  return { file, line: 1, column: 1, code, severity: 'error', path: '', message, hint };
}

/** A finding at `path` of `sd`: through its JSON positions when it was read as JSON, else the YAML parser's. */
function locatedFinding(sd: SourceDoc, path: readonly PathSeg[], code: string, message: string, hint: string, severity: 'error' | 'warning', key = false): Finding {
  const locator = LOCATORS.get(sd);
  if (!locator) return findingAt(sd, path, code, message, hint, { severity, key });
  const [start, end] = locator.rangeAt(path, key);
  const pos = locator.linePos(start);
  return { file: sd.file, line: pos.line, column: pos.col, start, end, code, severity, path: formatPath(path), message, hint };
}

/** Collects the findings of one import or export: errors stop it, warnings are reported with the result. */
export class Report {
  readonly findings: Finding[] = [];

  /** An error at `path` of `sd` (at its key when `key`). */
  error(sd: SourceDoc, path: readonly PathSeg[], code: string, message: string, hint: string, key = false): void {
    this.findings.push(locatedFinding(sd, path, code, message, hint, 'error', key));
  }

  /** A warning at `path` of `sd`: something read but not carried over, or carried over approximately. */
  warn(sd: SourceDoc, path: readonly PathSeg[], code: string, message: string, hint: string, key = false): void {
    this.findings.push(locatedFinding(sd, path, code, message, hint, 'warning', key));
  }

  /** True when an error was recorded. */
  get failed(): boolean {
    return this.findings.some((f) => f.severity === 'error');
  }
}

/** The line and column of the value at `path` of `sd`, and the path as findings write it (an origin a later finding is moved onto). */
export function positionOf(sd: SourceDoc, path: readonly PathSeg[]): { line: number; column: number; path: string } {
  const f = locatedFinding(sd, path, '', '', '', 'warning');
  return { line: f.line, column: f.column, path: f.path };
}

/** `file:line:col` of the value at `path`, safe to print (the file's name escaped as names are). */
export function where(sd: SourceDoc, path: readonly PathSeg[]): string {
  const locator = LOCATORS.get(sd);
  if (locator) {
    const pos = locator.linePos(locator.rangeAt(path)[0]);
    return `${writableText(sd.file)}:${pos.line}:${pos.col}`;
  }
  const s: Source = sourceAt(sd, path);
  return `${writableText(s.file)}:${s.line}:${s.column}`;
}

/**
 * The value at `path` (read as `value`) for a message that says what was read: its JSON
 * (`"eight"`, `2.5`), which reads back as the input wrote it, escapes aside; and for a
 * number JSON cannot print, the input's own spelling and what it was read as
 * (`1e999 (read as Infinity)`), where JSON.stringify would print `null`.
 */
export function shown(sd: SourceDoc, path: readonly PathSeg[], value: unknown): string {
  if (typeof value === 'string') return clip(JSON.stringify(value));
  if (typeof value !== 'number' || Number.isFinite(value)) return clip(JSON.stringify(value) ?? String(value));
  const locator = LOCATORS.get(sd);
  let text: string | undefined;
  if (locator) text = locator.sourceText(path);
  else {
    const source = TEXTS.get(sd);
    const node = source === undefined ? undefined : sd.doc.getIn(path, true);
    const range = isNode(node) ? node.range : undefined;
    if (range) text = source!.slice(range[0], range[1]).trim();
  }
  return text === undefined ? `${value} (a number past the range of a double)` : `${clip(text)} (read as ${value})`;
}

/** A value's text cut to a length a message can hold. */
function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** A plain object, or undefined. */
export function asObject(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The string map at a field (labels, annotations), empty when absent or not a map of strings. */
export function stringMap(v: unknown): Record<string, string> {
  const o = asObject(v);
  if (!o) return {};
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(o)) if (typeof x === 'string') out[k] = x;
  return out;
}

/** One Kubernetes object of an input, with where it is. */
export interface ForeignObject {
  sd: SourceDoc;
  path: PathSeg[];
  obj: Record<string, unknown>;
  kind: string;
  apiVersion: string;
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** Every object of the files: documents that are objects, and the items of `List`s. */
export function readObjects(files: InputFile[], report: Report): ForeignObject[] {
  const out: ForeignObject[] = [];
  for (const file of files) {
    const { docs, findings } = readLocated(file, { json: true });
    for (const f of findings) report.findings.push(f);
    for (const { sd, value } of docs) {
      const top = asObject(value);
      if (!top) {
        report.error(
          sd,
          [],
          'interop/not-an-object',
          'a document must be a Kubernetes object (apiVersion, kind, metadata, spec) or a List of them',
          'give YAML or JSON objects as `kubectl get ... -o yaml` prints them',
        );
        continue;
      }
      const items =
        typeof top.kind === 'string' && top.kind.endsWith('List') && Array.isArray(top.items)
          ? (top.items as unknown[]).map((it, i) => ({ it, path: ['items', i] as PathSeg[] }))
          : [{ it: top as unknown, path: [] as PathSeg[] }];
      for (const { it, path } of items) {
        const obj = asObject(it);
        if (!obj) {
          report.error(sd, path, 'interop/not-an-object', 'a List item must be a Kubernetes object', 'each item has apiVersion, kind, metadata and spec');
          continue;
        }
        const meta = asObject(obj.metadata) ?? {};
        const name = typeof meta.name === 'string' ? meta.name : '';
        if (typeof obj.kind !== 'string' || !name) {
          report.error(
            sd,
            typeof obj.kind !== 'string' ? [...path, 'kind'] : [...path, 'metadata'],
            'interop/not-an-object',
            typeof obj.kind !== 'string' ? 'the object has no kind' : 'the object has no metadata.name',
            'every Kubernetes object has a kind and a name',
          );
          continue;
        }
        out.push({
          sd,
          path,
          obj,
          kind: obj.kind,
          apiVersion: typeof obj.apiVersion === 'string' ? obj.apiVersion : '',
          name,
          labels: stringMap(meta.labels),
          annotations: stringMap(meta.annotations),
        });
      }
    }
  }
  return out;
}

/**
 * The objects of one kind, for a format that reads a single kind (Koordinator's
 * ElasticQuota, Volcano's Queue): every other object is a located `interop/skipped-object`
 * warning, and one of the kind with another apiVersion an `interop/api-version` warning
 * saying it is read as `apiVersion` anyway; nothing is dropped without a word.
 */
export function objectsOfKind(objects: ForeignObject[], kind: string, apiVersion: string, vendor: string, report: Report): ForeignObject[] {
  const out: ForeignObject[] = [];
  for (const o of objects) {
    if (o.kind !== kind) {
      report.warn(o.sd, [...o.path, 'kind'], 'interop/skipped-object', `${o.kind} ${o.name} is not read (only ${kind} is)`, `give ${vendor} ${kind} objects`);
      continue;
    }
    if (o.apiVersion !== apiVersion)
      report.warn(
        o.sd,
        [...o.path, 'apiVersion'],
        'interop/api-version',
        `${kind} ${o.name} has apiVersion ${o.apiVersion || '(none)'}; it is read as ${apiVersion}`,
        `${vendor}'s ${kind} is ${apiVersion}`,
      );
    out.push(o);
  }
  return out;
}
