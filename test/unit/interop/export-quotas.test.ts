/**
 * Exports: PAI CreateQuota requests (Min as NodeSpecs, QueueStrategy, the self- and
 * sub-quota preemption settings and the SDK's note on when QuotaConfig applies), and
 * the mapping rows each export claims (one to one, approximated, lost).
 */
import { describe, expect, it } from 'vitest';
import { exportKoordinator } from '../../../src/interop/koordinator.js';
import { exportKueue } from '../../../src/interop/kueue.js';
import { exportPai, nodesWithoutInstanceType, QUOTA_CONFIG_NOTE } from '../../../src/interop/pai-quota.js';
import type { TreeQuota } from '../../../src/interop/tree-quota.js';
import { exportVolcano } from '../../../src/interop/volcano.js';
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

describe('export kueue: flavors and ceilings', () => {
  const tree: TreeQuota[] = [
    { name: 'org', parent: null, min: { gpu: 48 } },
    { name: 'research', parent: 'org', min: { gpu: 16, cpu: 96000 }, max: { gpu: 24, cpu: 128000 }, borrowing: { priority: '1-9' }, queueStrategy: 'round-robin' },
    { name: 'prod', parent: 'org', min: { gpu: 32 } },
  ];
  const { objects, rows } = exportKueue(tree, { version: 'v1beta2', names: { gpu: 'nvidia.com/gpu' }, flavor: 'a100' });
  const byName = (n: string) => objects.find((o) => (o as { metadata: { name: string } }).metadata.name === n) as { kind: string; spec: Record<string, unknown> };

  it('emits the ResourceFlavor its ClusterQueues name (else they stay inactive)', () => {
    expect(objects[0]).toEqual({ apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ResourceFlavor', metadata: { name: 'a100' } });
  });

  it('writes max as borrowingLimit (max − min) per resource max names, BestEffortFIFO for round-robin, and reclaimWithinCohort Any at the default', () => {
    expect(byName('research').spec).toMatchObject({
      queueingStrategy: 'BestEffortFIFO',
      preemption: { reclaimWithinCohort: 'Any' },
      resourceGroups: [
        {
          flavors: [
            {
              name: 'a100',
              resources: [
                { name: 'nvidia.com/gpu', nominalQuota: '16', borrowingLimit: '8' },
                { name: 'cpu', nominalQuota: '96', borrowingLimit: '32' },
              ],
            },
          ],
        },
      ],
    });
    expect(byName('prod').spec).toMatchObject({ queueingStrategy: 'StrictFIFO', resourceGroups: [{ flavors: [{ resources: [{ name: 'nvidia.com/gpu', nominalQuota: '32' }] }] }] });
    expect(JSON.stringify(byName('prod').spec)).not.toContain('borrowingLimit');
    expect(rows.find((r) => r.quota === 'research' && r.field === 'max')!.fate).toBe('one-to-one');
    expect(rows.find((r) => r.quota === 'research' && r.field === 'borrowing')!.fate).toBe('one-to-one');
    expect(rows.find((r) => r.quota === 'prod' && r.field === 'borrowing')!.fate).toBe('approximated');
  });
});

describe('export koordinator and volcano: ceilings', () => {
  const tree: TreeQuota[] = [
    { name: 'org', parent: null, min: { gpu: 48, cpu: 400000 } },
    { name: 'research', parent: 'org', min: { gpu: 16 }, max: { gpu: 24 } },
    { name: 'prod', parent: 'org', min: { gpu: 32 } },
  ];
  const spec = (objects: unknown[], name: string) => (objects.find((o) => (o as { metadata: { name: string } }).metadata.name === name) as { spec: Record<string, unknown> }).spec;

  it("writes max as ElasticQuota spec.max, the root's guarantee for what it leaves unbounded", () => {
    const { objects, rows } = exportKoordinator(tree, { names: { gpu: 'nvidia.com/gpu' }, namespace: 'default' });
    expect(spec(objects, 'research').max).toEqual({ 'nvidia.com/gpu': '24', cpu: '400' });
    expect(spec(objects, 'prod').max).toEqual({ 'nvidia.com/gpu': '48', cpu: '400' });
    expect(rows.find((r) => r.quota === 'research' && r.field === 'max')!.fate).toBe('one-to-one');
    expect(rows.find((r) => r.quota === 'prod' && r.target === 'spec.max')!.fate).toBe('approximated');
  });

  it('writes max as Queue spec.capability, and none without one', () => {
    const { objects, rows } = exportVolcano(tree, { gpu: 'nvidia.com/gpu' });
    expect(spec(objects, 'research').capability).toEqual({ 'nvidia.com/gpu': '24' });
    expect(spec(objects, 'prod').capability).toBeUndefined();
    expect(rows.find((r) => r.quota === 'research' && r.field === 'max')).toMatchObject({ target: 'spec.capability', fate: 'one-to-one' });
  });
});

describe('export pai: nodes without an instance type', () => {
  it('is a located error at each such node', () => {
    const bare = { ...node('x'), instanceType: undefined, src: { file: 'c.yaml', line: 7, column: 7, path: 'spec.nodes[1]' } };
    expect(nodesWithoutInstanceType([node('a'), bare])).toMatchObject([{ file: 'c.yaml', line: 7, column: 7, code: 'export/no-instance-type', severity: 'error', path: 'spec.nodes[1]' }]);
    expect(nodesWithoutInstanceType([node('a')])).toEqual([]);
  });

  it('says in the lost row why NodeSpecs are empty: no nodes, or nodes of several shapes', () => {
    expect(exportPai(TREE, 'general', []).rows.find((r) => r.field === 'min.gpu')!.note).toMatch(/no snapshot nodes in this pool/);
    expect(exportPai(TREE, 'general', [node('a'), node('b', 'ecs.other')]).rows.find((r) => r.field === 'min.gpu')!.note).toMatch(/2 shapes/);
  });
});
