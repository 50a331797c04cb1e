/**
 * The shape of every kind of policy document, as zod schemas. They are the single
 * source for validation (unknown fields are errors: a typo must never be silently
 * ignored) and for the JSON Schema that `quotient schema` prints for editors.
 * Meaning that a schema cannot express (ranges, names that must exist, sums) is checked
 * in build-quotas.ts, build-cluster.ts, build-promises.ts and check-snapshot.ts with their own codes.
 */
import * as z from './zod.js';
import { IDLE_MODES, MODULES, PAI_QUEUE_STRATEGIES, POOL_TYPES, QUEUE_STRATEGIES, RECLAIM_MODES, STANDINGS, STRATEGIES, TOPOLOGIES } from '../../model/policy.js';
import { VICTIM_CRITERIA } from '../../model/victim-order.js';
import {
  INT32_MAX,
  INT32_MIN,
  KUEUE_BORROW_WITHIN_COHORT,
  KUEUE_QUEUEING_STRATEGIES,
  KUEUE_FAIR_PREEMPTION_STRATEGIES,
  KUEUE_RECLAIM_WITHIN_COHORT,
  KUEUE_TAINT_EFFECTS,
  KUEUE_WHEN_CAN_BORROW,
  KUEUE_WHEN_CAN_PREEMPT,
  KUEUE_WITHIN_CLUSTER_QUEUE,
  RULE_SETS,
} from '../../model/kueue-policy.js';

export const API_VERSION = 'quotient.dev/v1';
export const KINDS = ['QuotaTree', 'Workspace', 'Cluster', 'WhatIf', 'Promise', 'ScaleQuota', 'SpotMarket'] as const;
export type Kind = (typeof KINDS)[number];

const name = z.string().min(1).describe('A name, unique among objects of its kind.');
/** A priority value `4` or range `6-9` (parsed and checked by parse-fields.ts). */
const priorityValue = z.union([z.number(), z.string()]).describe('A priority 1..9 (`4`) or an inclusive range (`6-9`).');
const moduleList = z.array(z.enum(MODULES)).min(1).describe('Modules: DLC (training), DSW (notebooks), EAS (inference).');
const quantity = z.union([z.number(), z.string()]);

const quotaResources = z.strictObject({
  gpu: z.number().int().min(0).describe('Guaranteed GPUs.'),
  cpu: quantity.optional().describe('Guaranteed cpu (`96`, `500m`); unbounded when absent.'),
  memory: quantity.optional().describe('Guaranteed memory (`768Gi`); unbounded when absent.'),
});

/** A quota's ceiling (SEMANTICS 3): each resource it names bounds the subtree's in-quota and borrowing usage. */
const quotaCeiling = z.strictObject({
  gpu: z.number().int().min(0).optional().describe("Most GPUs the quota's subtree may use, in-quota and borrowing jobs together; at least min.gpu. Unbounded when absent."),
  cpu: quantity.optional().describe('Most cpu the subtree may use (`128`, `500m`); at least min.cpu. Unbounded when absent.'),
  memory: quantity.optional().describe('Most memory the subtree may use (`1Ti`); at least min.memory. Unbounded when absent.'),
});

/** Who borrows (SEMANTICS 5.2). */
const borrowingClause = z.strictObject({
  priority: priorityValue.describe(
    "Priorities of this quota's jobs that may run borrowing: over its own min, on what same-level quotas leave unused, without victims. Default: selfPreemption.highPriority (nobody without selfPreemption).",
  ),
});

const podResources = z.strictObject({
  gpu: z
    .number()
    .positive()
    .max(32)
    .describe(
      "GPUs per pod: a whole number (a pod lives on one node; nodes have at most 32 GPUs), or a share of one GPU below 1 with at most three decimals (`0.46`: 460 milli-GPUs, openb's gpu_milli) that sharing pods split.",
    ),
  cpu: quantity.optional().describe('cpu per pod.'),
  memory: quantity.optional().describe('memory per pod.'),
});

const selfPreemption = z.strictObject({
  highPriority: priorityValue.describe("Priorities of this quota's jobs that may preempt."),
  lowPriority: priorityValue.describe('Priorities that may be preempted; must be below highPriority.'),
  modules: moduleList,
});

const childPreemption = z.strictObject({
  preemptiblePriority: priorityValue.describe("Priorities of descendant quotas' jobs that may be preempted."),
  modules: moduleList,
});

