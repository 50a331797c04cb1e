/**
 * A running job's stated placement, checked pod by pod and its GPUs claimed: each pod on a
 * node of the snapshot, in the pool of the job's quota, giving either its GPU indices or
 * (from Kubernetes, which does not say which) only their count; whole GPUs that exist and
 * no other pod holds (invariant 1), or one GPU shared by sharing pods whose shares stay
 * within 1000 milli-GPUs.
 *
 * Its own room because it is the one place that knows who holds which GPU while a
 * snapshot is read: build-running-job.ts asks it about each job in turn, and the record
 * it keeps (`GpuHolders`) spans every job of the snapshot.
 */
import type { ClusterNode, JobSpec } from '../../model/policy.js';
import { MILLI_PER_GPU, shareMilli } from '../../model/resources.js';
import type { Collector } from '../collector.js';
import type { RunningJobInput } from '../validate/schema.js';
import type { PathSeg, SourceDoc } from '../parse/source-doc.js';
import { closest } from '../validate/suggest.js';

/** One pod's placement as a Cluster document states it. */
type PodInput = NonNullable<RunningJobInput['placement']>[number];

/**
 * Who holds which GPU so far: per node, the job holding each whole GPU by index (indices
 * are below the node's GPU count, at most 32), and per GPU index the milli-GPUs sharing
 * pods use and the jobs they belong to.
 */
export interface GpuHolders {
  readonly owner: Map<string, Array<string | undefined>>;
  readonly sharers: Map<string, Map<number, { milli: number; jobs: string[] }>>;
}

/**
 * Checks job `spec`'s placement (at `path`) and claims its GPUs in `holders`: one entry per
 * pod, each pod as `checkPod` says. False after any finding; every pod is checked, so one
 * reading reports every bad pod.
 */
export function checkPlacement(
  c: Collector,
  sd: SourceDoc,
  path: PathSeg[],
  spec: JobSpec,
  placement: readonly PodInput[],
  quotaPool: string,
  nodes: Map<string, ClusterNode>,
  holders: GpuHolders,
): boolean {
  let ok = true;
  if (placement.length !== spec.pods) {
    c.error(
      sd,
      [...path, 'placement'],
      'policy/placement-pod-count',
      `job "${spec.name}" has ${spec.pods} pod(s) but its placement lists ${placement.length}`,
      'give one placement entry per pod, or none to let the engine place the job',
    );
    ok = false;
  }
  // One share per job (0 for whole GPUs); each pod's path is spelled out only for a finding.
  const share = shareMilli(spec.resources.gpu);
  placement.forEach((p, pi) => {
    if (!checkPod(c, sd, path, spec, p, pi, share, quotaPool, nodes, holders)) ok = false;
  });
  return ok;
}

/** Pod `pi`: its node, its pool, and its GPUs given one way, by count, shared or whole. False after a finding. */
function checkPod(
  c: Collector,
  sd: SourceDoc,
  path: PathSeg[],
  spec: JobSpec,
  p: PodInput,
  pi: number,
  share: number,
  quotaPool: string,
  nodes: Map<string, ClusterNode>,
  holders: GpuHolders,
): boolean {
  const pPath = (): PathSeg[] => [...path, 'placement', pi];
  const node = nodes.get(p.node);
  if (!node) {
    c.error(sd, [...pPath(), 'node'], 'policy/unknown-node', `job "${spec.name}" is placed on node "${p.node}", which the snapshot does not have`, closest(p.node, [...nodes.keys()], 'node'));
    return false;
  }
  let ok = true;
  if (node.pool !== quotaPool) {
    c.error(
      sd,
      [...pPath(), 'node'],
      'policy/wrong-pool',
      `node "${p.node}" is in pool "${node.pool}" but quota "${spec.quota}" draws from pool "${quotaPool}"`,
      "a quota's jobs run only on its pool's nodes; place the pod on a node of pool \"" + quotaPool + '"',
    );
    ok = false;
  }
  // A pod gives its GPU indices, or (from Kubernetes, which does not say which) only their count.
  if ((p.gpus === undefined) === (p.gpuCount === undefined)) {
    c.error(
      sd,
      pPath(),
      'policy/placement-gpus',
      `pod ${pi} of job "${spec.name}" must give either gpus (indices) or gpuCount`,
      p.gpus ? 'drop gpuCount: the indices already say how many' : 'add gpus: [0, 1, ...] or gpuCount: N',
    );
    return false;
  }
  if (p.gpuCount !== undefined) return checkGpuCount(c, sd, pPath, spec, pi, p.gpuCount, share, node) && ok;
  const gpus = p.gpus ?? [];
  if (share > 0) return placeShare(c, sd, pPath(), spec.name, share, p.node, node.gpus, gpus, holders) && ok;
  return holdWholeGpus(c, sd, pPath, spec, pi, p.node, node.gpus, gpus, holders) && ok;
}

