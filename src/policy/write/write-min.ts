/**
 * The text edits of `quotient scale --apply`: each changed quota's `min.gpu` scalar and
 * each changed job's `standing`, found with the yaml Document API and its CST
 * (`keepSourceTokens`), spliced into the text at their exact source ranges. Re-printing
 * the documents with toString() would renormalise them (aligned comments lose their
 * padding, flow lists gain spaces), so only those tokens change; every other byte is
 * kept. Pure: text in, text out (apply-scaling.ts reads, proves and writes).
 *
 *   - a `min.gpu` written as a number: the number's token is replaced;
 *   - a job with a `standing` scalar: that scalar is replaced;
 *   - a flow-style job without one: `, standing: X` goes right after its last value;
 *   - a block-style job without one: a line `standing: X`, at the mapping's indentation
 *     and ending with the same line break, goes right after the line break that ends its
 *     `name` pair (after any comment on that line) — the break token comes from the CST,
 *     so the new line can never land inside a comment or a value.
 */
import { isMap, isScalar, isSeq, parseAllDocuments, type Document, type Node as YamlNode, type Pair, type YAMLMap } from 'yaml';
import { QuotientError } from '../../errors.js';

/** One text edit: replace [start, end) with `text`. */
export interface Edit {
  start: number;
  end: number;
  text: string;
}

/** What a scaling writes: quota → new `min.gpu`, job → new standing. */
export interface ScaleWrite {
  values: ReadonlyMap<string, number>;
  standings: ReadonlyMap<string, string>;
}

/** The edits of one file, and the quotas and jobs they write. */
export interface FileEdits {
  edits: Edit[];
  quotas: string[];
  jobs: string[];
}

function documents(text: string): Document.Parsed[] {
  const docs = parseAllDocuments(text, { keepSourceTokens: true });
  return Array.isArray(docs) ? docs : [];
}

/** Every quota's `min.gpu` scalar in a file's QuotaTree documents, with its source range. */
export function findMinScalars(text: string): Array<{ quota: string; start: number; end: number }> {
  return minScalars(documents(text));
}

function minScalars(docs: Document.Parsed[]): Array<{ quota: string; start: number; end: number }> {
  const out: Array<{ quota: string; start: number; end: number }> = [];
  for (const doc of docs) {
    if (doc.get('kind') !== 'QuotaTree') continue;
    const walk = (list: unknown): void => {
      if (!isSeq(list)) return;
      for (const item of list.items) {
        if (!isMap(item)) continue;
        const name = item.get('name');
        const gpu = item.getIn(['min', 'gpu'], true) as YamlNode | undefined;
        if (typeof name === 'string' && isScalar(gpu) && typeof gpu.value === 'number' && gpu.range) out.push({ quota: name, start: gpu.range[0], end: gpu.range[1] });
        walk(item.get('children', true));
      }
    };
    walk(doc.getIn(['spec', 'quotas'], true));
  }
  return out;
}

/** The line break a file uses (for a line added at its very end). */
function lineBreak(text: string): string {
  return text.includes('\r\n') ? '\r\n' : text.includes('\n') ? '\n' : text.includes('\r') ? '\r' : '\n';
}

/** The edits that write `w` into one file's text (the quotas and jobs it does not hold are left to other files). */
export function planFileEdits(text: string, w: ScaleWrite): FileEdits {
  const docs = documents(text);
  const out: FileEdits = { edits: [], quotas: [], jobs: [] };
  for (const m of minScalars(docs)) {
    const v = w.values.get(m.quota);
    if (v === undefined) continue;
    out.edits.push({ start: m.start, end: m.end, text: String(v) });
    out.quotas.push(m.quota);
  }
  if (w.standings.size === 0) return out;
  for (const doc of docs) {
    if (doc.get('kind') !== 'Cluster') continue;
    const jobs = doc.getIn(['spec', 'jobs'], true);
    if (!isSeq(jobs)) continue;
    for (const job of jobs.items) {
      if (!isMap(job)) continue;
      const name = job.get('name');
      const to = typeof name === 'string' ? w.standings.get(name) : undefined;
      if (typeof name !== 'string' || to === undefined) continue;
      out.edits.push(standingEdit(text, job, name, to));
      out.jobs.push(name);
    }
  }
  return out;
}

