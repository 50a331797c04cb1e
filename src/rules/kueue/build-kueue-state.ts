/**
 * The KueueState (kueue-state.ts) of one Kueue-rules pool, from the policy and its
 * Cluster: the cohort tree with each quota's nominal quota, limits and preemption
 * policy per flavor-resource, and every running job of the pool as an admitted workload
 * holding, per flavor-resource, what its pods hold on the nodes they run on (SEMANTICS 12).
 *
 * A pod's flavor in a resource group is the first flavor of that group, in the
 * ClusterQueue's order, whose nodeLabels its node matches: what Kueue assigned for the pod
 * to be allowed there. A pod on a node no flavor of the group matches cannot have been
 * admitted so; it is counted on the group's first flavor and said (`unmatched`).
 */
import { isGpuResource, nodeMatchesFlavor, type KueueFlavor, type KueueResourceGroup } from '../../model/kueue-policy.js';
import type { ClusterNode, Pool, Quota, RunningJob } from '../../model/policy.js';
import { flavorResource, type FlavorResource, type KueueQuotaNode, type KueueState, type KueueWorkload } from './kueue-state.js';

/** The inputs of one pool's state: its quotas (parents before children), the Cluster's nodes and running jobs. */
export interface KueueStateInputs {
  pool: Pool;
  quotas: readonly Quota[];
  nodes: readonly ClusterNode[];
  jobs: readonly RunningJob[];
}

/** The state, and the running jobs whose pods sit on a node no flavor of their group matches. */
export interface BuiltKueueState {
  state: KueueState;
  unmatched: Array<{ job: string; node: string; resources: string[] }>;
}

/** A job's amounts per pod by Kubernetes resource name, under the ClusterQueue's GPU resource name. */
export function podRequests(job: Pick<RunningJob, 'resources'>, groups: readonly KueueResourceGroup[]): Map<string, number> {
  const out = new Map<string, number>();
  if (job.resources.gpu > 0) out.set(gpuResourceOf(groups), job.resources.gpu);
  if ((job.resources.cpu ?? 0) > 0) out.set('cpu', job.resources.cpu!);
  if ((job.resources.memory ?? 0) > 0) out.set('memory', job.resources.memory!);
  return out;
}

/** The GPU resource a ClusterQueue covers (`nvidia.com/gpu` unless its groups name another vendor's). */
export function gpuResourceOf(groups: readonly KueueResourceGroup[]): string {
  for (const g of groups) for (const r of g.coveredResources) if (isGpuResource(r)) return r;
  return 'nvidia.com/gpu';
}

/** The state of a Kueue-rules pool. */
export function buildKueueState(input: KueueStateInputs): BuiltKueueState {
  const { pool } = input;
  const flavors = new Map((pool.flavors ?? []).map((f) => [f.name, f]));
  const quotas = input.quotas.filter((q) => q.pool === pool.name && q.kueue);
  const nodes = new Map<string, KueueQuotaNode>();
  for (const q of quotas) {
    const k = q.kueue!;
    const quota = new Map<FlavorResource, { nominal: number; borrowingLimit?: number; lendingLimit?: number }>();
    for (const g of k.resourceGroups)
      for (const f of g.flavors)
        for (const r of f.resources)
          quota.set(flavorResource(f.name, r.name), {
            nominal: r.nominalQuota,
            ...(r.borrowingLimit === undefined ? {} : { borrowingLimit: r.borrowingLimit }),
            ...(r.lendingLimit === undefined ? {} : { lendingLimit: r.lendingLimit }),
          });
    nodes.set(q.name, {
      name: q.name,
      kind: k.kind,
      parent: q.parent,
      children: [...q.children],
      quota,
      weight: fairWeightOf(q),
      ...(k.preemption
        ? {
            preemption: {
              withinClusterQueue: k.preemption.withinClusterQueue,
              reclaimWithinCohort: k.preemption.reclaimWithinCohort,
              borrowWithinCohort: { ...k.preemption.borrowWithinCohort },
            },
          }
        : {}),
    });
  }
  const nodeByName = new Map(input.nodes.map((n) => [n.name, n]));
  const unmatched: BuiltKueueState['unmatched'] = [];
  const workloads: KueueWorkload[] = [];
  for (const job of input.jobs) {
    const q = quotas.find((x) => x.name === job.quota);
    if (!q || q.kueue!.kind !== 'ClusterQueue') continue;
    const groups = q.kueue!.resourceGroups;
    const perPod = podRequests(job, groups);
    const usage = new Map<FlavorResource, number>();
    for (const pod of job.placement) {
      const node = nodeByName.get(pod.node);
      const missed: string[] = [];
      for (const [resource, amount] of perPod) {
        const group = groups.find((g) => g.coveredResources.includes(resource));
        if (!group || group.flavors.length === 0) continue;
        const flavor = flavorOfNode(group, flavors, node) ?? group.flavors[0]!.name;
        if (flavorOfNode(group, flavors, node) === undefined) missed.push(resource);
        const fr = flavorResource(flavor, resource);
        usage.set(fr, (usage.get(fr) ?? 0) + amount);
      }
      if (missed.length > 0) unmatched.push({ job: job.name, node: pod.node, resources: missed });
    }
    workloads.push({ name: job.name, clusterQueue: job.quota, priority: job.priority, createdAt: job.startedAt, admittedAt: job.startedAt, evicted: false, usage });
  }
  const fair = fairSharingOf(pool);
  return { state: { nodes, workloads, ...(fair ? { fairSharing: fair } : {}) }, unmatched };
}

/** The tree's fair sharing (`spec.fairSharing`, SEMANTICS 13): present = on, with its strategies. */
function fairSharingOf(pool: Pool): KueueState['fairSharing'] {
  return pool.fairSharing ? { strategies: [...pool.fairSharing.strategies] } : undefined;
}

/** A ClusterQueue's or Cohort's `fairSharing.weight`; Kueue's default 1. */
function fairWeightOf(q: Quota): number {
  return q.kueue?.fairSharing?.weight ?? 1;
}

/** The first flavor of the group, in its order, whose nodeLabels the node matches; undefined when none does. */
export function flavorOfNode(group: KueueResourceGroup, flavors: ReadonlyMap<string, KueueFlavor>, node: ClusterNode | undefined): string | undefined {
  for (const f of group.flavors) {
    const flavor = flavors.get(f.name);
    if (flavor && nodeMatchesFlavor(node?.labels, flavor)) return f.name;
  }
  return undefined;
}
