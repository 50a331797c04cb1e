/**
 * Cluster documents → one snapshot: nodes (from groups and one by one), running jobs
 * with their standing and placement (build-running-job.ts, place-pods.ts), and the queue
 * (build-queue.ts). Several Cluster documents merge into one.
 * Checks here: the snapshot time, duplicate nodes, unknown pools, node quantities and
 * the Cluster's size; each job's own checks are its builder's.
 */
import type { Cluster, ClusterNode, Pool, QueuedJob, RunningJob } from '../../model/policy.js';
import { parseCpu, parseMemory } from '../../model/quantity.js';
import type { Collector } from '../collector.js';
import type { NameIndex } from './build-job.js';
import { formatCount, MAX_CLUSTER_NODES } from '../parse/number-limits.js';
import { buildQueue } from './build-queue.js';
import { buildRunningJob, type JobOrigins, type RunningJobContext } from './build-running-job.js';
import { parseTimeField } from './parse-fields.js';
import type { ClusterSpec } from '../validate/schema.js';
import { sourceText } from '../../model/source.js';
import { sourceAt, type PathSeg, type SourceDoc } from '../parse/source-doc.js';
import { closest } from '../validate/suggest.js';
import type { TypedDoc } from '../validate/validate-schema.js';

export type { JobOrigins } from './build-running-job.js';

