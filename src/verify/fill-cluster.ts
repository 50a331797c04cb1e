/**
 * Filling a cluster with random running jobs that respect the policy: each candidate
 * job is kept only if its quota path has room for it (invariant 2) and its pods fit the
 * GPU bitmaps first-fit with aligned blocks (invariant 1); otherwise it is skipped. Used
 * by the scenario generators and by `quotient test` to make consistent states.
 */

import fc from 'fast-check';
import { countsAt } from '../model/usage-rule.js';

/**
 * The random choices behind one generated job, shared by every generator so that they
 * shrink alike. Picks are taken modulo the number of options where they are used.
 */
export interface RawJob {
  wsPick: number;
  quotaPick: number;
  module: number;
  priority: number;
  pods: number;
  shape: number;
  mode: number;
  borrowing: boolean;
  ageMin: number;
  checkpointMin: number;
}

/** Choices for one job: small gangs, mostly plain mode, a third never checkpointing. */
export function rawJobArbitrary(): fc.Arbitrary<RawJob> {
  return fc.record({
    wsPick: fc.nat(),
    quotaPick: fc.nat(),
    module: fc.nat({ max: 2 }),
    priority: fc.integer({ min: 1, max: 9 }),
    pods: fc.integer({ min: 1, max: 3 }),
    shape: fc.nat({ max: 5 }),
    mode: fc.nat({ max: 5 }),
    borrowing: fc.boolean(),
    ageMin: fc.integer({ min: 0, max: 600 }),
    // A third of jobs never checkpoint: they lose all their work when preempted.
    checkpointMin: fc.oneof(fc.constant(0), fc.integer({ min: 15, max: 120 }), fc.integer({ min: 15, max: 120 })),
  });
}

/** Pod shapes weighted towards small pods, as in the PAI trace (mostly 1-GPU jobs). */
export const POD_SHAPES = [1, 1, 2, 2, 4, 8] as const;
/** Idle-resources modes weighted towards `none`, the default. */
export const MODES = ['none', 'none', 'none', 'acceptable', 'acceptable', 'only'] as const;

/** The item a generated number picks from a non-empty list (modulo its length, so any nat will do). */
export function pick<T>(items: readonly T[], n: number): T {
  const item = items[n % items.length];
  if (item === undefined) throw new Error(`pick: ${n} from a list of ${items.length}`);
  return item;
}

/** The standing a job's choices ask for (the filler may not grant it). */
export function wishedStanding(raw: RawJob, mode: (typeof MODES)[number]): 'in-quota' | 'borrowing' | 'idle' {
  if (mode === 'acceptable' && raw.borrowing && raw.ageMin % 2 === 0) return 'idle';
  return raw.borrowing ? 'borrowing' : 'in-quota';
}

/** A quota as the filler sees it: its parent index (-1 for a root) and guaranteed GPUs. */
export interface FillQuota {
  name: string;
  parent: number;
  min: number;
  pool: string;
  /** True when a job of `priority` may run borrowing here: model/borrowing.ts `mayBorrow` of the quota (SEMANTICS 5.2). */
  mayBorrow: (priority: number) => boolean;
}

/** A node and the GPUs already taken on it (bit i = GPU i). */
export interface FillNode {
  name: string;
  gpus: number;
  pool: string;
  used: number;
}

/** One random job's choices; `standing` is a wish the filler may not grant. */
export interface JobWish {
  name: string;
  workspace: string;
  quota: number;
  module: string;
  priority: number;
  pods: number;
  gpu: number;
  mode: 'none' | 'acceptable' | 'only';
  standing: 'in-quota' | 'borrowing' | 'idle';
  startedAt: number;
  checkpointEveryMin: number;
  /**
   * 0 (or absent): first fit, lowest aligned block first, which packs nodes. Otherwise
   * the search starts at node `scatter % nodes` and block `scatter >> 5`: pods land
   * apart, leaving the fragmented free space a packed fill never makes.
   */
  scatter?: number;
}

