/**
 * A loaded policy ready to answer questions: the model, its compiled rules, the
 * snapshot with the kernel loaded once, and the eligibility tables (made lazily).
 *
 * This module holds the session without the policy loader: `SessionCore.load` asks the
 * compiled-policy cache first and imports the loader only on a miss, so a warm `check`
 * loads neither the YAML checks, zod nor the builders (issue 22). engine/session.ts adds
 * the synchronous `Session.open`, which imports the loader with it: programs, tests and
 * the other commands open through it.
 */
import { QuotientError, sortFindings, type Finding } from '../errors.js';
import { createKernel } from '../kernel/create-kernel.js';
import type { Kernel } from '../kernel/types.js';
import type { JobSpec, Policy, ScaleQuota } from '../model/policy.js';
import { QuotaTree } from '../model/quota-tree.js';
import { nameIndex, type NameIndex } from '../policy/build/build-job.js';
import type { LoadOptions, LoadResult } from '../policy/load-policy.js';
import { runStages, type Stage, type StageTiming } from '../policy/stages.js';
import type { InputFile } from '../policy/parse/source-doc.js';
import type { AdmissionRule } from '../rules/compile-admission.js';
import { compileRules, type CompiledRule } from '../rules/compile-rules.js';
import { EligibilityTables } from '../rules/eligibility-table.js';
import { admissionEvaluator } from './admission.js';
import { answerMemoDefault, servedFromMemo, type AnswerMemoStats } from './answer-memo.js';
import { loadThroughCacheLazily, type PolicyCache } from './policy-cache.js';
import type { StartEstimator } from './estimate.js';
import type * as Pipeline from './pipeline.js';
import type { AnswerOptions, FullAnswer, FullViewAnswer } from './pipeline.js';
import type { Reason } from './reason-codes.js';
import type * as Request from './request.js';
import type { AnswerRequest, RequestContext, RequestOrigin } from './request.js';
import { answerScale, type ScaleAnswer } from './scale.js';
import { Snapshot } from './snapshot.js';
import { outsiderView, viewerCache, type Viewer } from './visibility.js';

/**
 * The answer pipeline and the request reader, loaded on a session's first question
 * (issue 22, start-up): opening a policy does not need them, and `check`, which opens
 * and asks nothing, does not load them. test/cli/lazy-commands.test.ts holds `check` to it.
 */
interface Answering {
  pipeline: typeof Pipeline;
  request: typeof Request;
}
let answering: Answering | undefined;

/** The answering modules: loaded once, then at hand without waiting. */
async function loadAnswering(): Promise<Answering> {
  const [pipeline, request] = await Promise.all([import('./pipeline.js'), import('./request.js')]);
  return (answering ??= { pipeline, request });
}

/** What `Session.ask` gives: the whole answer, or the findings that stop the request (and no answer). */
export type AskResult = { answer: FullAnswer; findings: Finding[] } | { answer?: undefined; findings: Finding[] };

export interface SessionOptions extends LoadOptions {
  /** Kernel implementation; default the WebAssembly kernel. */
  backend?: 'wasm' | 'reference';
  /** A kernel to use instead of making one (tests, workers). */
  kernel?: Kernel;
  /**
   * Reuse the answer of an equal earlier request (answer-memo.ts: equal in everything
   * but the job's and the query's names). Default on, unless `QUOTIENT_ANSWER_MEMO=0`.
   */
  answerMemo?: boolean;
  /** The policy's label (its folder or files, as the CLI names it): every answer names it (`policy`). */
  label?: string;
  /**
   * Estimates a `wait` answer's start (engine/estimate.ts). The CLI and the server pass
   * the simulator's (simulate/start-estimate.ts); without one, answers carry no estimate.
   */
  estimator?: StartEstimator;
  /** The compiled-policy cache to load through (engine/policy-cache.ts); false for none; default the process's (the CLI's), if any. */
  cache?: PolicyCache | false;
}

/** How to treat a user the policy does not list. */
export interface ViewOptions {
  /** See them as an outsider (every job anonymous) instead of refusing: for questions spanning several policies. */
  outsider?: boolean;
}

/** What the opening stages hand on to each other. */
interface OpenState {
  policy: Policy;
  options: SessionOptions;
  tree?: QuotaTree;
  rules?: CompiledRule[];
  snapshot?: Snapshot;
  tables?: EligibilityTables;
}

/**
 * After loading (policy/load-policy.ts), the engine's stages. `compile` builds the quota
 * tree once (the snapshot and the tables share it) and the rules; `place` indexes the
 * snapshot, places running jobs that have no placement (`policy/unplaceable-job` when one
 * does not fit) and loads the kernel once; `tabulate` makes the store of eligibility
 * tables, each made on first use (per preemptor class: their time is part of `answer`).
 */
