/**
 * Promises: what a policy's author says must always hold, checked by `quotient test`
 * over generated cluster states. A promise names the submissions to try (`submit`, each
 * field a value, a list or a range) and what every answer must satisfy (`expect`).
 */
import type { IdleMode, Module, Standing } from './job-kinds.js';
import type { PriorityRange } from './priority.js';
import type { Source } from './source.js';

/** Integer choices: the values a generated field may take (a range is expanded). */
export type IntChoice = number[];

/** The submissions a promise is about. Unset fields are drawn from what the policy allows. */
export interface SubmitTemplate {
  workspace?: string[];
  quota?: string[];
  module?: Module[];
  priority?: IntChoice;
  pods?: IntChoice;
  gpu?: IntChoice;
  idleResources?: IdleMode[];
}

/** Which running jobs a clause talks about. `quota` matches the quota and everything below it. */
export interface JobSelector {
  quota?: string;
  workspace?: string;
  module?: Module[];
  priority?: PriorityRange;
  standing?: Standing[];
}

export type DecisionName = 'admit' | 'preempt' | 'wait' | 'reject';

export interface PromiseExpect {
  decision?: DecisionName[];
  /** Allowed standings of the submitted job; `none` = it does not run. */
  standing?: Array<Standing | 'none'>;
  /** No victim may match this selector. */
  neverPreempts?: JobSelector;
  /** The GPU-hours lost by the victims matching `of` (all victims when absent) stay within `limit`. */
  maxLostGpuHours?: { limit: number; of?: JobSelector };
  maxVictims?: number;
}

/** What the generated cluster states hold. */
export interface StateTemplate {
  /** How many random running jobs to try adding (some do not fit and are skipped). */
  jobs: IntChoice;
  /** Priorities of the random jobs. */
  priority: IntChoice;
  /** Workspaces the random jobs belong to (default: all). */
  workspaces?: string[];
  /** Keep the Cluster document's own running jobs in every state (default true). */
  keepSnapshotJobs: boolean;
}

export interface PolicyPromise {
  name: string;
  description?: string;
  submit: SubmitTemplate;
  /** How the generated states are filled. */
  cluster: StateTemplate;
  expect: PromiseExpect;
  src: Source;
}
