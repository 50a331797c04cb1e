/**
 * Placement for the pure-TS twin (SEMANTICS 5.4), written to be read next to the spec:
 * a query works on a copy-on-write view of the loaded nodes, so the loaded snapshot is
 * never mutated (the property the wasm kernel gets from its undo log).
 */
import { freeAlignedBlocks, freeMask, isPowerOfTwo, lowestFree, popcount, blockMask } from './gpu-mask.js';
import { kernelWorkload, nodeFragmentation, placementRank, shortfallGrowth, shortfallScale } from './fragmentation.js';
import type { ShortfallScale } from './fragmentation.js';
import type { GangRequest, KernelNode, PodPlacement, WorkloadShape } from './types.js';

/** A whole GPU in milli-GPUs. */
const MILLI = 1000;

/** The parts of a node a query changes. */
export interface NodeState {
  usedMask: number;
  freeCpu: number;
  freeMem: number;
  /** Milli-GPUs sharing pods use on each GPU index (0: not shared); see assembly/layout.ts. */
  shares: number[];
}

/** A loaded node as the twin keeps it: the snapshot's node plus its GPUs' shares. */
export type TwinNode = KernelNode & { shares: number[] };

/** Copy-on-write view of the loaded nodes for one query. */
export class WorkingNodes {
  private readonly changed = new Map<number, NodeState>();

  constructor(private readonly loaded: readonly TwinNode[]) {}

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
      state = { usedMask: node.usedMask >>> 0, freeCpu: node.freeCpu, freeMem: node.freeMem, shares: [...node.shares] };
      this.changed.set(n, state);
    }
    return state;
  }
}

/** Puts a pod on a node's state (occupy) or takes it off: its GPUs or its share, cpu and memory. */
export function applyPodTo(state: NodeState, pod: { mask: number; cpu: number; mem: number; milli?: number }, occupy: boolean): void {
  if (pod.milli) {
    // A share: the GPU's bit stays set while any share of it remains (assembly/state.ts applyPod).
    const g = Math.log2(pod.mask >>> 0);
    const left = state.shares[g]! + (occupy ? pod.milli : -pod.milli);
    state.shares[g] = left;
    state.usedMask = (left > 0 ? state.usedMask | pod.mask : state.usedMask & ~pod.mask) >>> 0;
    const sign = occupy ? -1 : 1;
    state.freeCpu += sign * pod.cpu;
    state.freeMem += sign * pod.mem;
    return;
  }
  if (occupy) {
    state.usedMask = (state.usedMask | pod.mask) >>> 0;
    state.freeCpu -= pod.cpu;
    state.freeMem -= pod.mem;
  } else {
    state.usedMask = (state.usedMask & ~pod.mask) >>> 0;
    state.freeCpu += pod.cpu;
    state.freeMem += pod.mem;
  }
}

/** Pods of `milli` the node's GPUs take: ⌊room / milli⌋ on each shared GPU, ⌊1000 / milli⌋ on each free one. */
function shareFits(node: Readonly<NodeState> & { readonly gpus: number }, milli: number): number {
  let fits = popcount(freeMask(node.usedMask, node.gpus)) * Math.floor(MILLI / milli);
  for (let g = 0; g < node.gpus; g++) {
    const used = node.shares[g]!;
    if (used > 0) fits += Math.floor((MILLI - used) / milli);
  }
  return fits;
}

/** Milli-GPUs left for sharing pods: free GPUs whole, plus the room on shared ones. */
function freeMilli(node: Readonly<NodeState> & { readonly gpus: number }): number {
  let left = popcount(freeMask(node.usedMask, node.gpus)) * MILLI;
  for (let g = 0; g < node.gpus; g++) if (node.shares[g]! > 0) left += MILLI - node.shares[g]!;
  return left;
}

/**
 * The GPU a share goes to: binpack the shared GPU with the least room that holds it, else
 * the lowest free GPU; spread the lowest free GPU, else the shared GPU with the most room.
 */
function chooseShareGpu(node: Readonly<NodeState> & { readonly gpus: number }, milli: number, spread: boolean): number {
  const free = freeMask(node.usedMask, node.gpus);
  const lowestFreeGpu = (): number => Math.log2(lowestFree(free, 1));
  if (spread && free !== 0) return lowestFreeGpu();
  let best = -1;
  let bestRoom = 0;
  for (let g = 0; g < node.gpus; g++) {
    const used = node.shares[g]!;
    if (used === 0 || MILLI - used < milli) continue;
    const room = MILLI - used;
    if (best < 0 || (spread ? room > bestRoom : room < bestRoom)) {
      best = g;
      bestRoom = room;
    }
  }
  return best >= 0 ? best : lowestFreeGpu();
}

/**
 * Places a gang of shares pod by pod: the fitting node with the fewest milli-GPUs left
 * (binpack) or the most (spread), ties to the lowest index; null when the pool lacks room.
 */
function placeShares(nodes: WorkingNodes, poolNodes: readonly number[], req: GangRequest, milli: number): PodPlacement[] | null {
  if (poolNodes.reduce((sum, n) => sum + fitsOf(nodes, n, req), 0) < req.pods) return null;
  const placements: PodPlacement[] = [];
  for (let p = 0; p < req.pods; p++) {
    let best = -1;
    let bestLeft = 0;
    for (const n of poolNodes) {
      if (fitsOf(nodes, n, req) < 1) continue;
      const left = freeMilli(nodes.get(n));
      if (best < 0 || (req.strategy === 'spread' ? left > bestLeft : left < bestLeft)) {
        best = n;
        bestLeft = left;
      }
    }
    if (best < 0) return null;
    const g = chooseShareGpu(nodes.get(best), milli, req.strategy === 'spread');
    const mask = (2 ** g) >>> 0;
    applyPodTo(nodes.edit(best), { mask, cpu: req.cpu, mem: req.mem, milli }, true);
    placements.push({ node: best, mask });
  }
  return placements;
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
 * strict topology for aligned shapes, else free / g; for a share, `shareFits`), cpu fits and memory fits (a
 * resource not asked for does not limit).
 */
