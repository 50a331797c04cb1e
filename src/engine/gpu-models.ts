/**
 * GPU models as the kernel numbers them: index 0 is a node without a model, 1..31 the
 * snapshot's models in name order. A job's `gpuModels` becomes a mask of allowed
 * indices; a job asking only for models no node has gets mask 0 from `maskOf` and is
 * refused before placement (a 0 mask would mean "any" to the kernel).
 */
import { compareText } from '../model/order.js';
import type { ClusterNode } from '../model/policy.js';

/** Model name → kernel index. */
export type ModelIndex = Map<string, number>;

/** The most distinct models a snapshot may have (kernel masks are 32 bits, index 0 reserved). */
export const MAX_MODELS = 31;

/**
 * Numbers the nodes' models (name order, from 1). `keyOf` names a node's model (default
 * its gpuModel; in a Kueue-rules pool, kueue-nodes.ts adds the flavors it matches).
 */
export function modelIndex(nodes: readonly ClusterNode[], keyOf: (n: ClusterNode) => string | undefined = (n) => n.gpuModel): ModelIndex {
  const names = [...new Set(nodes.map(keyOf).filter((m): m is string => m !== undefined))].sort(compareText);
  return new Map(names.slice(0, MAX_MODELS).map((m, i) => [m, i + 1]));
}

/** The allowed-models mask of a job (0 when it names none of the snapshot's models, or asks for none). */
export function maskOf(index: ModelIndex, models: readonly string[] | undefined): number {
  if (!models) return 0;
  let mask = 0;
  for (const m of models) {
    const i = index.get(m);
    if (i !== undefined) mask |= 1 << i;
  }
  return mask >>> 0;
}
