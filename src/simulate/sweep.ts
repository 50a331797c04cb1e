/**
 * Sweeps over policies and seeds, split across machines (docs/simulate.md "Sweeps and
 * shards"). Runs are numbered policy-major (run k = policy ⌊k / seeds⌋, seed k mod
 * seeds); shard i of N takes the runs with k mod N = i. Merging the shards' documents
 * gives, byte for byte, the document one unsharded sweep prints.
 */
import { formatCount, MAX_SEED, MAX_SEEDS, MAX_SHARDS } from '../policy/parse/number-limits.js';
import { isRefusal, readSeed, readWhole, shownValue } from '../policy/parse/number-text.js';
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

/** `--shard i/N` → { index, count }, or a message; N is at most MAX_SHARDS. */
export function parseShard(value: string): { index: number; count: number } | string {
  const m = /^(\d+)\/(\d+)$/.exec(value.trim());
  if (!m) return `"${value}" is not i/N`;
  const count = readWhole(m[2], 1, MAX_SHARDS);
  if (isRefusal(count)) return `the shard count N = ${shownValue(m[2]!)} ${count.refused}`;
  const index = Number(m[1]);
  if (index >= count) return `shard ${m[1]} of ${count} does not exist: i runs from 0 to N − 1`;
  return { index, count };
}

/**
 * `--seeds 1-8` or `1,5,9` → seeds, or what is wrong: each seed follows `--seed`'s rule
 * (0 to MAX_SEED), and there are at most MAX_SEEDS of them.
 */
export function parseSeeds(value: string): number[] | { refused: string; pastLimit: boolean } {
  const range = /^(\d+)-(\d+)$/.exec(value.trim());
  const list = range ? [range[1]!, range[2]!] : value.split(',').map((x) => x.trim());
  const seeds: number[] = [];
  for (const text of list) {
    const seed = readSeed(text);
    if (!isRefusal(seed)) seeds.push(seed);
    else if (seed.pastLimit) return { refused: `the seed ${shownValue(text)} is past ${MAX_SEED}, the largest seed (seeds are 32 bits)`, pastLimit: true };
    else return { refused: `"${value}" is not a list of whole numbers or a range such as 1-8`, pastLimit: false };
  }
  const count = range ? seeds[1]! - seeds[0]! + 1 : seeds.length;
  if (range && count < 1) return { refused: `"${value}" runs backwards: write the range low-high`, pastLimit: false };
  if (count > MAX_SEEDS) return { refused: `"${shownValue(value)}" holds ${formatCount(count)} seeds, more than the ${formatCount(MAX_SEEDS)} a sweep may run`, pastLimit: true };
  return range ? Array.from({ length: count }, (_, i) => seeds[0]! + i) : seeds;
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
