// Fragmentation as the FGD paper measures it (Weng et al., ATC '23), the score the
// `fragmentation` strategy places by; src/kernel/fragmentation.ts is its definition and
// the twin's copy. For one node and one typical pod shape s, in milli-GPUs: a cpu-only
// shape, or one whose models exclude the node's, cannot use any free milli (all count);
// a shape that fits (s.gpu GPUs with ≥ s.milli left, and s.cpu free) cannot use the
// milli on GPUs with less than s.milli left; a shape that does not fit can use none.
// The node's fragmentation is Σ weight(s) · term(s).
//
// JS writes the workload once into a static table (it never moves when memory grows)
// and the count with `setWorkload`. Weights are integers (src/kernel/fragmentation.ts
// kernelWorkload), so every sum here is an exact integer in an f64 and agrees with the
// twin's whatever the order.

import { NODE_MASK, NODE_GPUS, NODE_FREE_CPU, NODE_MODEL, MILLI_PER_GPU } from './layout';
import { nodeAt, shareAt } from './state';

/**
 * Rank of a choice: growth + LEFT_WEIGHT · (milli-GPUs left on the node after + free cpu
 * after / CPU_PER_MILLI), a pull toward packing; src/kernel/fragmentation.ts says why.
 */
export const LEFT_WEIGHT: f64 = 4096;
/** Millicores of free cpu that weigh as one milli-GPU left in the rank. */
export const CPU_PER_MILLI: f64 = 16;

/** Rank of a choice (src/kernel/fragmentation.ts placementRank): growth + LEFT_WEIGHT · (milli left + cpu left / CPU_PER_MILLI). */
@inline export function placementRank(growth: f64, milliLeft: u32, cpuLeft: f64): f64 {
  return growth + LEFT_WEIGHT * (<f64>milliLeft + cpuLeft / CPU_PER_MILLI);
}

/** The most typical pod shapes a workload lists. */
export const MAX_SHAPES: u32 = 64;
/** One shape: gpu u32 · milli u32 (1000 whole, 0 cpu-only) · models u32 · pad · cpu f64 · weight f64. */
export const SHAPE_STRIDE: u32 = 32;
export const SHAPE_GPU: u32 = 0;
export const SHAPE_MILLI: u32 = 4;
export const SHAPE_MODELS: u32 = 8;
export const SHAPE_CPU: u32 = 16;
export const SHAPE_WEIGHT: u32 = 24;

const table: usize = memory.data(2048, 8);
/** Milli-GPUs left on each GPU of the node being scored (u32 × 32). */
const left: usize = memory.data(128, 8);
let shapeCount: u32 = 0;

/** Where JS writes the workload's shapes (static: never moves). */
export function workloadTable(): usize {
  return table;
}

/** Uses the first `count` shapes of the table from now on; false when count > MAX_SHAPES. */
export function useShapes(count: u32): bool {
  if (count > MAX_SHAPES) return false;
  shapeCount = count;
  return true;
}

/** Milli-GPUs left on GPU `g` of the scored node. */
@inline export function leftAt(g: u32): u32 {
  return load<u32>(left + (<usize>g << 2));
}

/** Sets the milli-GPUs left on GPU `g` of the scored node (to score a choice). */
@inline export function setLeft(g: u32, x: u32): void {
  store<u32>(left + (<usize>g << 2), x);
}

/**
 * Loads node `n`'s per-GPU milli left (1000 free, 0 held whole, 1000 − used when
 * shared) into the scoring scratch; returns their sum.
 */
export function loadLeft(n: u32): u32 {
  const node = nodeAt(n);
  const gpus = load<u32>(node + NODE_GPUS);
  const mask = load<u32>(node + NODE_MASK);
  let total: u32 = 0;
  for (let g: u32 = 0; g < gpus; g++) {
    const used = <u32>load<u16>(shareAt(n, g));
    const x = used > 0 ? MILLI_PER_GPU - used : ((mask >>> g) & 1) != 0 ? 0 : MILLI_PER_GPU;
    setLeft(g, x);
    total += x;
  }
  return total;
}

/**
 * Fragmentation of node `n` with the per-GPU milli left now in the scratch and `cpu`
 * free: Σ over the workload's shapes of weight · term (the header comment).
 */
export function fragmentation(n: u32, cpu: f64): f64 {
  const node = nodeAt(n);
  const gpus = load<u32>(node + NODE_GPUS);
  const model = load<u32>(node + NODE_MODEL);
  let total: u32 = 0;
  for (let g: u32 = 0; g < gpus; g++) total += leftAt(g);
  let frag: f64 = 0;
  for (let s: u32 = 0; s < shapeCount; s++) {
    const at = table + <usize>s * SHAPE_STRIDE;
    const weight = load<f64>(at + SHAPE_WEIGHT);
    const milli = load<u32>(at + SHAPE_MILLI);
    const models = load<u32>(at + SHAPE_MODELS);
    if (milli == 0 || (models != 0 && ((models >>> model) & 1) == 0)) {
      frag += weight * <f64>total;
      continue;
    }
    let fitting: u32 = 0;
    let unusable: u32 = 0;
    for (let g: u32 = 0; g < gpus; g++) {
      const x = leftAt(g);
      if (x >= milli) fitting++;
      else unusable += x;
    }
    const fits = fitting >= load<u32>(at + SHAPE_GPU) && cpu >= load<f64>(at + SHAPE_CPU);
    frag += weight * <f64>(fits ? unusable : total);
  }
  return frag;
}

/** Reads node `n`'s free cpu (the fragmentation measure's cpu). */
@inline export function freeCpuOf(n: u32): f64 {
  return load<f64>(nodeAt(n) + NODE_FREE_CPU);
}
