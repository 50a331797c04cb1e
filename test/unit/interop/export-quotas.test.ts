/**
 * Exports: PAI CreateQuota requests (Min as NodeSpecs, QueueStrategy, the self- and
 * sub-quota preemption settings and the SDK's note on when QuotaConfig applies), and
 * the mapping rows each export claims (one to one, approximated, lost).
 */
import { describe, expect, it } from 'vitest';
import { exportKueue } from '../../../src/interop/kueue.js';
import { exportPai, QUOTA_CONFIG_NOTE } from '../../../src/interop/pai-quota.js';
import type { TreeQuota } from '../../../src/interop/tree-quota.js';
import type { ClusterNode } from '../../../src/model/policy.js';

const TREE: TreeQuota[] = [
  { name: 'Quota1', parent: null, min: { gpu: 128 }, queueStrategy: 'fifo', reclaim: 'any', childPreemption: { preemptiblePriority: '2-3', modules: ['DLC', 'DSW'] } },
  { name: 'Quota1.1', parent: 'Quota1', min: { gpu: 48 }, queueStrategy: 'intelligent', reclaim: 'never', selfPreemption: { highPriority: '6-9', lowPriority: '1-4', modules: ['DLC'] } },
  { name: 'Quota1.2', parent: 'Quota1', min: { gpu: 76 }, queueStrategy: 'balance', reclaim: 'lower-priority' },
];
const node = (name: string, instanceType = 'ecs.gn7i-c32g1.32xlarge'): ClusterNode => ({ name, gpus: 8, pool: 'p', instanceType, src: { file: 'f', line: 1, column: 1, path: '' } });

describe('export pai', () => {
  const { document, rows } = exportPai(TREE, 'general', [node('a'), node('b')]);
  const doc = document as { note: string; requests: Array<Record<string, unknown>> };

  it('writes one CreateQuota request per quota, parents first, with the SDK note on QuotaConfig', () => {
    expect(doc.note).toBe(QUOTA_CONFIG_NOTE);
    expect(doc.note).toMatch(/ignored if the resource type is ECS or Lingjun/);
    expect(doc.requests.map((r) => [r.QuotaName, r.ParentQuotaId, r.ResourceType])).toEqual([
      ['Quota1', undefined, 'ECS'],
      ['Quota1.1', 'Quota1', 'ECS'],
      ['Quota1.2', 'Quota1', 'ECS'],
    ]);
  });

  it("gives Min as node specs of the pool's one instance type, rounding up when GPUs do not divide", () => {
    expect(doc.requests[0]!.Min).toEqual({ NodeSpecs: [{ Type: 'ecs.gn7i-c32g1.32xlarge', Count: 16 }] });
    expect(doc.requests[2]!.Min).toEqual({ NodeSpecs: [{ Type: 'ecs.gn7i-c32g1.32xlarge', Count: 10 }] });
    expect(rows.find((r) => r.quota === 'Quota1.2' && r.field === 'min.gpu')!.fate).toBe('approximated');
    expect(rows.find((r) => r.quota === 'Quota1.1' && r.field === 'min.gpu')!.fate).toBe('one-to-one');
    const mixed = exportPai(TREE, 'general', [node('a'), node('b', 'ecs.other')]);
    expect(mixed.rows.find((r) => r.field === 'min.gpu')!.fate).toBe('lost');
  });

  it('maps queue strategies and the preemption settings of QuotaConfig', () => {
    expect(doc.requests.map((r) => r.QueueStrategy)).toEqual(['PaiStrategyStrictFIFO', 'PaiStrategyIntelligent', 'PaiStrategyBalance']);
    expect(doc.requests[1]!.QuotaConfig).toEqual({
      EnableSelfQuotaPreemption: true,
      SelfQuotaPreemptionConfig: { PreemptorPriorities: [6, 7, 8, 9], PreemptedPriorities: [1, 2, 3, 4], PreemptedProducts: ['DLC'] },
    });
    expect(doc.requests[0]!.QuotaConfig).toEqual({ EnableSubQuotaPreemption: true, SubQuotaPreemptionConfig: { PreemptedPriorityUpperBound: 3, PreemptedProducts: ['DLC', 'DSW'] } });
    // 2-3 has no lower bound in PAI: approximated, said so.
    expect(rows.find((r) => r.field === 'childPreemption')).toMatchObject({ fate: 'approximated' });
    expect(rows.find((r) => r.quota === 'Quota1.1' && r.field === 'reclaim')).toMatchObject({ fate: 'lost' });
  });

  it('uses ResourceType Lingjun for a lingjun pool', () => {
    expect((exportPai(TREE, 'lingjun', []).document as typeof doc).requests[0]!.ResourceType).toBe('Lingjun');
  });
});

describe('export kueue', () => {
  const { objects, rows } = exportKueue(TREE, { version: 'v1beta1', names: { gpu: 'nvidia.com/gpu' }, flavor: 'f' });
  const byName = (n: string) => objects.find((o) => (o as { metadata: { name: string } }).metadata.name === n) as { kind: string; spec: Record<string, unknown> };

  it('writes quotas with children as Cohorts and leaves as ClusterQueues, with v1beta1 field names', () => {
    expect(byName('quota1').kind).toBe('Cohort');
    expect(byName('quota1.1')).toMatchObject({ kind: 'ClusterQueue', spec: { cohort: 'quota1', preemption: { reclaimWithinCohort: 'Never', withinClusterQueue: 'LowerPriority' } } });
    expect(byName('quota1').spec.resourceGroups).toEqual([{ coveredResources: ['nvidia.com/gpu'], flavors: [{ name: 'f', resources: [{ name: 'nvidia.com/gpu', nominalQuota: '4' }] }] }]);
  });

  it('says what is lost: child preemption, jobs on a parent, non-FIFO strategies', () => {
    expect(rows.filter((r) => r.fate === 'lost').map((r) => `${r.quota}:${r.field}`)).toEqual([
      'Quota1:jobs on the quota itself',
      'Quota1:childPreemption',
      'Quota1.1:queueStrategy',
      'Quota1.2:queueStrategy',
    ]);
    expect(rows.find((r) => r.field === 'selfPreemption')!.fate).toBe('approximated');
  });
});