/** A pod given by its GPU count: whole GPUs only, as many as the job asks, no more than the node has. False after a finding. */
function checkGpuCount(c: Collector, sd: SourceDoc, pPath: () => PathSeg[], spec: JobSpec, pi: number, gpuCount: number, share: number, node: ClusterNode): boolean {
  if (share > 0) {
    c.error(
      sd,
      [...pPath(), 'gpuCount'],
      'policy/placement-gpus',
      `pod ${pi} of job "${spec.name}" shares one GPU (${share}m), so its placement must name that GPU`,
      'give gpus: [i], the index of the GPU the pod shares',
    );
    return false;
  }
  if (gpuCount !== spec.resources.gpu) {
    c.error(
      sd,
      [...pPath(), 'gpuCount'],
      'policy/placement-gpu-count',
      `pod ${pi} of job "${spec.name}" holds ${gpuCount} GPU(s) but asks for ${spec.resources.gpu}`,
      'give gpuCount equal to resources.gpu',
    );
    return false;
  }
  if (gpuCount > node.gpus) {
    c.error(
      sd,
      [...pPath(), 'gpuCount'],
      'policy/gpu-out-of-range',
      `pod ${pi} of job "${spec.name}" holds ${gpuCount} GPUs but node "${node.name}" has ${node.gpus}`,
      'place the pod on a node with enough GPUs',
    );
    return false;
  }
  return true;
}

/**
 * A pod's whole GPUs: as many as the job asks, each on the node and held by no other pod
 * (invariant 1), claimed for the job. One finding per pod and kind of problem, at the
 * first GPU index it concerns. False after a finding.
 */
