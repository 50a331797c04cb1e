/**
 * Cluster documents → one snapshot: nodes (from groups and one by one), running jobs
 * with their standing and placement, and the queue (build-queue.ts). Several Cluster
 * documents merge into one.
 * Checks: duplicate nodes and jobs, unknown pools, placements that name unknown nodes,
 * GPUs beyond the node, the wrong number of pods or GPUs, GPUs another job holds, the
 * wrong pool; standings that contradict the job's idle mode.
 */
import type { Cluster, ClusterNode, JobSpec, PodPlacementSpec, Pool, QueuedJob, RunningJob, Standing } from '../model/policy.js';
import { parseCpu, parseMemory } from '../model/quantity.js';
import { MILLI_PER_GPU, shareMilli } from '../model/resources.js';
import type { Collector } from './collector.js';
import { accessRefusal } from './access.js';
import { buildJobSpec, type NameIndex } from './build-job.js';
import { formatCount, MAX_CLUSTER_NODES } from './number-limits.js';
import { buildQueue } from './build-queue.js';
import { parseDurationField, parseTimeField } from './parse-fields.js';
import type { ClusterSpec, RunningJobInput } from './schema.js';
import { sourceText } from '../model/source.js';
import { sourceAt, type PathSeg, type SourceDoc } from './source-doc.js';
import { closest } from './suggest.js';
import type { TypedDoc } from './validate-schema.js';

/** Where each job came from, for findings made after building. */
export type JobOrigins = Map<string, { sd: SourceDoc; path: PathSeg[]; derive?: boolean }>;

