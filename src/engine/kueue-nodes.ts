/**
 * A Kueue flavor's nodes as the kernel sees them (SEMANTICS 12, invariant 12: a pod set's
 * pods use only the nodes of its one flavor). The kernel restricts a gang to nodes by
 * their model index (gpu-models.ts); in a Kueue-rules pool a node's index stands for its
 * GPU model together with the flavors its labels match, so "the nodes of flavor F" is a
 * mask of indices, and placement stays the kernel's. In a PAI pool the index is the GPU
 * model alone, as before.
 */
import { nodeMatchesFlavor } from '../model/kueue-policy.js';
import type { ClusterNode, Policy } from '../model/policy.js';
import type { ModelIndex } from './gpu-models.js';

/** Separates a node's GPU model from its flavors in a key (a character no name holds). */
const SEP = '\u0001';

/** The model key of each node: its gpuModel, and in a Kueue pool the flavors it matches (none: an empty list). */
export function modelKeyOf(policy: Pick<Policy, 'pools'>): (n: ClusterNode) => string | undefined {
  const kueuePools = new Map(policy.pools.filter((p) => p.rules === 'kueue').map((p) => [p.name, p.flavors ?? []]));
  if (kueuePools.size === 0) return (n) => n.gpuModel;
  return (n) => {
    const flavors = kueuePools.get(n.pool);
    if (!flavors) return n.gpuModel;
    return `${n.gpuModel ?? ''}${SEP}${flavors
      .filter((f) => nodeMatchesFlavor(n.labels, f))
      .map((f) => f.name)
      .join(',')}`;
  };
}

/**
 * The model mask of the nodes of `flavor` (and of `gpuModels`, when the job names some):
 * 0 when no node of the snapshot is one, which callers must read as "nowhere" (0 is
 * "anywhere" to the kernel).
 */
export function flavorMask(models: ModelIndex, flavor: string, gpuModels?: readonly string[]): number {
  let mask = 0;
  for (const [key, index] of models) {
    const at = key.indexOf(SEP);
    if (at < 0) continue;
    if (
      !key
        .slice(at + 1)
        .split(',')
        .includes(flavor)
    )
      continue;
    if (gpuModels && !gpuModels.includes(key.slice(0, at))) continue;
    mask |= 1 << index;
  }
  return mask >>> 0;
}