const OPEN_STAGES: readonly Stage<OpenState>[] = [
  {
    name: 'compile',
    run(s) {
      s.tree = new QuotaTree(s.policy.quotas);
      s.rules = compileRules(s.policy);
    },
  },
  {
    name: 'place',
    run(s, c) {
      if (!s.policy.cluster) return;
      const kernel = s.options.kernel ?? createKernel(s.options.backend ?? 'wasm');
      const built = Snapshot.build(s.policy, s.policy.cluster, kernel, s.tree);
      for (const f of built.findings) c.findings.push(f); // one by one: a spread of many overflows the stack
      s.snapshot = built.snapshot;
    },
  },
  {
    name: 'tabulate',
    run(s) {
      s.tables = new EligibilityTables(s.rules!, s.tree!); // compile ran (a stage runs only after those before it)
    },
  },
];

export class SessionCore {
  /**
   * Whether `answer` reuses equal requests' answers (SessionOptions.answerMemo). May be
   * changed between answers: the memo holds only answers of the snapshot's current state.
   */
  answerMemo: boolean;
  /** How often `answer` was served by the memo and how often it computed. */
  readonly answerMemoStats: AnswerMemoStats = { hits: 0, misses: 0, skipped: 0 };
  /** The policy's quotas and workspaces by name, for checking submitted jobs (made on first use). */
  private jobNames?: NameIndex;
  /** Each user's view, made once per session (SEMANTICS 10): a server asks as the same users again and again. */
  private viewers?: (user: string) => Viewer | undefined;
  private readonly viewerOf = (user: string): Viewer | undefined => (this.viewers ??= viewerCache(this.policy, this.tree))(user);

  protected constructor(
    readonly policy: Policy,
    /** The policy's quota tree, built once: the snapshot and the tables share it. */
    readonly tree: QuotaTree,
    readonly rules: CompiledRule[],
    readonly tables: EligibilityTables,
    readonly snapshot: Snapshot | undefined,
    /** Warnings from loading (errors stop before a Session exists). */
    readonly findings: Finding[],
    answerMemo: boolean,
    /** The label every answer names (SessionOptions.label). */
    readonly label: string | undefined,
    private readonly estimator: StartEstimator | undefined,
    /** How long each stage of loading and opening took (policy/stages.ts). */
    readonly timings: readonly StageTiming[],
  ) {
    this.answerMemo = answerMemo;
  }

  /**
   * Loads files into a session, or returns every finding that stops it: as
   * `Session.open` (engine/session.ts), but the loader is imported only when the
   * compiled-policy cache does not hold these files.
   */
  static async load(files: InputFile[], options: SessionOptions = {}): Promise<{ session?: SessionCore; findings: Finding[] }> {
    // Read first: a bad QUOTIENT_ANSWER_MEMO is exit 2 before any work.
    const answerMemo = options.answerMemo ?? answerMemoDefault();
    return this.opened(await loadThroughCacheLazily(files, options), options, answerMemo);
  }

  /**
   * After the loading stages (policy/load-policy.ts, or their cached result) come the
   * engine's: compile the rules, then `place` (engine/snapshot.ts: running jobs without a
   * placement are placed and the kernel is loaded), whose findings are tagged with that
   * stage like the others. Made as `this` (a Session when Session.open calls it).
   */
  protected static opened(loaded: LoadResult, options: SessionOptions, answerMemo: boolean): { session?: SessionCore; findings: Finding[] } {
    if (!loaded.policy) return { findings: loaded.findings };
    const state: OpenState = { policy: loaded.policy, options };
    const timings = [...loaded.timings];
    const opened = runStages(OPEN_STAGES, state, timings);
    const findings = sortFindings([...loaded.findings, ...opened.findings]);
    if (opened.failed || !state.tree || !state.rules || !state.tables) return { findings };
    const session = new this(state.policy, state.tree, state.rules, state.tables, state.snapshot, findings, answerMemo, options.label, options.estimator, timings);
    return { session, findings };
  }

  /** The admission rules (resource caps, per-module settings), compiled once. */
  get admissionRules(): AdmissionRule[] {
    return admissionEvaluator(this.policy).rules;
  }