export interface QuotaInput {
  name: string;
  /** Required under `rules: pai` (build-quotas.ts says so); a PAI-only clause under `rules: kueue`. */
  min?: z.infer<typeof quotaResources>;
  max?: z.infer<typeof quotaCeiling>;
  borrowing?: z.infer<typeof borrowingClause>;
  queueStrategy?: string;
  queue?: z.infer<typeof queueParameters>;
  reclaim?: (typeof RECLAIM_MODES)[number];
  selfPreemption?: z.infer<typeof selfPreemption>;
  childPreemption?: z.infer<typeof childPreemption>;
  allowedModules?: Array<(typeof MODULES)[number]>;
  allowedRoles?: string[];
  runtimeDefault?: string;
  resourceGroups?: Array<z.infer<typeof kueueResourceGroup>>;
  preemption?: z.infer<typeof kueuePreemption>;
  flavorFungibility?: z.infer<typeof kueueFlavorFungibility>;
  queueingStrategy?: (typeof KUEUE_QUEUEING_STRATEGIES)[number];
  fairSharing?: z.infer<typeof kueueFairWeight>;
  children?: QuotaInput[];
}

// Kueue's clauses (`rules: kueue`, SEMANTICS 12), named as Kueue's ClusterQueue spec names them.
const kueueQuantity = z.union([z.number().min(0), z.string()]).describe('A Kubernetes quantity: `8`, `500m`, `768Gi`.');

const kueueResource = z.strictObject({
  name: z.string().min(1).describe('The resource: `nvidia.com/gpu`, `cpu`, `memory`, or any extended resource.'),
  nominalQuota: kueueQuantity.describe("Kueue's nominalQuota: what this quota holds of the resource on this flavor."),
  borrowingLimit: kueueQuantity.optional().describe('How much above nominalQuota it may borrow from its cohort. Default: no limit. Needs a cohort.'),
  lendingLimit: kueueQuantity.optional().describe('How much of nominalQuota it may lend to its cohort (at most nominalQuota). Default: all of it.'),
});

const kueueResourceGroup = z.strictObject({
  coveredResources: z.array(z.string().min(1)).min(1).describe('The resources of this group; every flavor lists exactly these, in this order.'),
  flavors: z
    .array(z.strictObject({ name, resources: z.array(kueueResource).min(1) }))
    .min(1)
    .describe("The group's flavors, in the order a pod set tries them (names of spec.flavors)."),
});

const kueuePreemption = z.strictObject({
  withinClusterQueue: z.enum(KUEUE_WITHIN_CLUSTER_QUEUE).optional().describe('Which workloads of its own ClusterQueue a pending one may preempt. Default Never.'),
  reclaimWithinCohort: z
    .enum(KUEUE_RECLAIM_WITHIN_COHORT)
    .optional()
    .describe("Which borrowing workloads of the cohort's other ClusterQueues it may preempt to get back its nominal quota. Default Never."),
  borrowWithinCohort: z
    .strictObject({
      policy: z.enum(KUEUE_BORROW_WITHIN_COHORT).optional().describe('Never (default) or LowerPriority: may it preempt while it borrows.'),
      maxPriorityThreshold: z.number().int().min(INT32_MIN).max(INT32_MAX).optional().describe('Only workloads at or below this priority may be preempted while borrowing.'),
    })
    .optional(),
});

const kueueFlavorFungibility = z.strictObject({
  whenCanBorrow: z.enum(KUEUE_WHEN_CAN_BORROW).optional().describe('MayStopSearch (default; Borrow is its old name) or TryNextFlavor.'),
  whenCanPreempt: z.enum(KUEUE_WHEN_CAN_PREEMPT).optional().describe('TryNextFlavor (default) or MayStopSearch (Preempt is its old name).'),
});

// Fair sharing (SEMANTICS 13): a weight per quota, and the tree's switch with its strategies.
const kueueFairWeight = z.strictObject({
  weight: z
    .union([z.number().min(0), z.string()])
    .optional()
    .describe("Kueue's fairSharing.weight: the share of borrowed capacity is divided by it. Default 1; 0 = always last while borrowing; a quantity such as 0.5 or 500m."),
});

