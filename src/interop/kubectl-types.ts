/**
 * The shapes `import kubectl` reads into and writes from (import-kubectl.ts reads the
 * List; kubectl-node.ts, kubectl-pod.ts, kubectl-jobs.ts and kubectl-queue.ts each read
 * one part).
 */
import type { Module } from '../model/policy.js';
import type { PathSeg, SourceDoc } from '../policy/parse/source-doc.js';
import type { LocalQueueIndex } from './kueue-local-queues.js';
import type { Report } from './located-json.js';
import type { PriorityBand } from './priority-map.js';

/** Kueue's pod label naming the LocalQueue (kueue pkg/controller/constants/constants.go `QueueLabel`). */
export const KUEUE_QUEUE_LABEL = 'kueue.x-k8s.io/queue-name';
/** Koordinator's pod label naming the ElasticQuota (koordinator apis/extension/elastic_quota.go `LabelQuotaName`). */
export const KOORDINATOR_QUOTA_LABEL = 'quota.scheduling.koordinator.sh/name';

/** Where a pod's quota or workspace name comes from, tried in order. */
export type NameSource = 'kueue' | 'koordinator' | 'namespace' | `label:${string}`;

/** How to read the cluster (every field has a CLI flag; defaults in docs/interop.md). */
export interface KubectlOptions {
  /** The extended resource counted as GPUs. */
  gpuResource: string;
  /** The node label holding the GPU model. */
  modelLabel: string;
  /** The node label holding the pool; nodes without it (or when unset) get `pool`. */
  poolLabel?: string;
  pool: string;
  quotaFrom: NameSource[];
  workspaceFrom: NameSource[];
  /** The pod label holding the module (DLC, DSW, EAS); pods without it get their owner kind's module in `moduleMap`, else `module`. */
  moduleLabel: string;
  module: Module;
  /** Owner kind → module (owner-module.ts); default DEFAULT_OWNER_MODULES. */
  moduleMap?: ReadonlyMap<string, Module>;
  /** Kueue's LocalQueues (`--kueue FILES`): a pod's queue-name label maps to the ClusterQueue its LocalQueue feeds. */
  localQueues?: LocalQueueIndex;
  priorityMap: PriorityBand[];
  /** Node label keys written on each node (`import kubectl --kueue` under Kueue's rules: the keys of the ResourceFlavors' nodeLabels). */
  nodeLabelKeys?: readonly string[];
}

/** A node of the snapshot, with where it came from. */
export interface ImportedNode {
  name: string;
  gpus: number;
  cpu?: number;
  memory?: number;
  pool: string;
  gpuModel?: string;
  unschedulable?: boolean;
  /** The node's labels a Kueue flavor selects by (KubectlOptions.nodeLabelKeys), as Kubernetes has them. */
  labels?: Record<string, string>;
  /** `file:line:col` of the Node object, and how each value was read. */
  origin: string;
  notes: string[];
}

/** What a running and a waiting job of the snapshot both are: a gang of pods of one owner and one shape. */
export interface ImportedGang {
  name: string;
  workspace: string;
  quota: string;
  module: Module;
  priority: number;
  pods: number;
  resources: { gpu: number; cpu?: number; memory?: number };
  /** `file:line:col` of its first pod. */
  origin: string;
  notes: string[];
}

/** A running job of the snapshot. */
export interface ImportedJob extends ImportedGang {
  startedAt?: number;
  placement: Array<{ node: string; gpuCount: number }>;
}

/** A waiting job of the snapshot (SEMANTICS 8): the pending pods of one owner and one shape that name a queue. */
export interface ImportedQueuedJob extends ImportedGang {
  /** The earliest metadata.creationTimestamp of its pods (a Workload's own). */
  submittedAt: number;
  /** `namespace/name` of the Kueue Workload it was read from (kubectl-workload.ts); absent: from pending pods. */
  kueueWorkload?: string;
}

/** An object that was read and not imported (its kind, name and reason escaped, imported-name.ts writableText). */
export interface Skipped {
  kind: string;
  name: string;
  where: string;
  reason: string;
}

export interface KubectlImport {
  nodes: ImportedNode[];
  jobs: ImportedJob[];
  /** Pending pods with a queue, and Kueue's pending Workloads, as the snapshot's queue. */
  queue: ImportedQueuedJob[];
  /** What became of Kueue's Workloads (kubectl-workload.ts); absent when the List holds none. */
  workloads?: WorkloadCounts;
  skipped: Skipped[];
  /** Objects read, by kind. */
  read: Record<string, number>;
  /** How values were mapped, one line each, for the summary. */
  mapped: string[];
  report: Report;
}

export interface PodFacts {
  sd: SourceDoc;
  path: PathSeg[];
  name: string;
  namespace: string;
  node: string;
  gpu: number;
  cpu?: number;
  memory?: number;
  priority: number;
  /** spec.priority, or undefined when the pod has none (it counts as 0). */
  kubePriority: number | undefined;
  quota: string;
  quotaFrom: string;
  /** The quota's source in full (a LocalQueue and where it is), for the job's comment. */
  quotaDetail?: string;
  workspace: string;
  module: Module;
  /** How the module was chosen (label, owner kind, default), for the job's comment. */
  moduleFrom: string;
  owner: { kind: string; name: string } | undefined;
  /** How the owner was found above the pod's own (a Deployment through its ReplicaSet: kubectl-owner.ts), for the job's comment. */
  ownerVia?: string;
  /** The pod's own owner when `owner` was found above it (the ReplicaSet): a Kueue Workload may be owned by it. */
  directOwner?: { kind: string; name: string };
  startedAt?: number;
  /** Set for a pending pod that names a queue: when it was created (undefined: not known). */
  pending?: { createdAt: number };
  /** Why a name of the pod was rewritten (imported-name.ts), for the job's comment. */
  rewritten: string[];
}

/** What became of the Workloads read, for the summary. */
export interface WorkloadCounts {
  read: number;
  queued: number;
  /** QuotaReserved or Admitted True: holding quota; their running pods are the running jobs. */
  admitted: number;
  finished: number;
  /** spec.active false: Kueue never admits it. */
  inactive: number;
  /** Listed in the skipped objects with the reason. */
  skipped: number;
  /** Pending pods of a Workload's job, left to the Workload. */
  podsOfWorkloads: number;
}
