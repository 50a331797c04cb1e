/**
 * The one home of fragmentation as the FGD paper measures it (Weng et al., ATC '23,
 * "Beware of Fragmentation"; the simulator's `NodeGpuShareFragAmountScore`): the GPU
 * capacity of a node that the workload's typical pods cannot use, each pod shape
 * weighted by how often it comes. The `fragmentation` placement strategy (the twin's
 * `reference-placement.ts` and the kernel's `assembly/fragmentation.ts`, which computes
 * the same integers) puts each pod where this grows least; B1 reports it at 90 % load.
 *
 * For one node and one shape s, in milli-GPUs:
 * - s asks no GPU (cpu-only), or the node's GPU model is not one s allows: every free
 *   milli-GPU of the node counts (s can use none of it);
 * - else, when s fits (at least s.gpu GPUs with ≥ s's milli free, s's cpu free, and s's
 *   memory free when s gives one and the node's free memory is known): the milli left on
 *   GPUs with less than s's milli free (s cannot use those);
 * - else every free milli-GPU counts.
 * The node's fragmentation is Σ weight(s) · term(s).
 *
 * Memory is ours, not the paper's: its measure (and B1's fragmentation-at-90 % column)
 * ignores memory, but near full the openb trace's 8-GPU nodes run out of memory before
 * GPUs, and a GPU no typical pod's memory fits beside is as lost as a sliver. With each
 * shape's memory in the fit, B1 allocates ~0.3 points more on multigpu50
 * (docs/performance.md).
 *
 * The strategy's rank adds a second thing the measure cannot see (`cpuShortfall`, ours):
 * a typical pod that still fits a node counts all its GPUs as usable, even when the
 * node's cpu can feed only one of them. The shortfall is the milli-GPUs a node's free
 * cpu cannot serve at the workload's own cpu per milli-GPU, and its growth counts in the
 * rank as fragmentation of every shape would: a pod that eats the cpu beside free GPUs
 * pays for them before they are stranded, so cpu-hungry pods go to cpu-rich nodes and
 * cpu-light ones to cpu-poor nodes. On B1 it lifts the allocation by 0.2-0.5 points
 * on every openb trace tried (docs/performance.md).
 */
import type { WorkloadShape } from './types.js';

/**
 * What a milli-GPU left on the chosen node costs beside fragmentation growth, in the
 * kernel's integer weights: WEIGHT_SCALE / 256. The strategy ranks a choice by growth +
 * shortfall growth + LEFT_WEIGHT · (milli-GPUs left on the node after + free cpu after / CPU_PER_MILLI), a
 * pull toward packing GPUs and cpu together (BestFit's weighting: 8 GPUs ≈ 128 cores).
 * Measured on B1 (docs/performance.md): growth with packing only as a tie-break allocated
 * ~1.2 points less on openb default, GPU packing alone ~0.7 less.
 */
export const LEFT_WEIGHT = 4096;
/** Millicores of free cpu that weigh as one milli-GPU left in the rank (128 cores ≈ 8 GPUs). */
export const CPU_PER_MILLI = 16;

/**
 * The rank of a choice that grows fragmentation by `growth` and the cpu shortfall's
 * weighted amount by `shortGrowth` (`shortfallGrowth` below), and leaves `milliLeft`
 * GPU and `cpuLeft` cpu on its node. Smaller is better. Both kernels add in this order.
 */
export function placementRank(growth: number, shortGrowth: number, milliLeft: number, cpuLeft: number): number {
  return growth + shortGrowth + LEFT_WEIGHT * (milliLeft + cpuLeft / CPU_PER_MILLI);
}

/**
 * What the cpu shortfall is measured with, per workload: `weight` W, the sum of the
 * (kernel) weights, which makes a milli-GPU of shortfall count as one that no shape can
 * use; `milliPerCpu`, the milli-GPUs the workload's GPU shapes ask per millicore of cpu
 * (Σ weight · gpu · milli over Σ weight · cpu, in the shapes' order), 0 when none asks cpu.
 */
export interface ShortfallScale {
  weight: number;
  milliPerCpu: number;
}

/** The shortfall scale of a (kernel-weighted) workload; both kernels sum in the shapes' order. */
export function shortfallScale(workload: readonly WorkloadShape[]): ShortfallScale {
  let weight = 0;
  let milli = 0;
  let cpu = 0;
  for (const s of workload) {
    weight += s.weight;
    const m = shapeMilli(s);
    if (m === 0) continue;
    milli += s.weight * s.gpu * m;
    cpu += s.weight * s.cpu;
  }
  return { weight, milliPerCpu: cpu > 0 ? milli / cpu : 0 };
}

/**
 * Milli-GPUs of `milliLeft` that `cpuLeft` millicores cannot serve at `milliPerCpu`
 * (the workload's milli-GPUs per millicore): max(0, milliLeft − cpuLeft · milliPerCpu);
 * 0 when the workload asks no cpu (or cpu is not a number: written so a NaN gives 0, as the wasm's does).
 */
export function cpuShortfall(milliLeft: number, cpuLeft: number, milliPerCpu: number): number {
  if (milliPerCpu === 0) return 0;
  const short = milliLeft - cpuLeft * milliPerCpu;
  return short > 0 ? short : 0;
}

/** W · (shortfall after − shortfall before) of a choice that takes a node from (milli, cpu) before to after. */
export function shortfallGrowth(scale: ShortfallScale, milliBefore: number, cpuBefore: number, milliAfter: number, cpuAfter: number): number {
  return scale.weight * (cpuShortfall(milliAfter, cpuAfter, scale.milliPerCpu) - cpuShortfall(milliBefore, cpuBefore, scale.milliPerCpu));
}

