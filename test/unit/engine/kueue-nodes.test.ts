/** A flavor's nodes as kernel model indices (invariant 12). */
import { describe, expect, it } from 'vitest';
import { modelIndex } from '../../../src/engine/gpu-models.js';
import { flavorMask, modelKeyOf } from '../../../src/engine/kueue-nodes.js';
import { kueuePolicy } from '../../helpers/kueue-policy.js';

describe('kueue-nodes', () => {
  const policy = kueuePolicy();
  const nodes = policy.cluster!.nodes;
  const keyOf = modelKeyOf(policy);
  const models = modelIndex(nodes, keyOf);
  const nodesOf = (mask: number) => nodes.filter((n) => (mask >>> (models.get(keyOf(n)!) ?? 0)) & 1).map((n) => n.name);

  it('gives each flavor the mask of exactly the nodes its nodeLabels match', () => {
    expect(nodesOf(flavorMask(models, 'a100'))).toEqual(['a-0', 'a-1']);
    expect(nodesOf(flavorMask(models, 'h100'))).toEqual(['h-0']);
    expect(nodesOf(flavorMask(models, 'tainted'))).toEqual(['h-0']);
  });

  it('gives 0 for a flavor no node matches, and keys PAI nodes by their GPU model alone', () => {
    expect(flavorMask(models, 'none')).toBe(0);
    const pai = modelKeyOf({ pools: [{ ...policy.pools[0]!, rules: 'pai' }] });
    expect(pai({ ...nodes[0]!, gpuModel: 'A100' })).toBe('A100');
  });
});
