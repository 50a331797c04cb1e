/**
 * Placement for the pure-TS twin (SEMANTICS 5.4), written to be read next to the spec:
 * a query works on a copy-on-write view of the loaded nodes, so the loaded snapshot is
 * never mutated (the property the wasm kernel gets from its undo log).
 */
import { freeAlignedBlocks, freeMask, isPowerOfTwo, lowestFree, popcount, blockMask } from './gpu-mask.js';
import type { GangRequest, KernelNode, PodPlacement } from './types.js';

/** The parts of a node a query changes. */
export interface NodeState {
  usedMask: number;
  freeCpu: number;
  freeMem: number;
}

/** Copy-on-write view of the loaded nodes for one query. */
export class WorkingNodes {
  private readonly changed = new Map<number, NodeState>();

  constructor(private readonly loaded: readonly KernelNode[]) {}

  /** Node `n` as the query currently sees it (do not mutate; use `edit`). */
  get(n: number): Readonly<NodeState> & { readonly gpus: number; readonly pool: number; readonly model?: number } {
    const node = this.loaded[n]!;
    const state = this.changed.get(n);
    return state ? { ...state, gpus: node.gpus, pool: node.pool, model: node.model } : node;
  }

  /** A private, writable copy of node `n`'s state for this query. */
  edit(n: number): NodeState {
    let state = this.changed.get(n);
    if (!state) {
      const node = this.loaded[n]!;
      state = { usedMask: node.usedMask >>> 0, freeCpu: node.freeCpu, freeMem: node.freeMem };
      this.changed.set(n, state);
    }
    return state;
  }
}

/** A request's shape is aligned on a node when g is a power of two no bigger than the node. */
const alignedOn = (g: number, gpus: number): boolean => isPowerOfTwo(g) && g <= gpus;

/** Free GPUs of node `n` now. */
export function freeGpus(nodes: WorkingNodes, n: number): number {
  const node = nodes.get(n);
  return popcount(freeMask(node.usedMask, node.gpus));
}

/** True when the node's GPU model is one the request allows (no mask, or mask 0, allows all). */
export function modelAllowed(node: { readonly model?: number }, req: GangRequest): boolean {
  const models = (req.models ?? 0) >>> 0;
  return models === 0 || Math.floor(models / 2 ** (node.model ?? 0)) % 2 === 1;
}

/**
 * How many more pods of the request's shape node `n` takes: none on a node of a model
 * the request does not allow; else the least of GPU fits (aligned free blocks under
 * strict topology for aligned shapes, else free / g), cpu fits and memory fits (a
 * resource not asked for does not limit).
 */
export function fitsOf(nodes: WorkingNodes, n: number, req: GangRequest): number {
  const node = nodes.get(n);
  if (!modelAllowed(node, req)) return 0;
  const free = freeMask(node.usedMask, node.gpus);
  const gpuFits = req.strict && alignedOn(req.gpu, node.gpus)
    ? freeAlignedBlocks(free, node.gpus, req.gpu).length
    : Math.floor(popcount(free) / req.gpu);
  let fits = gpuFits;
  if (req.cpu > 0) fits = Math.min(fits, Math.floor(node.freeCpu / req.cpu));
  if (req.mem > 0) fits = Math.min(fits, Math.floor(node.freeMem / req.mem));
  return fits >= 1 ? fits : 0;
}

/**
 * True when a pod of `g` GPUs could take an aligned block on node `n`: g is not a power
 * of two (every node ranks alike), or some aligned block of g GPUs is free.
 */
function offersAlignedBlock(nodes: WorkingNodes, n: number, g: number): boolean {
  if (!isPowerOfTwo(g)) return true;
  const node = nodes.get(n);
  return g <= node.gpus && freeAlignedBlocks(freeMask(node.usedMask, node.gpus), node.gpus, g).length > 0;
}

/** GPUs one pod gets on node `n`: the lowest free aligned block, else the g lowest free GPUs. */
function chooseGpus(nodes: WorkingNodes, n: number, g: number): number {
  const node = nodes.get(n);
  const free = freeMask(node.usedMask, node.gpus);
  if (alignedOn(g, node.gpus)) {
    const blocks = freeAlignedBlocks(free, node.gpus, g);
    if (blocks.length > 0) return blockMask(blocks[0]!, g);
  }
  return lowestFree(free, g);
}

/**
 * Places the gang pod by pod on `poolNodes` (ascending node indices of the request's
 * pool), changing `nodes`; null when the pool lacks room (all or nothing, invariant 8).
 * binpack picks the fitting node with the fewest free GPUs, spread the most; among equal
 * ones a node offering a free aligned block of the pod's size first; then the lowest index.
 */
export function placeGang(nodes: WorkingNodes, poolNodes: readonly number[], req: GangRequest): PodPlacement[] | null {
  const fits = poolNodes.map((n) => fitsOf(nodes, n, req));
  if (fits.reduce((a, b) => a + b, 0) < req.pods) return null;
  const placements: PodPlacement[] = [];
  for (let p = 0; p < req.pods; p++) {
    let best = -1;
    let bestFree = 0;
    let bestAligned = false;
    poolNodes.forEach((n, i) => {
      if (fits[i]! < 1) return;
      const free = freeGpus(nodes, n);
      const aligned = offersAlignedBlock(nodes, n, req.gpu);
      const better = req.strategy === 'binpack' ? free < bestFree : free > bestFree;
      // Among nodes the strategy ranks equal, one offering an aligned block comes first (5.4).
      if (best < 0 || better || (free === bestFree && aligned && !bestAligned)) {
        best = i;
        bestFree = free;
        bestAligned = aligned;
      }
    });
    if (best < 0) return null;
    const n = poolNodes[best]!;
    const mask = chooseGpus(nodes, n, req.gpu);
    const state = nodes.edit(n);
    state.usedMask = (state.usedMask | mask) >>> 0;
    state.freeCpu -= req.cpu;
    state.freeMem -= req.mem;
    fits[best] = fitsOf(nodes, n, req);
    placements.push({ node: n, mask });
  }
  return placements;
}
