/**
 * The documents of `quotient serve`'s API (docs/serve.md, "API (v1)") as the web app reads
 * them. The app is a client of the HTTP API like any other, so these are written from the
 * documented answers, not imported from the engine (browser code takes nothing from src/
 * but what it bundles). Fields the app does not show are left out; every field it shows is
 * read defensively, since a newer server may add some.
 */

/** The standing of a running job (SEMANTICS 3). */
export type Standing = 'in-quota' | 'borrowing' | 'idle';

/** `snapshot` of every view. */
export interface SnapshotInfo {
  name: string;
  at: string;
  source?: 'files' | 'command';
  checkedAt?: string;
  command?: string;
}

/** A finding of a policy load, or of a request's job (file "request"). */
export interface Finding {
  file: string;
  line: number;
  column: number;
  code: string;
  severity: 'error' | 'warning' | 'info';
  path?: string;
  message: string;
  hint?: string;
  stage?: string;
}

/** `GET /v1/status`. */
export interface ServeStatus {
  kind: 'ServeStatus';
  ready: boolean;
  version: string | null;
  policy: string | null;
  loadedAt: string | null;
  snapshot: SnapshotInfo | null;
  findings: Finding[];
  lastLoad: { version: string | null; at: string; ok: boolean; findings: Finding[] } | null;
  viewer: { user?: string; admin: boolean; workspaces: string[] };
}

/** The header every view carries. */
export interface ViewHeader {
  version: string;
  policy: string;
  snapshot: SnapshotInfo;
}

/** One quota of `GET /v1/quotas`. */
export interface QuotaEntry {
  name: string;
  parent: string | null;
  children: string[];
  depth: number;
  pool: string;
  workspaces: string[];
  min: { gpu: number; cpu?: number; memory?: number };
  /** The ceiling, per resource it names; null when the quota has none. */
  max: { gpu?: number; cpu?: number; memory?: number } | null;
  used: number;
  inQuota: number;
  borrowing: number;
  lent: number;
  idle: number;
  free: number;
  jobs: number;
  reclaim: string;
  selfPreemption?: { highPriority: string; lowPriority: string; modules: string[]; source: string };
  childPreemption?: { preemptiblePriority: string; modules: string[]; source: string };
  /** SEMANTICS 13: Kueue's weighted share and the weight; null in a Kueue tree without fair sharing; absent under PAI's rules. */
  fairShare?: { weightedShare: number | 'infinite'; weight: number } | null;
  source: string;
}

/** `GET /v1/quotas`. */
export interface QuotaView extends ViewHeader {
  kind: 'QuotaView';
  pools: Array<{ name: string; type: string; nodes: number; gpus: number; cordonedNodes: number }>;
  quotas: QuotaEntry[];
}

/** A job on a node: named when the caller may see it, `(hidden: WORKSPACE)` otherwise. */
export interface NodeJob {
  job: string;
  hidden?: true;
  workspace: string;
  quota: string;
  standing: Standing;
  priorityBand: string;
  priority?: number;
  module?: string;
  pods: number;
  gpus: number;
  indices: number[];
}

/** One node of `GET /v1/nodes`. */
export interface NodeEntry {
  name: string;
  pool: string;
  gpuModel?: string;
  instanceType?: string;
  gpus: number;
  used: number;
  free: number;
  shared: number;
  cordoned: boolean;
  standing: Record<Standing, number>;
  jobs: NodeJob[];
}

/** `GET /v1/nodes`. */
export interface NodeView extends ViewHeader {
  kind: 'NodeView';
  nodes: NodeEntry[];
}

/** A running job of `GET /v1/jobs`. */
export interface JobEntry {
  job: string;
  hidden?: true;
  workspace: string;
  quota: string;
  priorityBand: string;
  standing: Standing;
  pods: number;
  gpusPerPod: number;
  gpus: number;
  nodes: string[];
  module?: string;
  priority?: number;
  startedAt?: string;
  expectedEnd?: string;
  submittedBy?: string;
  checkpoint?: { everyMinutes: number; last?: string };
  source?: string;
}

/** A queued job of `GET /v1/jobs`: its place in its quota's queue. */
export interface QueuedEntry {
  job: string;
  hidden?: true;
  workspace: string;
  quota: string;
  priorityBand: string;
  pods: number;
  gpusPerPod: number;
  gpus: number;
  submittedAt: string;
  position: number;
  strategy: string;
  module?: string;
  priority?: number;
  submittedBy?: string;
  source?: string;
}

/** `GET /v1/jobs`. */
export interface JobView extends ViewHeader {
  kind: 'JobView';
  running: JobEntry[];
  queued: QueuedEntry[];
}

/** One rule under which a job could be preempted, with who could do it. */
export interface PreemptingRule {
  rule: string;
  kind: string;
  source: string;
  summary: string;
  reason: string;
  preemptors: Array<{ quotas: string[]; anyQuotaOf?: string; priorities: string; standing: string }>;
}

/** `GET /v1/jobs/NAME/explain`. */
export interface JobExplanation extends ViewHeader {
  kind: 'JobExplanation';
  job: JobEntry;
  standing: { standing: Standing; code: string; reason: string };
  path: Array<{ quota: string; min: number; max: number | null; used: number }>;
  preemptibleBy: PreemptingRule[];
}

/** A WhatIf `submit` (docs/policy-format.md section 5), as the form sends it. */
export interface JobSubmit {
  name?: string;
  workspace: string;
  quota: string;
  module: string;
  priority: number;
  pods: number;
  resources: { gpu: number };
  idleResources: 'none' | 'acceptable' | 'only';
}

/** A victim of an answer: in full, or as anonymous usage. */
export interface Victim {
  job: string;
  hidden?: true;
  workspace?: string;
  quota: string;
  priority?: number;
  priorityBand?: string;
  module?: string;
  standing: Standing;
  gpus: number;
  lostGpuHours?: number;
  rule: string;
  source: string;
  code: string;
  reason: string;
}

/** A reason or a note of an answer. */
export interface Reason {
  code: string;
  message: string;
}

/** `estimate` of a wait answer (docs/cli.md, "Start estimates"). */
export interface Estimate {
  start: string | null;
  inHours: number | null;
  queuePosition: number;
  queueStrategy: string;
  standing: Standing | null;
  victims: string[];
  withoutExpectedEnd: string[];
  assumptions: string[];
  reason: string | null;
}

/** One answer of a WhatIfReport. */
export interface WhatIfAnswer {
  policy: string;
  query: string;
  job: string;
  quota: string;
  decision: 'admit' | 'preempt' | 'wait' | 'reject';
  standing: Standing | null;
  placement: Array<{ pod: number; node: string; gpus: number[] }>;
  victims: Victim[];
  reasons: Reason[];
  notes: Reason[];
  lostGpuHours: number;
  estimate?: Estimate;
  as?: string;
}

/** `POST /v1/whatif`: 200 with answers, or 400 with the findings of an invalid job. */
export interface WhatIfReport {
  kind: 'WhatIfReport';
  findings: Finding[];
  answers: WhatIfAnswer[];
}

/** The error document of every route. */
export interface ErrorDocument {
  kind: 'Error';
  status: number;
  code: string;
  message: string;
  hint?: string;
  path?: string;
  requestId?: string;
}
