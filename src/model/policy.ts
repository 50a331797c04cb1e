/**
 * The typed policy model: what the YAML means once it has been parsed and validated.
 * Plain data only; every object knows its Source. Built by the builders of `policy/` (load-policy.ts runs them).
 */
import type { PriorityRange } from './priority.js';
import type { PolicyPromise } from './promise.js';
import type { Resources } from './resources.js';
import type { Source } from './source.js';
import type { VictimCriterion } from './victim-order.js';
import type { KueueFairSharing, KueueFlavor, KueueQuotaClauses, RuleSet } from './kueue-policy.js';
export * from './kueue-policy.js';

// The kinds a job is described by live apart (job-kinds.ts): promises name them too, and
// importing them from here made model/policy.ts and model/promise.ts import each other.
import type { IdleMode, Module, Standing } from './job-kinds.js';
export { IDLE_MODES, MODULES, STANDINGS, type IdleMode, type Module, type Standing } from './job-kinds.js';

export const POOL_TYPES = ['general', 'lingjun'] as const;
export type PoolType = (typeof POOL_TYPES)[number];

export const RECLAIM_MODES = ['any', 'lower-priority', 'never'] as const;
/** How a lending quota takes back what its siblings borrowed (SEMANTICS 5.2). */
export type ReclaimMode = (typeof RECLAIM_MODES)[number];

export const QUEUE_STRATEGIES = ['fifo', 'round-robin', 'balance', 'intelligent'] as const;
export type QueueStrategy = (typeof QUEUE_STRATEGIES)[number];

/** PAI's API names for the queue strategies (its QueueStrategy), accepted beside ours. */
export const PAI_QUEUE_STRATEGIES: Readonly<Record<string, QueueStrategy>> = {
  PaiStrategyStrictFIFO: 'fifo',
  PaiStrategyRoundRobin: 'round-robin',
  PaiStrategyBalance: 'balance',
  PaiStrategyIntelligent: 'intelligent',
};

/**
 * Parameters of the queue strategies (SEMANTICS 8), per quota, with documented defaults
 * (docs/simulate.md): `balance` widens its window by one job per `balanceWidenEvery` of
 * the head's wait, up to `balanceWindow` jobs; `intelligent` ages a waiting job below
 * priority `intelligentFifoFrom` by one per `agingInterval`, up to `agingCap`.
 */
export interface QueueParameters {
  balanceWindow: number;
  /** ms */
  balanceWidenEvery: number;
  /** ms */
  agingInterval: number;
  agingCap: number;
  intelligentFifoFrom: number;
}

/** The defaults of QueueParameters. */
export const DEFAULT_QUEUE_PARAMETERS: QueueParameters = {
  balanceWindow: 8,
  balanceWidenEvery: 10 * 60_000,
  agingInterval: 3_600_000,
  agingCap: 6,
  intelligentFifoFrom: 7,
};

export const STRATEGIES = ['binpack', 'spread', 'fragmentation'] as const;
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

/**
 * A quota's ceiling (SEMANTICS 3, after Kueue's borrowingLimit, Koordinator's and
 * YuniKorn's max, Volcano's capability): per resource it names, the in-quota and
 * borrowing jobs of the quota's subtree never use more. cpu in millicores, memory in MiB.
 */
export interface Ceiling {
  gpu?: number;
  cpu?: number;
  memory?: number;
}

/** Who may run borrowing on a quota (SEMANTICS 5.2), as the policy writes it. */
export interface BorrowingClause {
  priority: PriorityRange;
  src: Source;
}

/** One typical pod shape a `fragmentation` pool keeps room for (docs/policy-format.md). */
export interface TypicalPod {
  /** GPUs per pod: whole (1, 2, 8), a share below 1 (0.46), or 0 for a cpu-only pod. */
  gpu: number;
  /** cpu per pod in millicores (0 when not given). */
  cpu: number;
  /** memory per pod in MiB (0 when not given: the shape then fits wherever its GPUs and cpu do). */
  memory: number;
  /** How often it comes, relative to the others (> 0). */
  weight: number;
}

export interface Pool {
  name: string;
  type: PoolType;
  strategy: Strategy;
  /** fragmentation's typical pods as the policy gives them; absent = learned from the pool's running pods. */
  workload?: TypicalPod[];
  topology: Topology;
  /** SEMANTICS 5.3's criteria in the order this pool's victim sets are compared (default: SEMANTICS' own). */
  victimOrder: VictimCriterion[];
  /** Where `victimOrder` was written, or undefined when defaulted. */
  victimOrderSrc?: Source;
  /** The QuotaTree that declares the pool. */
  tree: string;
  /** Whose rules the tree's answers follow (`spec.rules`): PAI's (absent: the default) or Kueue's (SEMANTICS 12). */
  rules?: RuleSet;
  /** Where `rules` was written; absent when defaulted. */
  rulesSrc?: Source;
  /** Kueue's ResourceFlavors (`spec.flavors`), under `rules: kueue` only. */
  flavors?: KueueFlavor[];
  /** Fair sharing (`spec.fairSharing`, SEMANTICS 13), under `rules: kueue` only; absent = off. */
  fairSharing?: KueueFairSharing;
  src: Source;
}

