/**
 * The typed policy model: what the YAML means once it has been parsed and validated.
 * Plain data only; every object knows its Source. Built by the builders of `policy/` (load-policy.ts runs them).
 */
import type { PriorityRange } from './priority.js';
import type { PolicyPromise } from './promise.js';
import type { Resources } from './resources.js';
import type { Source } from './source.js';

/** PAI's modules: training (DLC), notebooks (DSW), inference services (EAS). */
export const MODULES = ['DLC', 'DSW', 'EAS'] as const;
export type Module = (typeof MODULES)[number];

export const POOL_TYPES = ['general', 'lingjun'] as const;
export type PoolType = (typeof POOL_TYPES)[number];

export const RECLAIM_MODES = ['any', 'lower-priority', 'never'] as const;
/** How a lending quota takes back what its siblings borrowed (SEMANTICS 5.2). */
export type ReclaimMode = (typeof RECLAIM_MODES)[number];

export const QUEUE_STRATEGIES = ['fifo', 'round-robin', 'balance', 'intelligent'] as const;
export type QueueStrategy = (typeof QUEUE_STRATEGIES)[number];

export const IDLE_MODES = ['none', 'acceptable', 'only'] as const;
/** Idle-resources mode of a job (SEMANTICS 4). */
export type IdleMode = (typeof IDLE_MODES)[number];

export const STANDINGS = ['in-quota', 'borrowing', 'idle'] as const;
/** Standing of a running job (SEMANTICS 2); spot is not modelled yet. */
export type Standing = (typeof STANDINGS)[number];

export const STRATEGIES = ['binpack', 'spread'] as const;
export type Strategy = (typeof STRATEGIES)[number];

export const TOPOLOGIES = ['prefer', 'strict'] as const;
export type Topology = (typeof TOPOLOGIES)[number];

/** Self-level preemption of one quota: its high-priority jobs may preempt same-level low-priority jobs. */
export interface SelfPreemption {
  highPriority: PriorityRange;
  lowPriority: PriorityRange;
  modules: Module[];
  src: Source;
}

/** Child-level preemption of a parent quota over its descendants' jobs. */
export interface ChildPreemption {
  preemptiblePriority: PriorityRange;
  modules: Module[];
  src: Source;
}

export interface Pool {
  name: string;
  type: PoolType;
  strategy: Strategy;
  topology: Topology;
  /** The QuotaTree that declares the pool. */
  tree: string;
  src: Source;
}

export interface Quota {
  name: string;
  parent: string | null;
  children: string[];
  min: Resources;
  queueStrategy: QueueStrategy;
  reclaim: ReclaimMode;
  selfPreemption?: SelfPreemption;
  childPreemption?: ChildPreemption;
  pool: string;
  src: Source;
  /** Where `reclaim` was written, or the quota itself when defaulted. */
  reclaimSrc: Source;
}

export interface Member {
  user: string;
  role: string;
}

export interface Workspace {
  name: string;
  quotas: string[];
  modules: Module[];
  members: Member[];
  src: Source;
}

export interface Checkpoint {
  /** Interval in ms. */
  every: number;
  /** Epoch ms of the last checkpoint, when known. */
  last?: number;
}

export interface FaultTolerance {
  autoRestart: boolean;
  maxRestarts: number;
}

/** A job as submitted: what a WhatIf asks about and what a running job was. */
export interface JobSpec {
  name: string;
  workspace: string;
  quota: string;
  module: Module;
  priority: number;
  pods: number;
  /** Per pod. */
  resources: Resources;
  idleResources: IdleMode;
  checkpoint?: Checkpoint;
  faultTolerance?: FaultTolerance;
  src: Source;
}

export interface PodPlacementSpec {
  node: string;
  gpus: number[];
}

/** A running job of a Cluster snapshot. */
export interface RunningJob extends JobSpec {
  standing: Standing;
  /** Epoch ms. */
  startedAt: number;
  /** One entry per pod once placed (the snapshot's or the engine's placement). */
  placement: PodPlacementSpec[];
  /** True when the engine placed it because the snapshot gave no placement. */
  placedByEngine: boolean;
}

export interface ClusterNode {
  name: string;
  gpus: number;
  /** Millicores; undefined = not tracked. */
  cpu?: number;
  /** MiB; undefined = not tracked. */
  memory?: number;
  pool: string;
  instanceType?: string;
  src: Source;
}

export interface Cluster {
  name: string;
  /** Epoch ms: the snapshot's time; lost work is counted up to it. */
  at: number;
  nodes: ClusterNode[];
  jobs: RunningJob[];
  src: Source;
}

export interface WhatIf {
  name: string;
  submit: JobSpec;
  src: Source;
}

/** Everything the files say, merged. */
export interface Policy {
  pools: Pool[];
  /** In declaration order, parents before children. */
  quotas: Quota[];
  workspaces: Workspace[];
  cluster?: Cluster;
  whatIfs: WhatIf[];
  promises: PolicyPromise[];
  files: string[];
}