  /**
   * Answers a request (engine/request.ts): a job given as values, or a WhatIf of the
   * policy by name, as a user may see it when `as` names one. A request that cannot be
   * answered — a bad field, an unknown user or WhatIf — is its findings, each at its
   * field, and no answer. Throws when the files hold no Cluster.
   */
  async ask(request: AnswerRequest, origin: RequestOrigin = {}): Promise<AskResult> {
    const snapshot = this.requireSnapshot();
    const { pipeline, request: reader } = answering ?? (await loadAnswering());
    // With the memo, a request equal to an answered one but for the job's name is served
    // before its job is checked: the equal one passed every check but the name's, which
    // memoKey makes (request.ts), so a hit costs no schema and no build.
    const memoKey = this.answerMemo ? reader.requestMemoKey(request, origin, snapshot, this.estimator !== undefined) : undefined;
    if (memoKey) {
      const hit = servedFromMemo<FullAnswer>(snapshot, this.answerMemoStats, memoKey.key, memoKey.query, memoKey.name);
      if (hit) return { answer: await hit, findings: [] };
    }
    // Only a submitted job is read by the loader's job reader (its schema, zod): a WhatIf asked by name needs neither.
    const submits = typeof request === 'object' && request !== null && (request as { submit?: unknown }).submit !== undefined;
    const jobReader = submits ? (await import('../policy/build/read-job.js')).readJob : undefined;
    const checked = reader.readRequest({ ...this.requestContext(snapshot), ...(jobReader ? { readJob: jobReader } : {}) }, request, origin);
    if (!checked.read) return { findings: checked.findings };
    const { query, job, viewer, estimate } = checked.read;
    const answer = await pipeline.answerJob({ snapshot, tables: this.tables, viewer }, query, job, this.answerOptions(estimate, origin.notes, memoKey?.key));
    return { answer, findings: checked.findings };
  }

  /**
   * Answers a checked JobSpec (one the loader built, or the simulator, or a promise's
   * generator): the pipeline's inner entry (engine/pipeline.ts), for the engine's own
   * callers. Programs ask with `ask`, which checks what they hand in.
   */
  answerJob(query: string, job: JobSpec, options?: { viewer?: undefined; estimate?: boolean; notes?: readonly Reason[] | undefined }): Promise<FullViewAnswer>;
  answerJob(query: string, job: JobSpec, options?: { viewer?: Viewer | undefined; estimate?: boolean; notes?: readonly Reason[] | undefined }): Promise<FullAnswer>;
  answerJob(query: string, job: JobSpec, options: { viewer?: Viewer | undefined; estimate?: boolean; notes?: readonly Reason[] | undefined } = {}): Promise<FullAnswer> {
    const snapshot = this.requireSnapshot();
    const run = ({ pipeline }: Answering): Promise<FullAnswer> =>
      pipeline.answerJob({ snapshot, tables: this.tables, viewer: options.viewer }, query, job, this.answerOptions(options.estimate !== false, options.notes));
    // No extra step once loaded: the simulator asks through here at every event.
    return answering ? run(answering) : loadAnswering().then(run);
  }

  /** The pipeline's options for this session: its label, estimator and memo. */
  private answerOptions(estimate: boolean, notes: readonly Reason[] | undefined, key?: string): AnswerOptions {
    return {
      label: this.label,
      estimator: estimate ? this.estimator : undefined,
      notes,
      memo: this.answerMemo ? { stats: this.answerMemoStats, key } : undefined,
    };
  }

  /** What checking a request needs of this session. */
  private requestContext(snapshot: Snapshot): RequestContext {
    return { policy: this.policy, snapshot, names: (this.jobNames ??= nameIndex(this.policy)), viewerOf: this.viewerOf };
  }

  private requireSnapshot(): Snapshot {
    if (!this.snapshot) throw new Error('no Cluster snapshot loaded');
    return this.snapshot;
  }

  /**
   * The view of `user` (SEMANTICS 10); a user no workspace lists is a QuotientError
   * (`cli/unknown-user`): an answer for a misspelt name would silently show nothing.
   */
  viewer(user: string, options: ViewOptions = {}): Viewer {
    const v = this.viewerOf(user);
    // Asked about several policies, a user may belong to some of them only: in the others
    // they are an outsider and every job shows as anonymous usage.
    if (!v && options.outsider) return outsiderView(user);
    if (!v) {
      const users = [...new Set(this.policy.workspaces.flatMap((w) => w.members.map((m) => m.user)))];
      throw new QuotientError('cli/unknown-user', `user "${user}" is not a member or guest of any workspace`, users.length ? `known users: ${users.join(', ')}` : 'no workspace lists members');
    }
    return v;
  }

  /** True when some workspace of this policy lists `user` as a member or guest. */
  knows(user: string): boolean {
    return this.viewerOf(user) !== undefined;
  }

  /** Answers a quota scaling (SEMANTICS 9), as `user` may see it when given. */
  scale(s: ScaleQuota, user?: string, options: ViewOptions = {}): ScaleAnswer {
    if (!this.snapshot) throw new Error('no Cluster snapshot loaded');
    return answerScale(this.snapshot, s, user === undefined ? undefined : this.viewer(user, options));
  }
}
