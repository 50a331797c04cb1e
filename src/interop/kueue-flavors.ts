/**
 * Kueue's ResourceFlavors: a flavor is a set of nodes by `spec.nodeLabels`; where those
 * labels name a GPU model (label nvidia.com/gpu.product, the one `import kubectl
 * --model-label` reads by default), the flavor is that model. A Quotient quota has one
 * pool of GPUs, so flavors are summed; each quota's note says which model each of its
 * flavors is, and jobs that need one model ask for it with `gpuModels`.
 */
import { asObject, stringMap, type ForeignObject, where } from './located-json.js';

/** The node label naming a node's GPU model (NVIDIA's GPU feature discovery). */
export const GPU_MODEL_LABEL = 'nvidia.com/gpu.product';

/** Flavor name → the GPU model its nodeLabels select, with where it was read. */
export type FlavorModels = ReadonlyMap<string, { model: string; label: string; origin: string }>;

/** The GPU model of each ResourceFlavor whose nodeLabels name one. */
export function flavorModels(objects: ForeignObject[]): FlavorModels {
  const out = new Map<string, { model: string; label: string; origin: string }>();
  for (const o of objects) {
    if (o.kind !== 'ResourceFlavor') continue;
    const model = stringMap(asObject(o.obj.spec)?.nodeLabels)[GPU_MODEL_LABEL];
    if (model) out.set(o.name, { model, label: GPU_MODEL_LABEL, origin: where(o.sd, [...o.path, 'spec', 'nodeLabels', GPU_MODEL_LABEL]) });
  }
  return out;
}