const kueueFairSharing = z.strictObject({
  preemptionStrategies: z.array(z.enum(KUEUE_FAIR_PREEMPTION_STRATEGIES)).min(1).optional().describe('[LessThanOrEqualToFinalShare], [LessThanInitialShare], or both in that order (the default).'),
});

const kueueFlavor = z.strictObject({
  name,
  nodeLabels: z.record(z.string(), z.string()).optional().describe("The labels a node must carry for this flavor's pods to run on it. Default: none (every node)."),
  nodeTaints: z
    .array(z.strictObject({ key: z.string().min(1), value: z.string().optional(), effect: z.enum(KUEUE_TAINT_EFFECTS) }))
    .max(8)
    .optional()
    .describe("The flavor's nodes' taints, as Kueue's ResourceFlavor nodeTaints."),
});

const queueStrategyNames = [...QUEUE_STRATEGIES, ...Object.keys(PAI_QUEUE_STRATEGIES)] as [string, ...string[]];

const queueParameters = z.strictObject({
  balanceWindow: z.number().int().min(1).optional().describe('balance: the most jobs the window widens to (k). Default 8.'),
  balanceWidenEvery: z.string().optional().describe("balance: the head's wait that widens the window by one job. Default 10m."),
  agingInterval: z.string().optional().describe('intelligent: a waiting job below intelligentFifoFrom gains one priority per interval. Default 1h.'),
  agingCap: z.number().int().min(1).max(9).optional().describe('intelligent: the highest priority aging reaches. Default 6.'),
  intelligentFifoFrom: z.number().int().min(1).max(9).optional().describe('intelligent: jobs at or above this priority queue FIFO. Default 7.'),
});

/**
 * A quota's schema. Under PAI's rules (the default) `min` is required, as it always was;
 * under `rules: kueue` it is a PAI clause build-kueue.ts refuses at its place.
 */
function quotaSchema(minRequired: boolean): z.ZodType<QuotaInput> {
  const self: z.ZodType<QuotaInput> = z.strictObject({
    name,
    min: minRequired ? quotaResources : quotaResources.optional().describe('Guaranteed resources (rules: pai only).'),
    max: quotaCeiling.optional().describe("A ceiling (Kueue's nominal quota + borrowingLimit, Koordinator's max): in-quota and borrowing jobs of the subtree never use more. Default: none."),
    borrowing: borrowingClause.optional().describe("Who may borrow a same-level quota's unused share without victims (SEMANTICS 5.2)."),
    queueStrategy: z
      .enum(queueStrategyNames)
      .optional()
      .describe("fifo, round-robin, balance or intelligent, or PAI's names PaiStrategyStrictFIFO, PaiStrategyRoundRobin, PaiStrategyBalance, PaiStrategyIntelligent. Default fifo."),
    queue: queueParameters.optional().describe('Parameters of the queue strategy (quotient simulate).'),
    reclaim: z.enum(RECLAIM_MODES).optional().describe('How this quota takes back what siblings borrowed. Default any.'),
    selfPreemption: selfPreemption.optional(),
    childPreemption: childPreemption.optional(),
    allowedModules: moduleList.optional().describe('Modules whose jobs may use this quota. Default: every module the workspace allows.'),
    allowedRoles: z.array(name).min(1).optional().describe('Roles (admin, developer, operator, or a custom role) whose users may submit to this quota. Default: every role.'),
    resourceGroups: z.array(kueueResourceGroup).min(1).optional().describe("rules: kueue: Kueue's resourceGroups, quota per flavor and resource."),
    preemption: kueuePreemption.optional().describe("rules: kueue, ClusterQueues: Kueue's preemption policy."),
    flavorFungibility: kueueFlavorFungibility.optional().describe('rules: kueue, ClusterQueues: when a pod set tries the next flavor.'),
    queueingStrategy: z.enum(KUEUE_QUEUEING_STRATEGIES).optional().describe('rules: kueue, ClusterQueues: StrictFIFO or BestEffortFIFO (default).'),
    runtimeDefault: z
      .string()
      .optional()
      .describe(
        "How long a running job of this quota's subtree that gives no expected end is assumed to run (8h, 3d), so start estimates exist for snapshots without ends (an import from Kubernetes); estimates say so. Default: none, such a job runs on.",
      ),
    fairSharing: kueueFairWeight.optional().describe("rules: kueue: this ClusterQueue's or Cohort's fair-sharing weight."),
    get children() {
      return z.array(self).optional();
    },
  });
  return self;
}
const paiQuota = quotaSchema(true);
const anyQuota = quotaSchema(false);