export interface Quota {
  name: string;
  parent: string | null;
  children: string[];
  min: Resources;
  /** SEMANTICS 3's ceiling; undefined = none (PAI's behaviour). */
  max?: Ceiling;
  /** Where `max` was written (set with `max`). */
  maxSrc?: Source;
  /** SEMANTICS 5.2's `borrowing.priority` as written; undefined = the default (model/borrowing.ts `borrowingOf`). */
  borrowing?: BorrowingClause;
  queueStrategy: QueueStrategy;
  /** The strategy's parameters, defaults filled in. */
  queue: QueueParameters;
  reclaim: ReclaimMode;
  selfPreemption?: SelfPreemption;
  childPreemption?: ChildPreemption;
  pool: string;
  src: Source;
  /** Where `reclaim` was written, or the quota itself when defaulted. */
  reclaimSrc: Source;
  /** Modules whose jobs may use this quota (SEMANTICS 10); undefined = every module. */
  allowedModules?: Restriction<Module>;
  /** Roles whose members may submit to this quota; undefined = every role. */
  allowedRoles?: Restriction<string>;
  /**
   * How long a running job of this subtree that gives no expected end is assumed to run
   * (ms), and where it is written; the nearest quota up the path that has one applies.
   * Only start estimates read it, and they say the end was assumed (engine/estimate.ts).
   */
  runtimeDefault?: { ms: number; src: Source };
  /**
   * Under `rules: kueue` (SEMANTICS 12): the quota's ClusterQueue or Cohort spec. `min` is
   * then the sum of its nominal quota over flavors (GPUs, cpu, memory), for the views.
   */
  kueue?: KueueQuotaClauses;
}

/** A list that restricts who or what may use a quota, with where it was written. */
export interface Restriction<T> {
  values: T[];
  src: Source;
  /** Each value as written, with its own place (for findings about one of them). */
  items: Array<{ value: T; src: Source }>;
}

/** PAI's built-in workspace roles: Administrator, Algorithm Developer, Algorithm O&M Engineer. */
export const BUILTIN_ROLES = ['admin', 'developer', 'operator'] as const;

/** A member of a workspace, or a non-member granted access to it (a guest). */
export interface Member {
  user: string;
  role: string;
  /** True for PAI's "non-workspace members": granted use of the workspace's quotas. */
  guest?: boolean;
  src?: Source;
}

/** Who a resource cap counts: every user with a role, or one user. */
export type CapSubject = { role: string } | { user: string };

/**
 * A workspace resource policy (SEMANTICS 10): jobs of `subject` at priorities in
 * `priority` on `quota` may hold at most `max` together (in-quota and borrowing).
 */
export interface ResourceCap {
  workspace: string;
  /** Index in the workspace's `resourcePolicies`, for the rule name. */
  index: number;
  subject: CapSubject;
  quota: string;
  priority: PriorityRange;
  max: Resources;
  src: Source;
}

/** A named per-pod resource shape a module's jobs must match (PAI's resource specifications). */
export interface ResourceSpecTemplate {
  name: string;
  resources: Resources;
}

/** PAI's per-module admission settings of a workspace. */
export interface ModuleAdmission {
  workspace: string;
  module: Module;
  /** ms; a job giving a longer maxRuntime is rejected. */
  maxRuntime?: number;
  maxRuntimeSrc?: Source;
  /** Allowed priority range per role. */
  priorities: Array<{ role: string; priority: PriorityRange; src: Source }>;
  /** When non-empty, every pod must match one template. */
  resourceSpecs: ResourceSpecTemplate[];
  resourceSpecsSrc?: Source;
  src: Source;
}

export interface Workspace {
  name: string;
  quotas: string[];
  modules: Module[];
  /** Members and guests; guests have `guest: true`. */
  members: Member[];
  /** Custom role names the workspace declares (besides BUILTIN_ROLES). */
  roles: string[];
  resourcePolicies: ResourceCap[];
  admission: ModuleAdmission[];
  src: Source;
  /** Where `members` was written (or the workspace). */
  membersSrc: Source;
  /** Where `quotas` was written. */
  quotasSrc: Source;
  /** Where `modules` was written (or the workspace, when all modules are allowed by default). */
  modulesSrc: Source;
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
  /** The submitting user; absent in snapshots that do not carry it (membership is then not checked). */
  submittedBy?: string;
  /** ms; PAI's maximum runtime the job asks for. */
  maxRuntime?: number;
  /** GPU models its pods may run on (nodes' gpuModel); undefined = any. */
  gpuModels?: string[];
  src: Source;
}