/** A whole GPU in milli-GPUs. */
export const MILLI = 1000;
/** The most shapes a workload may list (the kernel's static table, assembly/fragmentation.ts). */
export const MAX_WORKLOAD_SHAPES = 64;
/**
 * Kernel weights are integers summing to about this: with milli-GPU terms (≤ 32,000 a
 * node) every fragmentation sum stays an exact integer in an f64, so the kernel may add
 * in any order and still agree with the twin bit for bit.
 */
export const WEIGHT_SCALE = 2 ** 20;

/**
 * The kernel's static workload table (assembly/fragmentation.ts), mirrored:
 * one shape is gpu u32 · milli u32 · models u32 · pad · cpu f64 · weight f64 · mem f64.
 * The load-time check (wasm-module.ts checkMirrors) holds these and LEFT_WEIGHT equal
 * to the wasm's globals.
 */
export const SHAPE_LAYOUT = { MAX_SHAPES: MAX_WORKLOAD_SHAPES, SHAPE_STRIDE: 40, SHAPE_GPU: 0, SHAPE_MILLI: 4, SHAPE_MODELS: 8, SHAPE_CPU: 16, SHAPE_WEIGHT: 24, SHAPE_MEM: 32 } as const;

/** What fragmentation reads of a node: milli-GPUs left on each GPU, free cpu and memory, GPU model. */
export interface FragmentationNode {
  /** Milli-GPUs left per GPU index: 1000 free, 0 held whole, 1000 − used when shared. */
  left: readonly number[];
  freeCpu: number;
  /** Free memory in MiB; absent: memory is not looked at (the paper's measure, as B1 reports it). */
  freeMem?: number;
  model: number;
}

/** Milli-GPUs a pod of `shape` asks on each of its GPUs (1000 for whole GPUs, 0 for cpu-only). */
export function shapeMilli(shape: WorkloadShape): number {
  return shape.gpu === 0 ? 0 : shape.milli ? shape.milli : MILLI;
}

/** True when the shape may run on GPUs of `model` (no mask, or mask 0, allows every model). */
function modelAllows(shape: WorkloadShape, model: number): boolean {
  const models = (shape.models ?? 0) >>> 0;
  return models === 0 || Math.floor(models / 2 ** model) % 2 === 1;
}

/** Milli-GPUs of `node` that pods of `shape` cannot use (the term above). */
export function shapeFragmentation(node: FragmentationNode, shape: WorkloadShape): number {
  let total = 0;
  for (const x of node.left) total += x;
  const milli = shapeMilli(shape);
  if (milli === 0 || !modelAllows(shape, node.model)) return total;
  let fitting = 0;
  let unusable = 0;
  for (const x of node.left) {
    if (x >= milli) fitting++;
    else unusable += x;
  }
  const mem = shape.mem ?? 0;
  const memFits = mem === 0 || node.freeMem === undefined || node.freeMem >= mem;
  return fitting >= shape.gpu && node.freeCpu >= shape.cpu && memFits ? unusable : total;
}

/** The node's fragmentation: Σ weight · term over the workload's shapes, in the shapes' order. */
export function nodeFragmentation(node: FragmentationNode, workload: readonly WorkloadShape[]): number {
  let frag = 0;
  for (const shape of workload) frag += shape.weight * shapeFragmentation(node, shape);
  return frag;
}

/**
 * The workload as both kernels score with it: weights scaled to integers summing to
 * about WEIGHT_SCALE (each at least 1), shapes otherwise as given. Argmin placement
 * does not change under scaling; the integers keep every sum exact.
 */
export function kernelWorkload(workload: readonly WorkloadShape[]): WorkloadShape[] {
  let sum = 0;
  for (const s of workload) sum += s.weight;
  return workload.map((s) => Object.assign({}, s, { weight: Math.max(1, Math.round((s.weight / sum) * WEIGHT_SCALE)) }));
}

/**
 * The typical pods of a list of pod shapes, as the FGD simulator takes them
 * (`GetTypicalPods`): identical shapes counted, the most frequent first, kept until they
 * cover 95 % of the pods; each weighs its count. Shapes compare by gpu, milli, cpu and
 * models; memory is not part of a shape's identity (B1: telling shapes apart by memory
 * too splits them into ~55 and allocated less), and a typical pod asks the least memory
 * any of its pods asks, so that a node it does not fit fits none of them.
 */
export function typicalShapes(pods: readonly WorkloadShape[], coverage = 0.95): WorkloadShape[] {
  const counts = new Map<string, { shape: WorkloadShape; n: number }>();
  for (const p of pods) {
    const key = `${p.gpu}/${p.milli ?? 0}/${p.cpu}/${p.models ?? 0}`;
    const c = counts.get(key);
    if (!c) counts.set(key, { shape: p, n: p.weight });
    else {
      c.n += p.weight;
      if ((p.mem ?? 0) < (c.shape.mem ?? 0)) c.shape = Object.assign({}, c.shape, { mem: p.mem ?? 0 });
    }
  }
  const total = pods.reduce((s, p) => s + p.weight, 0);
  // Stable: equal counts keep first-seen order, so a given list always gives one answer.
  const sorted = [...counts.values()].sort((a, b) => b.n - a.n);
  const out: WorkloadShape[] = [];
  let covered = 0;
  for (const c of sorted) {
    if (covered >= coverage * total) break;
    out.push(Object.assign({}, c.shape, { weight: c.n }));
    covered += c.n;
  }
  return out;
}