const metadata = z.strictObject({
  name,
  description: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
});

const quotaTreeSpecWith = (quota: z.ZodType<QuotaInput>) =>
  z.strictObject({
    rules: z.enum(RULE_SETS).optional().describe("Whose rules answers follow: pai (default; SEMANTICS 2-5) or kueue (Kueue's, SEMANTICS 12)."),
    flavors: z.array(kueueFlavor).min(1).optional().describe("rules: kueue: Kueue's ResourceFlavors."),
    fairSharing: kueueFairSharing.optional().describe("rules: kueue: fair sharing on for every cohort of the tree (Kueue's Configuration fairSharing)."),
    pool: z.strictObject({
      name,
      type: z.enum(POOL_TYPES).optional().describe('Default general.'),
    }),
    placement: z
      .strictObject({
        strategy: z.enum(STRATEGIES).optional().describe('Default binpack; fragmentation places where the typical pods lose least room (FGD).'),
        workload: z
          .array(
            z.strictObject({
              gpu: z.number().min(0).max(32).describe('GPUs per pod: whole, a share below 1, or 0 for cpu-only.'),
              cpu: quantity.optional(),
              memory: quantity.optional(),
              weight: z.number().positive().describe('How often this shape comes, relative to the others.'),
            }),
          )
          .min(1)
          .max(64)
          .optional()
          .describe("fragmentation's typical pods; default: learned from the pool's running pods."),
        topology: z.enum(TOPOLOGIES).optional().describe('Default prefer; strict requires aligned GPU blocks.'),
      })
      .optional(),
    victimOrder: z
      .array(z.enum(VICTIM_CRITERIA))
      .optional()
      .describe('SEMANTICS 5.3: the order victim sets are compared in, all five criteria once each. Default priority, lost-work, gpus, count, recency.'),
    quotas: z.array(quota).min(1),
  });
/** A QuotaTree as editors see it: either rules (`quotient schema`). */
export const quotaTreeSpec = quotaTreeSpecWith(anyQuota);
/** A QuotaTree under PAI's rules, as validation checks it (`min` required). */
const paiQuotaTreeSpec = quotaTreeSpecWith(paiQuota);

const capResources = z.strictObject({
  gpu: z.number().int().min(0).describe("Most GPUs the subject's jobs may hold together."),
  cpu: quantity.optional(),
  memory: quantity.optional(),
});

const resourcePolicy = z.strictObject({
  role: name.optional().describe('The cap counts every user of this role (give role or user).'),
  user: name.optional().describe("The cap counts this user's jobs (give role or user)."),
  quota: name.optional().describe("The quota it applies on. Default: each of the workspace's quotas, separately."),
  priority: priorityValue.optional().describe('The priorities it covers. Default 1-9.'),
  max: capResources,
});

const admission = z.strictObject({
  module: z.enum(MODULES),
  maxRuntime: z.string().optional().describe("PAI's maximum runtime (`72h`): a job asking for longer is rejected."),
  priorities: z
    .array(z.strictObject({ role: name, priority: priorityValue }))
    .min(1)
    .optional()
    .describe('Allowed priority range per role.'),
  resourceSpecs: z
    .array(z.strictObject({ name, gpu: z.number().int().positive(), cpu: quantity.optional(), memory: quantity.optional() }))
    .min(1)
    .optional()
    .describe('Per-pod resource templates; every pod must match one (same gpu, cpu and memory within the template).'),
});

export const workspaceSpec = z.strictObject({
  quotas: z.array(name).min(1),
  modules: moduleList.optional().describe('Default: all modules.'),
  roles: z.array(name).min(1).optional().describe('Custom role names, besides admin, developer and operator.'),
  members: z.array(z.strictObject({ user: name, role: name })).optional(),
  guests: z
    .array(z.strictObject({ user: name, role: name }))
    .optional()
    .describe("Non-workspace members granted use of this workspace's quotas, with a role."),
  resourcePolicies: z.array(resourcePolicy).optional(),
  admission: z.array(admission).optional().describe('Per-module admission settings.'),
});

