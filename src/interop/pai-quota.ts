/**
 * A quota tree as PAI CreateQuota request bodies, one per quota, parents first. Field
 * names from aliyun/alibabacloud-typescript-sdk paistudio-20220112/src/models:
 * CreateQuotaRequest.ts (`QuotaName`, `ParentQuotaId`, `ResourceType`, `Min`,
 * `QueueStrategy`, `QuotaConfig`), ResourceSpec.ts (`NodeSpecs`), NodeSpec.ts (`Type`,
 * `Count`), QuotaConfig.ts (`EnableSelfQuotaPreemption`, `SelfQuotaPreemptionConfig`,
 * `EnableSubQuotaPreemption`, `SubQuotaPreemptionConfig`),
 * SelfQuotaPreemptionConfig.ts (`PreemptorPriorities`, `PreemptedPriorities`,
 * `PreemptedProducts`), SubQuotaPreemptionConfig.ts (`PreemptedPriorityUpperBound`,
 * `PreemptedProducts`).
 */
import type { Finding } from '../errors.js';
import type { ClusterNode, PoolType, QueueStrategy } from '../model/policy.js';
import type { MappingRow, TreeQuota } from './tree-quota.js';

/** PAI's queue strategies, as CreateQuotaRequest.ts documents them. */
export const PAI_QUEUE_STRATEGY: Record<QueueStrategy, string> = {
  fifo: 'PaiStrategyStrictFIFO',
  'round-robin': 'PaiStrategyRoundRobin',
  balance: 'PaiStrategyBalance',
  intelligent: 'PaiStrategyIntelligent',
};

/** What the SDK says about QuotaConfig (CreateQuotaRequest.ts, `quotaConfig` remarks), carried in the output. */
export const QUOTA_CONFIG_NOTE =
  'PAI\'s SDK documents for CreateQuotaRequest.QuotaConfig: "This parameter is ignored if the resource type is ECS or Lingjun. If the resource type is ACS, the specified VPC and ACS configurations are applied." The preemption settings below (EnableSelfQuotaPreemption, SubQuotaPreemptionConfig, ...) are therefore ignored by CreateQuota for ECS and Lingjun quotas; set them where PAI applies QuotaConfig. ParentQuotaId holds the parent\'s QuotaName: replace it with the id CreateQuota returns for the parent.';

/** Priorities of a range `6-9` or `4`, listed. */
function priorities(range: string): number[] {
  const [lo, hi] = range.includes('-') ? range.split('-').map(Number) : [Number(range), Number(range)];
  const out: number[] = [];
  for (let p = lo!; p <= hi!; p++) out.push(p);
  return out;
}

/**
 * The snapshot nodes PAI cannot be told about: CreateQuota gives Min only as node specs
 * (an instance type and a count), so a pool node without `instanceType` makes every
 * quota's Min unwritable. Each is a located error at the node.
 */
export function nodesWithoutInstanceType(nodes: ClusterNode[]): Finding[] {
  return nodes
    .filter((n) => !n.instanceType)
    .map((n) => ({
      file: n.src.file,
      line: n.src.line,
      column: n.src.column,
      code: 'export/no-instance-type',
      severity: 'error' as const,
      path: n.src.path,
      message: `node "${n.name}" has no instanceType: PAI's CreateQuota gives Min only as node specs (instance type and count), so no quota's Min can be written`,
      hint: 'give every node of the pool its instanceType (e.g. ecs.gn7i-c32g1.32xlarge), as PAI lists it',
    }));
}