/** Builds the merged snapshot, or undefined when no Cluster document is given. */
export function buildCluster(c: Collector, docs: TypedDoc[], pools: Pool[], names: NameIndex, now: number): { cluster?: Cluster; origins: JobOrigins } {
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
    const nodeFields = (path: PathSeg[], n: { gpus: number; cpu?: number | string; memory?: number | string; pool: string; instanceType?: string; gpuModel?: string; unschedulable?: boolean }) => {
      if (!poolNames.includes(n.pool)) {
        c.error(sd, [...path, 'pool'], 'policy/unknown-pool', `pool "${n.pool}" is not declared by any QuotaTree`, closest(n.pool, poolNames, 'pool'));
      }
      const cpu = n.cpu === undefined ? undefined : parseCpu(n.cpu);
      const memory = n.memory === undefined ? undefined : parseMemory(n.memory);
      if (n.cpu !== undefined && cpu === undefined) c.error(sd, [...path, 'cpu'], 'policy/bad-quantity', `cpu "${String(n.cpu)}" is not a quantity`, 'write cores (96) or millicores (500m)');
      if (n.memory !== undefined && memory === undefined) c.error(sd, [...path, 'memory'], 'policy/bad-quantity', `memory "${String(n.memory)}" is not a quantity`, 'write a size such as 768Gi');
      return { gpus: n.gpus, cpu, memory, pool: n.pool, instanceType: n.instanceType, gpuModel: n.gpuModel, unschedulable: n.unschedulable };
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
  const snapshotAt = at ?? now;

  const jobs: RunningJob[] = [];
  // GPU ownership per node, to find GPUs that two jobs claim (invariant 1), and the
  // shares of GPUs that sharing pods split (at most 1000 milli-GPUs each).
  const owner: Owners = new Map();
  const sharers: Sharers = new Map();
  // Start times already read, by their text (jobs of a snapshot share many): only good ones are kept.
  const times = new Map<string, number>();
  for (const td of clusterDocs) {
    const spec = td.spec as ClusterSpec;
    (spec.jobs ?? []).forEach((input, ji) => {
      const path: PathSeg[] = ['spec', 'jobs', ji];
      const job = buildRunningJob(c, td.sd, path, input, names, snapshotAt, nodeIndex, owner, sharers, origins, atBroken, times);
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

function buildRunningJob(
  c: Collector,
  sd: SourceDoc,
  path: PathSeg[],
  input: RunningJobInput,
  names: NameIndex,
  at: number,
  nodes: Map<string, ClusterNode>,
  owner: Owners,
  sharers: Sharers,
  origins: JobOrigins,
  atBroken: boolean,
  times: Map<string, number>,
): RunningJob | undefined {
  if (origins.has(input.name)) {
    const o = origins.get(input.name)!;
    const s = sourceAt(o.sd, o.path);
    c.error(sd, [...path, 'name'], 'policy/duplicate-job', `job "${input.name}" is already declared at ${s.file}:${s.line}:${s.column}`, 'job names are unique in a snapshot; rename one');
    return undefined;
  }
  origins.set(input.name, { sd, path });
  const spec = buildJobSpec(c, sd, path, input, names);
  if (!spec) return undefined;
  const ws = names.workspaces.get(spec.workspace)!;
  const refusal = accessRefusal(spec, ws, names.quotas.get(spec.quota)!);
  if (refusal) {
    c.error(
      sd,
      [...path, refusal.field],
      refusal.code,
      `running job "${spec.name}": ${refusal.message} (${refusal.rule} at ${refusal.src.file}:${refusal.src.line}:${refusal.src.column})`,
      refusal.hint,
    );
    return undefined;
  }
  const standing = resolveStanding(c, sd, path, input, names);
  if (!standing) return undefined;
  let startedAt = at;
  if (input.startedAt !== undefined) {
    let t = times.get(input.startedAt);
    if (t === undefined) {
      t = parseTimeField(c, sd, [...path, 'startedAt'], input.startedAt);
      if (t === undefined) return undefined;
      times.set(input.startedAt, t);
    }
    if (t > at && !atBroken) {
      c.error(sd, [...path, 'startedAt'], 'policy/started-after-snapshot', `job "${spec.name}" starts after the snapshot time`, "a running job must have started at or before the Cluster's `at`");
      return undefined;
    }
    startedAt = t;
  }
  const expectedEnd = buildExpectedEnd(c, sd, path, input, spec.name, startedAt, at, atBroken);
  if (expectedEnd === null) return undefined;
  const quotaPool = names.quotas.get(spec.quota)!.pool;
  const placement = input.placement ?? [];
  let placementOk = true;
  if (input.placement) {
    if (placement.length !== spec.pods) {
      c.error(
        sd,
        [...path, 'placement'],
        'policy/placement-pod-count',
        `job "${spec.name}" has ${spec.pods} pod(s) but its placement lists ${placement.length}`,
        'give one placement entry per pod, or none to let the engine place the job',
      );
      placementOk = false;
    }
    // One share per job (0 for whole GPUs); each pod's path is spelled out only for a finding.
    const share = shareMilli(spec.resources.gpu);
    placement.forEach((p, pi) => {
      const pPath = (): PathSeg[] => [...path, 'placement', pi];
      const node = nodes.get(p.node);
      if (!node) {
        c.error(sd, [...pPath(), 'node'], 'policy/unknown-node', `job "${spec.name}" is placed on node "${p.node}", which the snapshot does not have`, closest(p.node, [...nodes.keys()], 'node'));
        placementOk = false;
        return;
      }
      if (node.pool !== quotaPool) {
        c.error(
          sd,
          [...pPath(), 'node'],
          'policy/wrong-pool',
          `node "${p.node}" is in pool "${node.pool}" but quota "${spec.quota}" draws from pool "${quotaPool}"`,
          "a quota's jobs run only on its pool's nodes; place the pod on a node of pool \"" + quotaPool + '"',
        );
        placementOk = false;
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
        placementOk = false;
        return;
      }
      if (p.gpuCount !== undefined && share > 0) {
        c.error(
          sd,
          [...pPath(), 'gpuCount'],
          'policy/placement-gpus',
          `pod ${pi} of job "${spec.name}" shares one GPU (${share}m), so its placement must name that GPU`,
          'give gpus: [i], the index of the GPU the pod shares',
        );
        placementOk = false;
        return;
      }
      if (p.gpuCount !== undefined) {
        if (p.gpuCount !== spec.resources.gpu) {
          c.error(
            sd,
            [...pPath(), 'gpuCount'],
            'policy/placement-gpu-count',
            `pod ${pi} of job "${spec.name}" holds ${p.gpuCount} GPU(s) but asks for ${spec.resources.gpu}`,
            'give gpuCount equal to resources.gpu',
          );
          placementOk = false;
        } else if (p.gpuCount > node.gpus) {
          c.error(
            sd,
            [...pPath(), 'gpuCount'],
            'policy/gpu-out-of-range',
            `pod ${pi} of job "${spec.name}" holds ${p.gpuCount} GPUs but node "${p.node}" has ${node.gpus}`,
            'place the pod on a node with enough GPUs',
          );
          placementOk = false;
        }
        return;
      }
      const gpus = p.gpus ?? [];
      if (share > 0) {
        if (!placeShare(c, sd, pPath(), spec.name, share, p.node, node.gpus, gpus, owner, sharers)) placementOk = false;
        return;
      }
      if (gpus.length !== spec.resources.gpu) {
        c.error(
          sd,
          [...pPath(), 'gpus'],
          'policy/placement-gpu-count',
          `pod ${pi} of job "${spec.name}" holds ${gpus.length} GPU(s) but asks for ${spec.resources.gpu}`,
          'list exactly resources.gpu GPU indices per pod',
        );
        placementOk = false;
      }
      let held = owner.get(p.node);
      if (held === undefined) {
        held = [];
        owner.set(p.node, held);
      }
      // One finding per pod and kind of problem, at the first GPU index it concerns (lists made only when needed).
      let beyond: Array<[g: number, at: number]> | undefined;
      let taken: Array<[g: number, at: number, by: string]> | undefined;
      const shared = sharers.get(p.node);
      for (let gi = 0; gi < gpus.length; gi++) {
        const g = gpus[gi]!;
        const sharedBy = shared?.get(g);
        const holder = g < node.gpus ? held[g] : undefined;
        if (g >= node.gpus) (beyond ??= []).push([g, gi]);
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
          `GPU${beyond.length > 1 ? 's' : ''} ${beyond.map(([g]) => g).join(', ')} ${beyond.length > 1 ? 'do' : 'does'} not exist on node "${p.node}" (it has GPUs 0-${node.gpus - 1})`,
          `use indices 0..${node.gpus - 1}`,
        );
        placementOk = false;
      }
      const firstTaken = taken?.[0];
      if (taken && firstTaken) {
        const owners = [...new Set(taken.map(([, , by]) => by))];
        const list = taken.map(([g]) => g).join(', ');
        const message =
          owners.length === 1 && owners[0] === spec.name
            ? `job "${spec.name}" lists GPU${taken.length > 1 ? 's' : ''} ${list} of node "${p.node}" twice`
            : `GPU${taken.length > 1 ? 's' : ''} ${list} of node "${p.node}" ${taken.length > 1 ? 'are' : 'is'} already held by ${owners.map((o) => `job "${o}"`).join(' and ')}`;
        c.error(sd, [...pPath(), 'gpus', firstTaken[1]], 'policy/gpu-taken', message, "a GPU belongs to one pod at a time: give this pod free GPU indices, or fix the other job's placement");
        placementOk = false;
      }
    });
  }
  if (!placementOk) return undefined;
  return runningJob(spec, standing, startedAt, expectedEnd, placement.map(podPlacement));
}

/**
 * When a running job is expected to end: `expectedEnd` (a time), or `startedAt + duration`;
 * undefined when neither is given, null after a finding. Both at once is a conflict (one
 * would silently win), and an end before the snapshot time is a job that should be gone.
 */
function buildExpectedEnd(c: Collector, sd: SourceDoc, path: PathSeg[], input: RunningJobInput, job: string, startedAt: number, at: number, atBroken: boolean): number | undefined | null {
  if (input.expectedEnd !== undefined && input.duration !== undefined) {
    c.error(sd, [...path, 'duration'], 'policy/conflicting-end', `job "${job}" gives both expectedEnd and duration`, 'give one of them: expectedEnd (a time) or duration (from startedAt)');
    return null;
  }
  let end: number | undefined;
  let field = 'expectedEnd';
  if (input.expectedEnd !== undefined) {
    end = parseTimeField(c, sd, [...path, 'expectedEnd'], input.expectedEnd);
  } else if (input.duration !== undefined) {
    field = 'duration';
    const d = parseDurationField(c, sd, [...path, 'duration'], input.duration);
    end = d === undefined ? undefined : startedAt + d;
  } else return undefined;
  if (end === undefined) return null;
  if (end < at && !atBroken) {
    c.error(
      sd,
      [...path, field],
      'policy/ended-before-snapshot',
      `job "${job}" is expected to end at ${new Date(end).toISOString()}, before the snapshot time ${new Date(at).toISOString()}`,
      "a running job ends at or after the Cluster's `at`: correct its expected end, or remove the job if it has ended",
    );
    return null;
  }
  return end;
}

/**
 * The running job: the spec's fields, then the snapshot's. One object literal in the usual
 * case (no gpuModels, no expected end): every field in the object itself, one allocation.
 * Otherwise Object.assign onto a fresh object, so each kind of job still has one hidden
 * class — a `{ ...spec, extra }` literal gives nearly each job its own, and every per-job
 * read after that goes megamorphic (measured: ~14x slower reads on B3's 38,633 jobs).
 * The keys are the same either way: gpuModels and expectedEnd only when set.
 */
function runningJob(spec: JobSpec, standing: Standing, startedAt: number, expectedEnd: number | undefined, placement: PodPlacementSpec[]): RunningJob {
  if (!('gpuModels' in spec) && expectedEnd === undefined) {
    return {
      name: spec.name,
      workspace: spec.workspace,
      quota: spec.quota,
      module: spec.module,
      priority: spec.priority,
      pods: spec.pods,
      resources: spec.resources,
      idleResources: spec.idleResources,
      checkpoint: spec.checkpoint,
      faultTolerance: spec.faultTolerance,
      submittedBy: spec.submittedBy,
      maxRuntime: spec.maxRuntime,
      src: spec.src,
      standing,
      startedAt,
      placement,
      placedByEngine: false,
    };
  }
  return Object.assign({}, spec, { standing, startedAt, ...(expectedEnd !== undefined ? { expectedEnd } : {}), placement, placedByEngine: false });
}

/** A pod's placement as the model holds it: its GPU indices sorted, or marked to be assigned (given by count). */
function podPlacement(p: { node: string; gpus?: number[] }): PodPlacementSpec {
  return p.gpus ? { node: p.node, gpus: sortedCopy(p.gpus) } : { node: p.node, gpus: [], indicesAssigned: true };
}

/** A copy of GPU indices in ascending order (they usually are already: then no sort). */
function sortedCopy(gpus: readonly number[]): number[] {
  const out = gpus.slice();
  for (let i = 1; i < out.length; i++) if (out[i]! < out[i - 1]!) return out.sort((a, b) => a - b);
  return out;
}

/** Per node, the job holding each whole GPU, by index (indices are below the node's GPU count, at most 32). */
type Owners = Map<string, Array<string | undefined>>;

/** Per node, per GPU index: the milli-GPUs sharing pods use and the jobs they belong to. */
type Sharers = Map<string, Map<number, { milli: number; jobs: string[] }>>;

/**
 * A sharing pod's placement: exactly one GPU index, on the node, that no whole-GPU pod
 * holds and whose shares stay within 1000 milli-GPUs. False after a finding.
 */
function placeShare(c: Collector, sd: SourceDoc, pPath: PathSeg[], job: string, share: number, nodeName: string, nodeGpus: number, gpus: readonly number[], owner: Owners, sharers: Sharers): boolean {
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
  const whole = owner.get(nodeName)?.[g];
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
  const onNode = sharers.get(nodeName) ?? new Map<number, { milli: number; jobs: string[] }>();
  sharers.set(nodeName, onNode);
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

/** SEMANTICS 2: an `only` job is idle; others in-quota unless stated; contradictions are errors. */
function resolveStanding(c: Collector, sd: SourceDoc, path: PathSeg[], input: RunningJobInput, names: NameIndex): Standing | undefined {
  const mode = input.idleResources ?? 'none';
  const standing: Standing = input.standing ?? (mode === 'only' ? 'idle' : 'in-quota');
  if (mode === 'only' && standing !== 'idle') {
    c.error(
      sd,
      [...path, 'standing'],
      'policy/standing-conflict',
      `job "${input.name}" has idleResources: only, so it runs idle, not ${standing}`,
      'remove standing, or change idleResources to none or acceptable',
    );
    return undefined;
  }
  if (mode === 'none' && standing === 'idle') {
    c.error(
      sd,
      [...path, 'standing'],
      'policy/standing-conflict',
      `job "${input.name}" has idleResources: none, so it cannot run idle`,
      'set idleResources: acceptable or only for a job that runs on idle capacity',
    );
    return undefined;
  }
  if (standing === 'borrowing' && names.quotas.get(input.quota)?.parent === null) {
    c.error(
      sd,
      [...path, 'standing'],
      'policy/borrowing-at-root',
      `job "${input.name}" is borrowing on root quota "${input.quota}", which has no siblings to borrow from`,
      'a root quota can only run in-quota jobs',
    );
    return undefined;
  }
  return standing;
}