/** PAI's priorities, 1..9: every job of a policy without a Kueue-rules tree. */
const paiPriority = z.number().int().min(1).max(9);
/** Any int32 (Kueue's); build-job.ts keeps 1..9 for a job on a PAI quota. */
const anyPriority = z.number().int().min(INT32_MIN).max(INT32_MAX).describe('1..9 under rules: pai; any int32 under rules: kueue.');

const jobFieldsWith = (priority: typeof paiPriority) => ({
  name,
  workspace: name,
  quota: name,
  module: z.enum(MODULES),
  priority,
  pods: z.number().int().positive().optional().describe('Default 1.'),
  resources: podResources,
  idleResources: z.enum(IDLE_MODES).optional().describe('Default none.'),
  checkpoint: z.strictObject({ every: z.string(), last: z.string().optional() }).optional(),
  faultTolerance: z.strictObject({ autoRestart: z.boolean(), maxRestarts: z.number().int().min(0).optional() }).optional(),
  submittedBy: name.optional().describe('The submitting user; must be a member or guest of the workspace.'),
  maxRuntime: z.string().optional().describe('The longest the job may run (`24h`).'),
  gpuModels: z.array(z.string().min(1)).min(1).optional().describe("GPU models the pods may run on (PAI's GPUType, openb's gpu_spec), matched against nodes' gpuModel. Default: any."),
});

const jobFields = jobFieldsWith(paiPriority);
const anyJobFields = jobFieldsWith(anyPriority);

/** A submission under PAI's rules (priority 1..9). */
export const jobSpec = z.strictObject(jobFields);
/** A submission in a policy with a Kueue-rules tree (any int32 priority). */
export const anyJobSpec = z.strictObject(anyJobFields);

const runningJobWith = (fields: typeof jobFields) =>
  z.strictObject({
    ...fields,
    standing: z.enum(STANDINGS).optional(),
    startedAt: z.string().optional().describe('Default: the snapshot time.'),
    expectedEnd: z.string().optional().describe('When the job is expected to end (a time at or after the snapshot time): start estimates and simulations end it then. Give this or duration.'),
    duration: z.string().optional().describe('The running time the job needs, from startedAt (`6h`): it is expected to end at startedAt + duration. Give this or expectedEnd.'),
    placement: z
      .array(
        z.strictObject({
          node: name,
          gpus: z.array(z.number().int().min(0)).min(1).optional().describe('The GPU indices the pod holds on the node (give gpus or gpuCount).'),
          gpuCount: z
            .number()
            .int()
            .positive()
            .max(32)
            .optional()
            .describe('How many GPUs the pod holds when their indices are not known (Kubernetes does not say): Quotient assigns the indices and says so in answers.'),
        }),
      )
      .optional(),
  });

/**
 * A job waiting in its quota's queue at the snapshot time (SEMANTICS 8): the fields of a
 * submission, when it was submitted, and the running time it needs (for simulations).
 */
const queuedJobWith = (fields: typeof jobFields) =>
  z.strictObject({
    ...fields,
    submittedAt: z.string().describe("When the job was submitted (ISO 8601), at or before the snapshot's `at`: with its priority, its place in its quota's queue."),
    duration: z.string().optional().describe('The running time it needs once started (`6h`): simulations and start estimates end it then. Default: it runs on.'),
  });

const nodeFields = {
  gpus: z.number().int().min(1).max(32),
  cpu: quantity.optional(),
  memory: quantity.optional(),
  pool: name,
  instanceType: z.string().optional(),
  gpuModel: z.string().min(1).optional().describe('The GPU model (e.g. `NVIDIA-A100-SXM4-80GB`, Kubernetes label nvidia.com/gpu.product).'),
  unschedulable: z.boolean().optional().describe('Cordoned: running pods stay and count, new pods never land here. Default false.'),
  labels: z.record(z.string(), z.string()).optional().describe("The node's Kubernetes labels (a Kueue flavor's nodeLabels select nodes by them)."),
};

