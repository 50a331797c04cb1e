/**
 * Sweeps over policies and seeds, split across machines (docs/simulate.md "Sweeps and
 * shards"). Runs are numbered policy-major (run k = policy ⌊k / seeds⌋, seed k mod
 * seeds); shard i of N takes the runs with k mod N = i. Merging the shards' documents
 * gives, byte for byte, the document one unsharded sweep prints.
 */
import type { Report } from './report.js';

/** One run of a sweep. */
export interface SweepRun {
  index: number;
  policy: string;
  seed: number;
  report: Report;
}

/** What `quotient simulate` prints for a sweep (and `quotient report merge` for merged shards). */
export interface SweepDocument {
  version: 1;
  kind: 'SimulationSweep';
  /** Runs in the whole sweep (all shards). */
  total: number;
  /** Present on one shard's document; absent once merged or unsharded. */
  shard?: { index: number; count: number };
  runs: SweepRun[];
}

/** A planned run. */
export interface PlannedRun {
  index: number;
  policy: number;
  seed: number;
}

/** Every run of `policies` × `seeds`, then the ones shard `shard` takes. */
export function planSweep(policies: number, seeds: number[], shard?: { index: number; count: number }): { total: number; runs: PlannedRun[] } {
  const all: PlannedRun[] = [];
  for (let p = 0; p < policies; p++) seeds.forEach((seed, s) => all.push({ index: p * seeds.length + s, policy: p, seed }));
  return { total: all.length, runs: shard ? all.filter((r) => r.index % shard.count === shard.index) : all };
}

/** `--shard i/N` → { index, count }, or a message. */
export function parseShard(value: string): { index: number; count: number } | string {
  const m = /^(\d+)\/(\d+)$/.exec(value.trim());
  if (!m) return `"${value}" is not i/N`;
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index >= count) return `shard ${index} of ${count} does not exist: i runs from 0 to N − 1`;
  return { index, count };
}

/** `--seeds 1-8` or `1,5,9` → seeds, or a message. */
export function parseSeeds(value: string): number[] | string {
  const range = /^(\d+)-(\d+)$/.exec(value.trim());
  if (range) {
    const lo = Number(range[1]);
    const hi = Number(range[2]);
    if (hi < lo || hi - lo > 100_000) return `"${value}" is not a range low-high`;
    return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
  }
  const list = value.split(',').map((x) => x.trim());
  if (list.some((x) => !/^\d+$/.test(x))) return `"${value}" is not a list of whole numbers or a range such as 1-8`;
  return list.map(Number);
}

/** Merges shard documents into the unsharded document, or says why they do not fit together. */
export function mergeSweeps(docs: Array<{ file: string; doc: unknown }>): SweepDocument | string {
  if (docs.length === 0) return 'no documents to merge';
  const runs: SweepRun[] = [];
  let total: number | undefined;
  let count: number | undefined;
  const shards = new Set<number>();
  for (const { file, doc } of docs) {
    const d = doc as Partial<SweepDocument>;
    if (d?.kind !== 'SimulationSweep' || d.version !== 1 || !Array.isArray(d.runs) || typeof d.total !== 'number')
      return `${file} is not a simulation sweep document (quotient simulate --shard i/N --json)`;
    if (total !== undefined && d.total !== total) return `${file} belongs to a sweep of ${d.total} runs, the others to one of ${total}`;
    total = d.total;
    const c = d.shard?.count ?? 1;
    if (count !== undefined && c !== count) return `${file} is one of ${c} shards, the others of ${count}`;
    count = c;
    const i = d.shard?.index ?? 0;
    if (shards.has(i)) return `${file} repeats shard ${i}`;
    shards.add(i);
    runs.push(...d.runs);
  }
  const missing = Array.from({ length: count! }, (_, i) => i).filter((i) => !shards.has(i));
  if (missing.length) return `shard(s) ${missing.join(', ')} of ${count} are missing`;
  runs.sort((a, b) => a.index - b.index);
  if (runs.length !== total || runs.some((r, k) => r.index !== k)) return `the shards hold ${runs.length} runs, not runs 0..${total! - 1} once each`;
  return { version: 1, kind: 'SimulationSweep', total: total, runs };
}