/** The CreateQuota requests of a tree, with the mapping table. `nodes` are the pool's snapshot nodes (for NodeSpecs); callers refuse nodes without an instance type first (nodesWithoutInstanceType). */
export function exportPai(quotas: TreeQuota[], poolType: PoolType, nodes: ClusterNode[]): { document: unknown; rows: MappingRow[] } {
  const rows: MappingRow[] = [];
  const types = [...new Set(nodes.map((n) => `${n.instanceType ?? ''}\u0000${n.gpus}`))];
  const shape = types.length === 1 && nodes[0]?.instanceType ? { type: nodes[0].instanceType, gpus: nodes[0].gpus } : undefined;
  const why =
    nodes.length === 0
      ? 'the policy has no snapshot nodes in this pool to take an instance type from'
      : `the pool's snapshot nodes are of ${types.length} shapes (${types.map((t) => t.replace('\u0000', ' with ')).join(', ')} GPUs), and NodeSpecs of one quota name one type here`;
  const resourceType = poolType === 'lingjun' ? 'Lingjun' : 'ECS';
  const requests = quotas.map((q) => {
    const r: Record<string, unknown> = { QuotaName: q.name, ResourceType: resourceType };
    rows.push({ quota: q.name, field: 'name', target: 'QuotaName', fate: 'one-to-one', note: '' });
    if (q.parent !== null) {
      r.ParentQuotaId = q.parent;
      rows.push({ quota: q.name, field: 'parent', target: 'ParentQuotaId', fate: 'approximated', note: "holds the parent's name; PAI wants the id CreateQuota returned for it" });
    }
    if (shape) {
      const count = Math.ceil(q.min.gpu / shape.gpus);
      r.Min = { NodeSpecs: [{ Type: shape.type, Count: count }] };
      rows.push({
        quota: q.name,
        field: 'min.gpu',
        target: 'Min.NodeSpecs[0].Count',
        fate: count * shape.gpus === q.min.gpu ? 'one-to-one' : 'approximated',
        note: `${count} × ${shape.type} (${shape.gpus} GPUs each)${count * shape.gpus === q.min.gpu ? '' : `: ${count * shape.gpus} GPUs, rounded up from ${q.min.gpu}`}`,
      });
    } else {
      r.Min = { NodeSpecs: [] };
      rows.push({
        quota: q.name,
        field: 'min.gpu',
        target: 'Min.NodeSpecs',
        fate: 'lost',
        note: `the SDK's ResourceSpec gives Min only as NodeSpecs (node Type and Count); ${why}: fill NodeSpecs by hand`,
      });
    }
    if (q.min.cpu !== undefined || q.min.memory !== undefined)
      rows.push({ quota: q.name, field: 'min.cpu/memory', target: 'Min.NodeSpecs', fate: 'approximated', note: 'PAI derives cpu and memory from the node specs' });
    if (q.queueStrategy) {
      r.QueueStrategy = PAI_QUEUE_STRATEGY[q.queueStrategy];
      rows.push({ quota: q.name, field: 'queueStrategy', target: 'QueueStrategy', fate: 'one-to-one', note: `${q.queueStrategy} → ${PAI_QUEUE_STRATEGY[q.queueStrategy]}` });
    }
    const config: Record<string, unknown> = {};
    if (q.selfPreemption) {
      config.EnableSelfQuotaPreemption = true;
      config.SelfQuotaPreemptionConfig = {
        PreemptorPriorities: priorities(q.selfPreemption.highPriority),
        PreemptedPriorities: priorities(q.selfPreemption.lowPriority),
        PreemptedProducts: q.selfPreemption.modules,
      };
      rows.push({
        quota: q.name,
        field: 'selfPreemption',
        target: 'QuotaConfig.SelfQuotaPreemptionConfig',
        fate: 'one-to-one',
        note: `priorities listed; modules as PreemptedProducts (the SDK does not enumerate product names). ${resourceType}: QuotaConfig ignored, see note`,
      });
    }
    if (q.childPreemption) {
      const list = priorities(q.childPreemption.preemptiblePriority);
      const hi = list[list.length - 1]!;
      config.EnableSubQuotaPreemption = true;
      config.SubQuotaPreemptionConfig = { PreemptedPriorityUpperBound: hi, PreemptedProducts: q.childPreemption.modules };
      rows.push({
        quota: q.name,
        field: 'childPreemption',
        target: 'QuotaConfig.SubQuotaPreemptionConfig',
        fate: list[0] === 1 ? 'one-to-one' : 'approximated',
        note: `${list[0] === 1 ? '' : `PAI gives only an upper bound: ${q.childPreemption.preemptiblePriority} widens to 1-${hi}. `}${resourceType}: QuotaConfig ignored, see note`,
      });
    }
    if (Object.keys(config).length) r.QuotaConfig = config;
    if (q.reclaim && q.reclaim !== 'any') rows.push({ quota: q.name, field: 'reclaim', target: '—', fate: 'lost', note: 'CreateQuota has no reclaim mode' });
    return r;
  });
  return { document: { note: QUOTA_CONFIG_NOTE, requests }, rows };
}