const clusterSpecWith = (fields: typeof jobFields) =>
  z.strictObject({
    at: z.string().optional().describe('Snapshot time (ISO 8601); default now.'),
    standings: z
      .enum(['stated', 'derive'])
      .optional()
      .describe(
        "How this document's jobs that state no standing get one: stated (default: in-quota, and a quota over its min is refused) or derive (a real cluster's snapshot, as `quotient import kubectl` writes it: highest priority, then longest running, stay in-quota; a job over a guarantee runs borrowing where its quota's selfPreemption.highPriority lets it, otherwise idle; each one a warning).",
      ),
    nodeGroups: z.array(z.strictObject({ prefix: name, count: z.number().int().positive(), start: z.number().int().min(0).optional(), ...nodeFields })).optional(),
    nodes: z.array(z.strictObject({ name, ...nodeFields })).optional(),
    jobs: z.array(runningJobWith(fields)).optional(),
    queue: z
      .array(queuedJobWith(fields))
      .optional()
      .describe("Jobs waiting at the snapshot time (SEMANTICS 8): they hold nothing; a what-if serves them before its own job, in each queue's strategy's order."),
  });

/** A Cluster as editors see it (any int32 priority). */
export const clusterSpec = clusterSpecWith(anyJobFields);
const paiClusterSpec = clusterSpecWith(jobFields);

export const whatIfSpec = z.strictObject({ submit: anyJobSpec });
const paiWhatIfSpec = z.strictObject({ submit: jobSpec });

export const scaleQuotaSpec = z.strictObject({
  set: z.record(z.string(), z.number().int().min(0)).describe('New min.gpu per quota name: `{ Quota1.1: 56, Quota1.2: 72 }`.'),
});

/** A time from the start of a simulation: seconds (`0`, `3600`) or a duration (`36h`). */
const simTime = z.union([z.number().min(0), z.string()]).describe('Seconds from the start of the simulation, or a duration such as 36h.');

const spotInstanceType = z.strictObject({
  name,
  type: z.enum(POOL_TYPES).optional().describe('general (bids with priceLimit) or lingjun (bids with discountLimit). Default general.'),
  gpus: z.number().int().min(1).max(32).describe('GPUs per instance; a spot job takes one instance per pod.'),
  payAsYouGo: z.number().positive().describe('Pay-as-you-go price per instance-hour.'),
  prices: z
    .array(z.strictObject({ at: simTime, price: z.number().min(0) }))
    .min(1)
    .optional()
    .describe('Market price per instance-hour from each time on.'),
  inventory: z
    .array(z.strictObject({ at: simTime, count: z.number().int().min(0) }))
    .min(1)
    .optional()
    .describe('Spot instances available from each time on.'),
});

export const spotMarketSpec = z.strictObject({
  protectionPeriod: z.string().optional().describe('How long a started spot job cannot be released. Default 1h.'),
  pricesFile: z.string().optional().describe('CSV `at,instanceType,price`, relative to this file.'),
  inventoryFile: z.string().optional().describe('CSV `at,instanceType,inventory`, relative to this file.'),
  synthetic: z
    .strictObject({
      seed: z.number().int().optional().describe("Default: the run's --seed."),
      every: z.string().optional().describe('How often the synthetic price and inventory move. Default 1h.'),
      meanDiscount: z.number().min(0.05).max(1).optional().describe('Long-run price as a share of pay-as-you-go. Default 0.35.'),
      volatility: z.number().min(0).max(1).optional().describe('Size of each move as a share of pay-as-you-go. Default 0.08.'),
      inventory: z.number().int().min(0).optional().describe('Mean spot instances per type. Default 64.'),
    })
    .optional()
    .describe('A seeded synthetic market for the instance types without a series (docs/simulate.md: it is synthetic).'),
  instanceTypes: z.array(spotInstanceType).min(1),
});

/** A value, a list of values, or (for numbers) a range `a-b`. */
const choice = z.union([z.number(), z.string(), z.array(z.union([z.number(), z.string()])).min(1)]);

const selector = z.strictObject({
  quota: name.optional().describe('The quota and every quota below it.'),
  workspace: name.optional(),
  module: z.union([z.enum(MODULES), z.array(z.enum(MODULES)).min(1)]).optional(),
  priority: priorityValue.optional(),
  standing: z.union([z.enum(STANDINGS), z.array(z.enum(STANDINGS)).min(1)]).optional(),
});