export interface PodPlacementSpec {
  node: string;
  gpus: number[];
  /**
   * True when the snapshot gave only the node and a GPU count (Kubernetes does not say
   * which indices a pod holds): `gpus` is empty until the engine assigns indices.
   */
  indicesAssigned?: boolean;
}

/** A running job of a Cluster snapshot. */
export interface RunningJob extends JobSpec {
  standing: Standing;
  /** Epoch ms. */
  startedAt: number;
  /**
   * Epoch ms the job is expected to end (`expectedEnd`, or `startedAt + duration`); absent
   * when the snapshot does not say. Only time-aware answers read it (a start estimate, a
   * simulation from the snapshot); a job without one is taken to run on.
   */
  expectedEnd?: number;
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
  /** GPU model of every GPU on the node (one model per node). */
  gpuModel?: string;
  /** Cordoned: its running pods count, new pods never land on it. */
  unschedulable?: boolean;
  /** The node's Kubernetes labels (a Kueue flavor's nodeLabels select nodes by them); absent = none given. */
  labels?: Record<string, string>;
  src: Source;
}

/**
 * A job waiting in its quota's queue at the snapshot time (SEMANTICS 8, "Queues at one
 * instant"): it holds nothing and counts in no usage. A what-if serves the queues before
 * its own job; a simulation from the snapshot starts with them waiting.
 */
export interface QueuedJob extends JobSpec {
  /** Epoch ms it was submitted, at or before the snapshot's `at`: its place in the queue. */
  submittedAt: number;
  /** ms of running time it needs once started (simulations end it then); absent: runs on. */
  duration?: number;
}

export interface Cluster {
  name: string;
  /** Epoch ms: the snapshot's time; lost work is counted up to it. */
  at: number;
  nodes: ClusterNode[];
  jobs: RunningJob[];
  /** The jobs waiting at the snapshot time, in file order; absent or empty: no queue. */
  queue?: QueuedJob[];
  src: Source;
}

export interface WhatIf {
  name: string;
  submit: JobSpec;
  src: Source;
}

/** A what-if of a quota scaling operation: new `min.gpu` per quota (SEMANTICS 9). */
export interface ScaleQuota {
  name: string;
  set: Array<{ quota: string; gpu: number; src: Source }>;
  src: Source;
}

/** A step series: `value` holds from `at` (ms from the start of a simulation) until the next point. */
export interface SeriesPoint {
  at: number;
  value: number;
}

/** A spot instance type of a SpotMarket (SEMANTICS 6); prices are per instance-hour. */
export interface SpotInstanceType {
  name: string;
  pool: PoolType;
  gpus: number;
  payAsYouGo: number;
  /** Inline series, sorted by time; empty when the CSV or the synthetic model gives it. */
  prices: SeriesPoint[];
  inventory: SeriesPoint[];
  src: Source;
}

/** The seeded synthetic market model's parameters (docs/simulate.md). */
export interface SyntheticMarket {
  seed?: number;
  /** ms */
  every: number;
  meanDiscount: number;
  volatility: number;
  inventory: number;
}

/** A market of preemptible (spot) instances (SEMANTICS 6). */
export interface SpotMarket {
  name: string;
  /** ms; default one hour. */
  protectionPeriod: number;
  instanceTypes: SpotInstanceType[];
  /** Paths as written, relative to the document's file. */
  pricesFile?: string;
  inventoryFile?: string;
  /** Where each path is written, for a finding about its file (simulate/market.ts). */
  fileSrc?: { pricesFile?: Source; inventoryFile?: Source };
  synthetic?: SyntheticMarket;
  src: Source;
}

/** Where the snapshot came from when files named beside a policy folder hold it (policy/build/beside-cluster.ts). */
export interface SnapshotSource {
  /** The files named beside the folder whose Cluster documents make the snapshot. */
  files: string[];
  /** The folder's files whose Cluster documents they replaced (empty: the folder had none). */
  replaced: string[];
}

/** Everything the files say, merged. */
export interface Policy {
  pools: Pool[];
  /** In declaration order, parents before children. */
  quotas: Quota[];
  workspaces: Workspace[];
  cluster?: Cluster;
  whatIfs: WhatIf[];
  scales: ScaleQuota[];
  promises: PolicyPromise[];
  /** SpotMarket documents (quotient simulate); absent when a Policy is made by hand. */
  spotMarkets?: SpotMarket[];
  files: string[];
  /** Set when the snapshot came from files named beside a policy folder. */
  snapshotFrom?: SnapshotSource;
}
