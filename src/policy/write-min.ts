/**
 * Writing new `min.gpu` values back into the policy files (`quotient scale --apply`).
 * The yaml Document API finds each quota's `min.gpu` scalar (by quota name, in every
 * QuotaTree document of every file); the new number then replaces exactly that
 * scalar's source range in the text. Re-printing the whole document with toString()
 * would renormalise it (aligned comments lose their padding, flow lists gain spaces), so
 * splicing the one token is what keeps comments and layout byte for byte.
 * Each file is written atomically: a temp file in the same folder, then a rename.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isMap, isScalar, isSeq, parseAllDocuments, type Node as YamlNode } from 'yaml';
import { QuotientError } from '../errors.js';

/** One text edit: replace [start, end) with `text`. */
interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Writes `values` (quota → GPUs) into the files that declare those quotas, and the new
 * `standing` of each job in `standings` into the Cluster documents (so the snapshot
 * stays consistent with the new mins, invariant 2); returns the files changed.
 */
export function writeMins(files: string[], values: Map<string, number>, standings: Map<string, string> = new Map()): string[] {
  const pending = new Map(values);
  const plans: Array<{ file: string; text: string; edits: Edit[] }> = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const edits: Edit[] = findMinScalars(text)
      .filter((e) => pending.has(e.quota))
      .map((e) => ({ start: e.start, end: e.end, text: String(pending.get(e.quota)!) }));
    for (const [quota] of pending) if (findMinScalars(text).some((e) => e.quota === quota)) pending.delete(quota);
    edits.push(...standingEdits(text, standings));
    if (edits.length) plans.push({ file, text, edits });
  }
  if (pending.size) throw new QuotientError('scale/cannot-apply', `no min.gpu written as a number was found for ${[...pending.keys()].join(', ')}`, 'write the quota\'s min as `min: { gpu: N }` in a QuotaTree document of the given files');
  for (const p of plans) {
    let out = p.text;
    for (const e of [...p.edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
    const tmp = join(dirname(p.file), `.${basename(p.file)}.quotient-${process.pid}.tmp`);
    writeFileSync(tmp, out, 'utf8');
    renameSync(tmp, p.file);
  }
  return plans.map((p) => p.file);
}

/**
 * Edits that set `standing` on the named running jobs of the Cluster documents: the
 * existing `standing` scalar is replaced; otherwise the key is added — before the `}` of
 * a flow mapping, or on its own line under `name:` in a block mapping.
 */
function standingEdits(text: string, standings: Map<string, string>): Edit[] {
  // A line added to a CRLF file ends like its neighbours.
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const out: Edit[] = [];
  if (standings.size === 0) return out;
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs)) return out;
  for (const doc of docs) {
    if (doc.get('kind') !== 'Cluster') continue;
    const jobs = doc.getIn(['spec', 'jobs'], true);
    if (!isSeq(jobs)) continue;
    for (const job of jobs.items) {
      if (!isMap(job) || !job.range) continue;
      const name = job.get('name');
      const to = typeof name === 'string' ? standings.get(name) : undefined;
      if (to === undefined) continue;
      const existing = job.get('standing', true);
      if (isScalar(existing) && existing.range) {
        out.push({ start: existing.range[0], end: existing.range[1], text: to });
      } else if (job.flow) {
        const close = text.lastIndexOf('}', job.range[1]);
        let at = close;
        while (at > 0 && text[at - 1] === ' ') at--;
        out.push({ start: at, end: at, text: `, standing: ${to}` });
      } else {
        const pair = job.items.find((p) => isScalar(p.key) && p.key.value === 'name');
        const key = pair?.key as YamlNode | undefined;
        const value = pair?.value as YamlNode | undefined;
        if (!key?.range || !value?.range) continue;
        const lineStart = text.lastIndexOf('\n', key.range[0]) + 1;
        const indent = ' '.repeat(key.range[0] - lineStart);
        // The new line goes after the `name:` line, before its line ending (CR of CRLF included).
        const nl = text.indexOf('\n', value.range[1]);
        const at = nl < 0 ? text.length : nl > 0 && text[nl - 1] === '\r' ? nl - 1 : nl;
        out.push({ start: at, end: at, text: `${eol}${indent}standing: ${to}` });
      }
    }
  }
  return out;
}

/** Every quota's `min.gpu` scalar in a file's QuotaTree documents, with its source range. */
export function findMinScalars(text: string): Array<{ quota: string; start: number; end: number }> {
  const out: Array<{ quota: string; start: number; end: number }> = [];
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs)) return out;
  for (const doc of docs) {
    if (doc.get('kind') !== 'QuotaTree') continue;
    const walk = (list: unknown): void => {
      if (!isSeq(list)) return;
      for (const item of list.items) {
        if (!isMap(item)) continue;
        const name = item.get('name');
        const gpu = (item.getIn(['min', 'gpu'], true) as YamlNode | undefined) ?? undefined;
        if (typeof name === 'string' && isScalar(gpu) && typeof gpu.value === 'number' && gpu.range) out.push({ quota: name, start: gpu.range[0], end: gpu.range[1] });
        walk(item.get('children', true));
      }
    };
    walk(doc.getIn(['spec', 'quotas'], true));
  }
  return out;
}