export const promiseSpec = z.strictObject({
  description: z.string().optional(),
  submit: z
    .strictObject({
      workspace: choice.optional(),
      quota: choice.optional(),
      module: choice.optional(),
      priority: choice.optional(),
      pods: choice.optional(),
      gpu: choice.optional().describe('GPUs per pod.'),
      idleResources: choice.optional(),
    })
    .describe('The submissions to try; unset fields are drawn from what the policy allows.'),
  cluster: z
    .strictObject({
      jobs: choice.optional().describe('How many random running jobs to try adding (default 0-16).'),
      priority: choice.optional().describe('Priorities of the random jobs (default 1-9).'),
      workspaces: z
        .union([name, z.array(name).min(1)])
        .optional()
        .describe('Workspaces the random jobs belong to (default all).'),
      keepSnapshotJobs: z.boolean().optional().describe("Keep the Cluster's own running jobs in every state (default true)."),
    })
    .optional(),
  expect: z.strictObject({
    decision: z.union([z.enum(['admit', 'preempt', 'wait', 'reject']), z.array(z.enum(['admit', 'preempt', 'wait', 'reject'])).min(1)]).optional(),
    standing: z.union([z.enum([...STANDINGS, 'none']), z.array(z.enum([...STANDINGS, 'none'])).min(1)]).optional(),
    neverPreempts: selector.optional(),
    maxLostGpuHours: z.union([z.number().min(0), z.strictObject({ limit: z.number().min(0), of: selector.optional() })]).optional(),
    maxVictims: z.number().int().min(0).optional(),
  }),
});

export const SPEC_SCHEMAS = {
  QuotaTree: quotaTreeSpec,
  Workspace: workspaceSpec,
  Cluster: clusterSpec,
  WhatIf: whatIfSpec,
  Promise: promiseSpec,
  ScaleQuota: scaleQuotaSpec,
  SpotMarket: spotMarketSpec,
} as const;

/** The envelope every document shares (Kubernetes object shape). */
export const envelope = z.strictObject({
  apiVersion: z.literal(API_VERSION),
  kind: z.enum(KINDS),
  metadata,
  spec: z.unknown(),
});

export type QuotaTreeSpec = z.infer<typeof quotaTreeSpec>;
export type WorkspaceSpec = z.infer<typeof workspaceSpec>;
export type ClusterSpec = z.infer<typeof clusterSpec>;
export type WhatIfSpec = z.infer<typeof whatIfSpec>;
export type PromiseSpec = z.infer<typeof promiseSpec>;
export type ScaleQuotaSpec = z.infer<typeof scaleQuotaSpec>;
export type SpotMarketSpec = z.infer<typeof spotMarketSpec>;
export type JobInput = z.infer<typeof jobSpec>;
export type RunningJobInput = z.infer<ReturnType<typeof runningJobWith>>;
export type QueuedJobInput = z.infer<ReturnType<typeof queuedJobWith>>;

/**
 * The schema a document's spec is validated with. A policy with no QuotaTree under
 * `rules: kueue` meets exactly PAI's schemas (priorities 1..9, `min` required, checked where
 * they always were); a QuotaTree with `rules: kueue`, and the jobs of a policy that has one,
 * meet the wider ones, and build-kueue.ts and build-job.ts check the rest at its place.
 */
export function validationSchema(kind: Kind, opts: { treeIsKueue: boolean; policyHasKueue: boolean }): z.ZodType {
  if (kind === 'QuotaTree') return opts.treeIsKueue ? quotaTreeSpec : paiQuotaTreeSpec;
  if (kind === 'Cluster') return opts.policyHasKueue ? clusterSpec : paiClusterSpec;
  if (kind === 'WhatIf') return opts.policyHasKueue ? whatIfSpec : paiWhatIfSpec;
  return SPEC_SCHEMAS[kind];
}

/** The whole-document schema of one kind: the envelope with that kind's spec. */
function kindDocument<K extends Kind>(kind: K) {
  return envelope.extend({ kind: z.literal(kind), spec: SPEC_SCHEMAS[kind] });
}

/** One JSON Schema for a policy document of any kind (for editors and `quotient schema`). */
export function policyJsonSchema(): unknown {
  const [first, ...rest] = KINDS.map((k) => kindDocument(k));
  return z.toJSONSchema(z.discriminatedUnion('kind', [first!, ...rest]), { io: 'input' });
}

/**
 * The JSON Schema of one kind's documents: what schemas/input/<kind>.json ships, for an
 * editor told which kind a file holds (`# yaml-language-server: $schema=...`).
 */
export function kindJsonSchema(kind: Kind): unknown {
  return z.toJSONSchema(kindDocument(kind), { io: 'input' });
}