export function fitsOf(nodes: WorkingNodes, n: number, req: GangRequest): number {
  const node = nodes.get(n);
  if (!modelAllowed(node, req)) return 0;
  const free = freeMask(node.usedMask, node.gpus);
  const gpuFits = req.milli ? shareFits(node, req.milli) : req.strict && alignedOn(req.gpu, node.gpus) ? freeAlignedBlocks(free, node.gpus, req.gpu).length : Math.floor(popcount(free) / req.gpu);
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
  if (req.strategy === 'fragmentation') return placeByFragmentation(nodes, poolNodes, req);
  if (req.milli) return placeShares(nodes, poolNodes, req, req.milli);
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

/** Milli-GPUs left on each GPU of a node: 1000 free, 0 held whole, 1000 − used when shared. */
function gpuLeft(node: Readonly<NodeState> & { readonly gpus: number }): number[] {
  const left: number[] = [];
  for (let g = 0; g < node.gpus; g++) {
    const used = node.shares[g]!;
    left.push(used > 0 ? MILLI - used : Math.floor((node.usedMask >>> 0) / 2 ** g) % 2 === 1 ? 0 : MILLI);
  }
  return left;
}

/** One way to put the pod on a node, as fragmentation ranks it. */
interface FragmentationChoice {
  node: number;
  mask: number;
  /** Fragmentation after − before (kernel-weighted integers: exact). */
  growth: number;
  /** placementRank of the choice (growth, the cpu shortfall's growth and the packing pull): smaller first. */
  key: number;
}

/**
 * The pod's best choice on node `n` by fragmentation: a share tries each GPU that holds
 * it (least growth, then least room, then the lowest GPU); whole GPUs take the GPUs
 * binpack would (`chooseGpus`), since every free GPU is alike to the measure.
 */
function fragmentationChoice(nodes: WorkingNodes, n: number, req: GangRequest, workload: readonly WorkloadShape[], scale: ShortfallScale): FragmentationChoice {
  const node = nodes.get(n);
  const model = node.model ?? 0;
  const left = gpuLeft(node);
  let total = 0;
  for (const x of left) total += x;
  const before = nodeFragmentation({ left, freeCpu: node.freeCpu, freeMem: node.freeMem, model }, workload);
  const freeCpu = node.freeCpu - req.cpu;
  const freeMem = node.freeMem - req.mem;
  if (req.milli) {
    let best: FragmentationChoice | null = null;
    let bestRoom = 0;
    for (let g = 0; g < node.gpus; g++) {
      const room = left[g]!;
      if (room < req.milli) continue;
      const after = [...left];
      after[g] = room - req.milli;
      const growth = nodeFragmentation({ left: after, freeCpu, freeMem, model }, workload) - before;
      if (!best || growth < best.growth || (growth === best.growth && room < bestRoom)) {
        best = { node: n, mask: (2 ** g) >>> 0, growth, key: 0 };
        bestRoom = room;
      }
    }
    // The shortfall is the same whichever GPU the share takes: it ranks the node, not the GPU.
    best!.key = placementRank(best!.growth, shortfallGrowth(scale, total, node.freeCpu, total - req.milli, freeCpu), total - req.milli, freeCpu);
    return best!;
  }
  const mask = chooseGpus(nodes, n, req.gpu);
  const after = left.map((x, g) => (Math.floor(mask / 2 ** g) % 2 === 1 ? 0 : x));
  const growth = nodeFragmentation({ left: after, freeCpu, freeMem, model }, workload) - before;
  const totalAfter = total - req.gpu * MILLI;
  return { node: n, mask, growth, key: placementRank(growth, shortfallGrowth(scale, total, node.freeCpu, totalAfter, freeCpu), totalAfter, freeCpu) };
}

/**
 * The fragmentation strategy (FGD, fragmentation.ts): pod by pod, the fitting node of
 * least placementRank (growth of fragmentation, growth of the cpu shortfall, and a pull
 * toward packing GPUs and cpu), then the lowest index; null when the pool lacks room.
 */
function placeByFragmentation(nodes: WorkingNodes, poolNodes: readonly number[], req: GangRequest): PodPlacement[] | null {
  if (poolNodes.reduce((sum, n) => sum + fitsOf(nodes, n, req), 0) < req.pods) return null;
  const workload = kernelWorkload(req.workload ?? []);
  const scale = shortfallScale(workload);
  const placements: PodPlacement[] = [];
  for (let p = 0; p < req.pods; p++) {
    let best: FragmentationChoice | null = null;
    for (const n of poolNodes) {
      if (fitsOf(nodes, n, req) < 1) continue;
      const c = fragmentationChoice(nodes, n, req, workload, scale);
      if (!best || c.key < best.key) best = c;
    }
    if (!best) return null;
    applyPodTo(nodes.edit(best.node), { mask: best.mask, cpu: req.cpu, mem: req.mem, milli: req.milli }, true);
    placements.push({ node: best.node, mask: best.mask });
  }
  return placements;
}