/** Builds the merged snapshot, or undefined when no Cluster document is given. */
export function buildCluster(c: Collector, docs: TypedDoc[], pools: Pool[], names: NameIndex, now: () => number): { cluster?: Cluster; origins: JobOrigins } {
  const origins: JobOrigins = new Map();
  const clusterDocs = docs.filter((d) => d.kind === 'Cluster');
  const first = clusterDocs[0];
  if (first === undefined) return { origins };
  const nodes: ClusterNode[] = [];
  const nodeIndex = new Map<string, ClusterNode>();
  // Where each node was declared; turned into file:line:col only for a duplicate's finding.
  const nodeOrigin = new Map<string, ClusterNode['src']>();
  let at: number | undefined;
  // A malformed `at` is one finding; the time it falls back to must not make every job "start after the snapshot".
  let atBroken = false;
  const poolNames = pools.map((p) => p.name);
  // Nodes declared so far, groups counted out: checked before a group is expanded (a count of 1e8 once filled the heap).
  let nodesDeclared = 0;

  const addNode = (sd: SourceDoc, path: PathSeg[], node: ClusterNode): void => {
    if (nodeIndex.has(node.name)) {
      const declared = nodeOrigin.get(node.name);
      c.error(
        sd,
        path,
        'policy/duplicate-node',
        `node "${node.name}" is already declared at ${declared ? sourceText(declared) : '?'}`,
        'node names are unique; rename it or change the group prefix/start',
      );
      return;
    }
    nodeIndex.set(node.name, node);
    nodeOrigin.set(node.name, node.src);
    nodes.push(node);
  };

  for (const td of clusterDocs) {
    const spec = td.spec as ClusterSpec;
    const sd = td.sd;
    if (spec.at !== undefined) {
      const t = parseTimeField(c, sd, ['spec', 'at'], spec.at);
      if (t !== undefined && at !== undefined && t !== at) {
        c.error(sd, ['spec', 'at'], 'policy/conflicting-time', 'Cluster documents give different snapshot times', 'one snapshot has one time; give `at` once or the same everywhere');
      }
      if (t !== undefined) at = t;
      else atBroken = true;
    }
    const nodeFields = (path: PathSeg[], n: { gpus: number; cpu?: number | string; memory?: number | string; pool: string; instanceType?: string; gpuModel?: string; unschedulable?: boolean; labels?: Record<string, string> }) => {
      if (!poolNames.includes(n.pool)) {
        c.error(sd, [...path, 'pool'], 'policy/unknown-pool', `pool "${n.pool}" is not declared by any QuotaTree`, closest(n.pool, poolNames, 'pool'));
      }
      const cpu = n.cpu === undefined ? undefined : parseCpu(n.cpu);
      const memory = n.memory === undefined ? undefined : parseMemory(n.memory);
      if (n.cpu !== undefined && cpu === undefined) c.error(sd, [...path, 'cpu'], 'policy/bad-quantity', `cpu "${String(n.cpu)}" is not a quantity`, 'write cores (96) or millicores (500m)');
      if (n.memory !== undefined && memory === undefined) c.error(sd, [...path, 'memory'], 'policy/bad-quantity', `memory "${String(n.memory)}" is not a quantity`, 'write a size such as 768Gi');
      return { gpus: n.gpus, cpu, memory, pool: n.pool, instanceType: n.instanceType, gpuModel: n.gpuModel, unschedulable: n.unschedulable, ...(n.labels ? { labels: { ...n.labels } } : {}) };
    };
    (spec.nodeGroups ?? []).forEach((g, gi) => {
      const path: PathSeg[] = ['spec', 'nodeGroups', gi];
      const fields = nodeFields(path, g);
      const src = sourceAt(sd, path);
      if (nodesDeclared + g.count > MAX_CLUSTER_NODES) {
        c.error(
          sd,
          [...path, 'count'],
          'policy/out-of-range',
          `the Cluster's nodes come to ${formatCount(nodesDeclared + g.count)} with this group, more than the ${formatCount(MAX_CLUSTER_NODES)} a Cluster may hold`,
          `lower count to at most ${formatCount(MAX_CLUSTER_NODES - nodesDeclared)}`,
        );
        return;
      }
      nodesDeclared += g.count;
      for (let k = 0; k < g.count; k++) addNode(sd, path, { name: `${g.prefix}${(g.start ?? 0) + k}`, ...fields, src });
    });
    (spec.nodes ?? []).forEach((n, ni) => {
      const path: PathSeg[] = ['spec', 'nodes', ni];
      // One at a time, the nodes count too (a policy's size limit bounds them already, far above this).
      if (++nodesDeclared > MAX_CLUSTER_NODES) {
        if (nodesDeclared === MAX_CLUSTER_NODES + 1)
          c.error(
            sd,
            [...path, 'name'],
            'policy/out-of-range',
            `the Cluster's nodes come to more than the ${formatCount(MAX_CLUSTER_NODES)} a Cluster may hold from here on`,
            'split the cluster into several policies',
          );
        return;
      }
      addNode(sd, [...path, 'name'], { name: n.name, ...nodeFields(path, n), src: sourceAt(sd, path) });
    });
  }
  const snapshotAt = at ?? now();

  const jobs: RunningJob[] = [];
  // GPU ownership per node, to find GPUs that two jobs claim (invariant 1), and the
  // shares of GPUs that sharing pods split (at most 1000 milli-GPUs each).
  const ctx: RunningJobContext = { names, at: snapshotAt, atBroken, nodes: nodeIndex, origins, holders: { owner: new Map(), sharers: new Map() }, times: new Map() };
  for (const td of clusterDocs) {
    const spec = td.spec as ClusterSpec;
    (spec.jobs ?? []).forEach((input, ji) => {
      const path: PathSeg[] = ['spec', 'jobs', ji];
      const job = buildRunningJob(c, td.sd, path, input, ctx);
      if (!job) return;
      jobs.push(job);
      // `standings: derive`: a job that states no standing gets the one the quota tree explains (derive-standings.ts).
      if (spec.standings === 'derive' && input.standing === undefined && job.standing !== 'idle') {
        const origin = origins.get(job.name);
        if (origin) origin.derive = true;
      }
    });
  }
  // The jobs waiting at the snapshot time (build-queue.ts), after every running job: a name is the running job's first.
  const queue: QueuedJob[] = [];
  for (const td of clusterDocs) {
    const spec = td.spec as ClusterSpec;
    if (spec.queue) queue.push(...buildQueue(c, td.sd, spec.queue, { names, at: snapshotAt, atBroken, origins }));
  }
  return { cluster: { name: first.name, at: snapshotAt, nodes, jobs, ...(queue.length ? { queue } : {}), src: sourceAt(first.sd, []) }, origins };
}