/** A job the filler kept, with its placement. */
export interface FilledJob extends Omit<JobWish, 'quota'> {
  quota: string;
  placement: Array<{ node: string; gpus: number[] }>;
}

/** Mutable state of a fill: usage per quota counted as the engine counts it. */
export class ClusterFill {
  readonly usage: number[];

  constructor(
    readonly quotas: FillQuota[],
    readonly nodes: FillNode[],
  ) {
    this.usage = quotas.map(() => 0);
  }

  /** Counts an existing job (the user's fixed jobs) without placing it. */
  count(quota: number, standing: JobWish['standing'], gpus: number): void {
    for (const a of this.path(quota)) if (countsAt(this, standing, quota, a)) this.usage[a]! += gpus; // path holds quota indices
  }

  /** True when quota `v` is `a` or below it: what `countsAt` (SEMANTICS 3's usage rule) asks of a tree. */
  inSubtree(v: number, a: number): boolean {
    return this.path(v).includes(a);
  }

  /** GPUs a new in-quota job on `quota` could still take: the least room on its path to the root. */
  room(quota: number): number {
    return Math.min(...this.path(quota).map((a) => this.quotas[a]!.min - this.usage[a]!)); // path holds quota indices
  }

  /** Adds the job when quota and bitmaps allow; returns it placed, or undefined. */
  tryAdd(w: JobWish): FilledJob | undefined {
    const q = pick(this.quotas, w.quota); // w.quota is an index into quotas
    let standing = w.mode === 'only' ? 'idle' : w.standing;
    if (standing === 'idle' && w.mode === 'none') standing = 'in-quota';
    if (standing === 'borrowing' && !q.mayBorrow(w.priority)) standing = 'in-quota';
    const need = w.gpu * w.pods;
    const counted = this.path(w.quota).filter((a) => countsAt(this, standing, w.quota, a));
    if (standing !== 'idle' && counted.some((a) => this.usage[a]! + need > this.quotas[a]!.min)) return undefined;
    const placement = this.place(q.pool, w.pods, w.gpu, w.scatter ?? 0);
    if (!placement) return undefined;
    if (standing !== 'idle') counted.forEach((a) => (this.usage[a]! += need));
    return { ...w, quota: q.name, standing, placement };
  }

  private path(q: number): number[] {
    const out: number[] = [];
    for (let a = q; a !== -1; a = this.quotas[a]!.parent) out.push(a);
    return out;
  }

  /** First fit over the pool's nodes, lowest aligned free block first (rotated by `scatter`, see JobWish). */
  private place(pool: string, pods: number, gpu: number, scatter: number): Array<{ node: string; gpus: number[] }> | undefined {
    const trial = this.nodes.map((n) => n.used);
    const out: Array<{ node: string; gpus: number[] }> = [];
    const count = this.nodes.length;
    for (let p = 0; p < pods; p++) {
      let placed = false;
      for (let k = 0; k < count && !placed; k++) {
        // Each pod of a scattered job starts one node further on.
        const n = scatter === 0 ? k : (k + scatter + p) % count;
        const node = this.nodes[n]!; // n < nodes.length; trial parallels nodes
        if (node.pool !== pool || gpu > node.gpus) continue;
        const blocks = Math.floor(node.gpus / gpu);
        for (let b = 0; b < blocks; b++) {
          const start = (((scatter === 0 ? 0 : scatter >> 5) + b) % blocks) * gpu;
          const block = (2 ** gpu - 1) * 2 ** start;
          if ((trial[n]! & block) === 0) {
            trial[n]! |= block;
            out.push({ node: node.name, gpus: Array.from({ length: gpu }, (_, i) => start + i) });
            placed = true;
            break;
          }
        }
      }
      if (!placed) return undefined;
    }
    trial.forEach((m, i) => (this.nodes[i]!.used = m));
    return out;
  }
}