function cannot(what: string): QuotientError {
  return new QuotientError('scale/cannot-apply', what, 'write the job as a plain mapping (`- name: X` with one key per line, or `{ name: X, ... }`), or set its standing by hand');
}

/** The edit that sets one job's standing. */
function standingEdit(text: string, job: YAMLMap, name: string, to: string): Edit {
  const existing = job.get('standing', true) as YamlNode | undefined;
  if (existing !== undefined) {
    if (!isScalar(existing) || !existing.range) throw cannot(`job "${name}" gives its standing in a form quotient cannot rewrite`);
    return { start: existing.range[0], end: existing.range[1], text: to };
  }
  const last = job.items[job.items.length - 1];
  if (job.flow) {
    const end = nodeEnd(last);
    if (end === undefined) throw cannot(`job "${name}": cannot find where its mapping ends`);
    return { start: end, end, text: `, standing: ${to}` };
  }
  // Block mapping: the CST gives the map's indentation and the break that ends the name pair.
  const map = job.srcToken;
  const pair = job.items.find((p) => isScalar(p.key) && p.key.value === 'name');
  const value = pair?.srcToken?.value;
  if (!map || map.type !== 'block-map' || !value || (value.type !== 'scalar' && value.type !== 'single-quoted-scalar' && value.type !== 'double-quoted-scalar'))
    throw cannot(`job "${name}": cannot find the line its name is on`);
  const indent = ' '.repeat(map.indent);
  const end = value.end ?? [];
  const br = end.find((t) => t.type === 'newline');
  if (br) {
    const at = br.offset + br.source.length;
    return { start: at, end: at, text: `${indent}standing: ${to}${br.source}` };
  }
  // The name pair ends the file without a line break: the new line starts with one.
  const tail = end[end.length - 1];
  const at = tail ? tail.offset + tail.source.length : value.offset + value.source.length;
  if (text.slice(at).trim() !== '') throw cannot(`job "${name}": its name line does not end where expected`);
  return { start: at, end: at, text: `${lineBreak(text)}${indent}standing: ${to}` };
}

function nodeEnd(pair: Pair | undefined): number | undefined {
  if (!pair) return undefined;
  const v = pair.value as YamlNode | null;
  const k = pair.key as YamlNode | null;
  return v?.range?.[1] ?? k?.range?.[1];
}

/** Applies edits (non-overlapping) to a text. */
export function applyEdits(text: string, edits: Edit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

/**
 * The new text of every file `w` changes (path → text). Every quota and job of `w` must
 * be found exactly once across the files; otherwise a QuotientError (exit 2) and nothing
 * is planned.
 */
export function planScaleWrite(files: Array<{ path: string; text: string }>, w: ScaleWrite): Map<string, string> {
  const out = new Map<string, string>();
  const seenQuotas = new Map<string, number>();
  const seenJobs = new Map<string, number>();
  for (const f of files) {
    const fe = planFileEdits(f.text, w);
    for (const q of fe.quotas) seenQuotas.set(q, (seenQuotas.get(q) ?? 0) + 1);
    for (const j of fe.jobs) seenJobs.set(j, (seenJobs.get(j) ?? 0) + 1);
    if (fe.edits.length) out.set(f.path, applyEdits(f.text, fe.edits));
  }
  const missing = [...w.values.keys()].filter((q) => seenQuotas.get(q) !== 1);
  if (missing.length)
    throw new QuotientError(
      'scale/cannot-apply',
      `no single min.gpu written as a number was found for ${missing.join(', ')}; nothing was written`,
      "write the quota's min as `min: { gpu: N }` in a QuotaTree document of the given files",
    );
  const lost = [...w.standings.keys()].filter((j) => seenJobs.get(j) !== 1);
  if (lost.length)
    throw new QuotientError(
      'scale/cannot-apply',
      `the running job(s) ${lost.join(', ')} whose standing changes were not found once in the Cluster documents; nothing was written`,
      'check that each running job is written once in spec.jobs of a Cluster document',
    );
  return out;
}