function holdWholeGpus(c: Collector, sd: SourceDoc, pPath: () => PathSeg[], spec: JobSpec, pi: number, nodeName: string, nodeGpus: number, gpus: readonly number[], holders: GpuHolders): boolean {
  let ok = true;
  if (gpus.length !== spec.resources.gpu) {
    c.error(
      sd,
      [...pPath(), 'gpus'],
      'policy/placement-gpu-count',
      `pod ${pi} of job "${spec.name}" holds ${gpus.length} GPU(s) but asks for ${spec.resources.gpu}`,
      'list exactly resources.gpu GPU indices per pod',
    );
    ok = false;
  }
  let held = holders.owner.get(nodeName);
  if (held === undefined) {
    held = [];
    holders.owner.set(nodeName, held);
  }
  // Lists made only when needed.
  let beyond: Array<[g: number, at: number]> | undefined;
  let taken: Array<[g: number, at: number, by: string]> | undefined;
  const shared = holders.sharers.get(nodeName);
  for (let gi = 0; gi < gpus.length; gi++) {
    const g = gpus[gi]!;
    const sharedBy = shared?.get(g);
    const holder = g < nodeGpus ? held[g] : undefined;
    if (g >= nodeGpus) (beyond ??= []).push([g, gi]);
    else if (holder !== undefined) (taken ??= []).push([g, gi, holder]);
    else if (sharedBy) (taken ??= []).push([g, gi, sharedBy.jobs.join('", job "')]);
    else held[g] = spec.name;
  }
  const firstBeyond = beyond?.[0];
  if (beyond && firstBeyond) {
    c.error(
      sd,
      [...pPath(), 'gpus', firstBeyond[1]],
      'policy/gpu-out-of-range',
      `GPU${beyond.length > 1 ? 's' : ''} ${beyond.map(([g]) => g).join(', ')} ${beyond.length > 1 ? 'do' : 'does'} not exist on node "${nodeName}" (it has GPUs 0-${nodeGpus - 1})`,
      `use indices 0..${nodeGpus - 1}`,
    );
    ok = false;
  }
  const firstTaken = taken?.[0];
  if (taken && firstTaken) {
    const owners = [...new Set(taken.map(([, , by]) => by))];
    const list = taken.map(([g]) => g).join(', ');
    const message =
      owners.length === 1 && owners[0] === spec.name
        ? `job "${spec.name}" lists GPU${taken.length > 1 ? 's' : ''} ${list} of node "${nodeName}" twice`
        : `GPU${taken.length > 1 ? 's' : ''} ${list} of node "${nodeName}" ${taken.length > 1 ? 'are' : 'is'} already held by ${owners.map((o) => `job "${o}"`).join(' and ')}`;
    c.error(sd, [...pPath(), 'gpus', firstTaken[1]], 'policy/gpu-taken', message, "a GPU belongs to one pod at a time: give this pod free GPU indices, or fix the other job's placement");
    ok = false;
  }
  return ok;
}

/**
 * A sharing pod's placement: exactly one GPU index, on the node, that no whole-GPU pod
 * holds and whose shares stay within 1000 milli-GPUs. False after a finding.
 */
function placeShare(c: Collector, sd: SourceDoc, pPath: PathSeg[], job: string, share: number, nodeName: string, nodeGpus: number, gpus: readonly number[], holders: GpuHolders): boolean {
  if (gpus.length !== 1) {
    c.error(
      sd,
      [...pPath, 'gpus'],
      'policy/placement-gpu-count',
      `a pod of job "${job}" shares one GPU (${share}m) but its placement lists ${gpus.length} GPUs`,
      'give gpus: [i], the one GPU the pod shares',
    );
    return false;
  }
  const g = gpus[0]!;
  if (g >= nodeGpus) {
    c.error(sd, [...pPath, 'gpus', 0], 'policy/gpu-out-of-range', `GPU ${g} does not exist on node "${nodeName}" (it has GPUs 0-${nodeGpus - 1})`, `use indices 0..${nodeGpus - 1}`);
    return false;
  }
  const whole = holders.owner.get(nodeName)?.[g];
  if (whole !== undefined) {
    c.error(
      sd,
      [...pPath, 'gpus', 0],
      'policy/gpu-taken',
      `GPU ${g} of node "${nodeName}" is held whole by job "${whole}", so job "${job}" cannot share it`,
      'a GPU is either held whole by one pod or shared by sharing pods: give this pod another GPU',
    );
    return false;
  }
  const onNode = holders.sharers.get(nodeName) ?? new Map<number, { milli: number; jobs: string[] }>();
  holders.sharers.set(nodeName, onNode);
  const now = onNode.get(g) ?? { milli: 0, jobs: [] };
  if (now.milli + share > MILLI_PER_GPU) {
    c.error(
      sd,
      [...pPath, 'gpus', 0],
      'policy/gpu-taken',
      `GPU ${g} of node "${nodeName}" is shared by ${now.jobs.map((j) => `job "${j}"`).join(', ')} (${now.milli}m); job "${job}"'s ${share}m would bring it to ${now.milli + share}m, above ${MILLI_PER_GPU}m`,
      'shares of one GPU add up to at most 1 GPU: give this pod another GPU, or lower the shares',
    );
    return false;
  }
  onNode.set(g, { milli: now.milli + share, jobs: [...now.jobs, job] });
  return true;
}
