/**
 * JSON and YAML inputs of other tools, read with positions: a document parses through
 * the same yaml parser the policy loader uses (JSON is YAML 1.2), so every finding
 * about a foreign object can point at `file:line:col` of the field it is about.
 */
import type { Finding } from '../errors.js';
import { findingAt, parseFiles, sourceAt, type InputFile, type PathSeg, type SourceDoc } from '../policy/source-doc.js';
import type { Source } from '../model/source.js';

/** One parsed document with its plain value. */
export interface LocatedDoc {
  sd: SourceDoc;
  value: unknown;
}

/** Parses a file's documents; syntax errors come back as `interop/yaml-syntax` (and the parser's other) findings. */
export function readLocated(file: InputFile): { docs: LocatedDoc[]; findings: Finding[] } {
  const parsed = parseFiles([file]);
  // The parser's findings (yaml-syntax, duplicate-key, too-deep…) keep their names and hints, in this layer's scheme.
  const findings = parsed.findings.map((f) => ({ ...f, code: f.code.replace(/^policy\//, 'interop/') }));
  const docs: LocatedDoc[] = [];
  for (const sd of parsed.docs) {
    try {
      docs.push({ sd, value: sd.doc.toJS({ maxAliasCount: 100 }) });
    } catch (e) {
      findings.push(findingAt(sd, [], 'interop/unreadable', `the document could not be read: ${(e as Error).message.split('\n')[0]}`, 'use fewer YAML aliases'));
    }
  }
  return { docs, findings };
}

/** Collects the findings of one import or export: errors stop it, warnings are reported with the result. */
export class Report {
  readonly findings: Finding[] = [];

  /** An error at `path` of `sd`. */
  error(sd: SourceDoc, path: readonly PathSeg[], code: string, message: string, hint: string): void {
    this.findings.push(findingAt(sd, path, code, message, hint));
  }

  /** A warning at `path` of `sd`: something read but not carried over, or carried over approximately. */
  warn(sd: SourceDoc, path: readonly PathSeg[], code: string, message: string, hint: string): void {
    this.findings.push(findingAt(sd, path, code, message, hint, { severity: 'warning' }));
  }

  /** True when an error was recorded. */
  get failed(): boolean {
    return this.findings.some((f) => f.severity === 'error');
  }
}

/** `file:line:col` of the value at `path`. */
export function where(sd: SourceDoc, path: readonly PathSeg[]): string {
  const s: Source = sourceAt(sd, path);
  return `${s.file}:${s.line}:${s.column}`;
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
    const { docs, findings } = readLocated(file);
    report.findings.push(...findings);
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
