/**
 * A loaded policy ready to answer questions: the model, its compiled rules, the
 * snapshot with the kernel loaded once, and the eligibility tables (made lazily).
 */
import { hasErrors, sortFindings, type Finding } from '../errors.js';
import { createKernel } from '../kernel/create-kernel.js';
import type { Kernel } from '../kernel/types.js';
import type { JobSpec, Policy } from '../model/policy.js';
import { QuotaTree } from '../model/quota-tree.js';
import { loadPolicy, tagStage, type LoadOptions } from '../policy/load-policy.js';
import type { InputFile } from '../policy/source-doc.js';
import { compileRules, type CompiledRule } from '../rules/compile-rules.js';
import { EligibilityTables } from '../rules/eligibility-table.js';
import type { Answer } from './answer.js';
import { Snapshot } from './snapshot.js';
import { admissionEvaluator } from './admission.js';
import { answerScale, type ScaleAnswer } from './scale.js';
import { redactAnswer, viewerFor, type Viewer, type ViewedAnswer } from './visibility.js';
import { answerWhatIf } from './whatif.js';
import { answerMemoDefault, memoizedAnswer, type AnswerMemoStats } from './answer-memo.js';
import { noteAssignedIndices } from './assigned-indices.js';
import { noteModelBlock } from './model-reasons.js';
import type { AdmissionRule } from '../rules/compile-admission.js';
import type { ScaleQuota } from '../model/policy.js';
import { QuotientError } from '../errors.js';
import { checkJob, checkJobName, InvalidJobError, nameIndex } from './check-job.js';
import type { NameIndex } from '../policy/build-job.js';

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
}

/** How to treat a user the policy does not list. */
export interface ViewOptions {
  /** See them as an outsider (every job anonymous) instead of refusing: for questions spanning several policies. */
  outsider?: boolean;
}

export class Session {
  readonly tables: EligibilityTables;
  /**
   * Whether `answer` reuses equal requests' answers (SessionOptions.answerMemo). May be
   * changed between answers: the memo holds only answers of the snapshot's current state.
   */
  answerMemo: boolean;
  /** How often `answer` was served by the memo and how often it computed. */
  readonly answerMemoStats: AnswerMemoStats = { hits: 0, misses: 0, skipped: 0 };
  /** The policy's quotas and workspaces by name, for checking submitted jobs (made on first use). */
  private jobNames?: NameIndex;

  private constructor(
    readonly policy: Policy,
    /** The policy's quota tree, built once: the snapshot and the tables share it. */
    readonly tree: QuotaTree,
    readonly rules: CompiledRule[],
    readonly snapshot: Snapshot | undefined,
    /** Warnings from loading (errors stop before a Session exists). */
    readonly findings: Finding[],
    answerMemo: boolean,
  ) {
    this.tables = new EligibilityTables(rules, tree);
    this.answerMemo = answerMemo;
  }

  /**
   * Loads files into a Session, or returns every finding that stops it. After the
   * loading stages (policy/load-policy.ts) come the engine's: compile the rules, then
   * `place` (engine/snapshot.ts: running jobs without a placement are placed and the
   * kernel is loaded), whose findings are tagged with that stage like the others.
   */
  static open(files: InputFile[], options: SessionOptions = {}): { session?: Session; findings: Finding[] } {
    // Read first: a bad QUOTIENT_ANSWER_MEMO is exit 2 before any work.
    const answerMemo = options.answerMemo ?? answerMemoDefault();
    const loaded = loadPolicy(files, options);
    if (!loaded.policy) return { findings: loaded.findings };
    const policy = loaded.policy;
    const tree = new QuotaTree(policy.quotas);
    const rules = compileRules(policy);
    let snapshot: Snapshot | undefined;
    const findings = [...loaded.findings];
    if (policy.cluster) {
      const kernel = options.kernel ?? createKernel(options.backend ?? 'wasm');
      const built = Snapshot.build(policy, policy.cluster, kernel, tree);
      for (const f of tagStage(built.findings, 'place')) findings.push(f); // one by one: a spread of many overflows the stack
      if (hasErrors(built.findings)) return { findings: sortFindings(findings) };
      snapshot = built.snapshot;
    }
    const sorted = sortFindings(findings);
    return { session: new Session(policy, tree, rules, snapshot, sorted, answerMemo), findings: sorted };
  }

  /** The admission rules (resource caps, per-module settings), compiled once. */
  get admissionRules(): AdmissionRule[] {
    return admissionEvaluator(this.policy).rules;
  }

  /**
   * Answers a submission against the snapshot. Throws when the files hold no Cluster.
   * A job the policy cannot take (a field of the wrong type or out of range, an unknown
   * workspace or quota: engine/check-job.ts) is a rejection with an InvalidJobError
   * (`engine/invalid-job`) naming every bad field, its value and what is allowed.
   * With the answer memo on, a request equal to an earlier one but for its names gets
   * that answer (answer-memo.ts), deep-equal to a fresh one; its nested parts are frozen.
   */
  answer(query: string, job: JobSpec): Promise<Answer> {
    if (!this.snapshot) throw new Error('no Cluster snapshot loaded');
    const snap = this.snapshot;
    const names = (this.jobNames ??= nameIndex(this.policy));
    const compute = (): Promise<Answer> => {
      // The job is checked where the memo misses: a hit is a request equal to an answered
      // one in every field but its name and src, and that one passed this check (a failed
      // answer is never stored), so the memo's fast path costs no check but the name's.
      const problems = checkJob(job, names);
      if (problems.length > 0) return Promise.reject(new InvalidJobError(job, problems));
      return answerWhatIf({ snapshot: snap, tables: this.tables }, query, job).then((a) => noteAssignedIndices(noteModelBlock(a, snap, job), snap));
    };
    if (!this.answerMemo) return compute();
    // The name is outside the memo's key: checked on every request (first, so a job that
    // is not an object never reaches the key). A bad one is told with the job's every
    // other problem, as without the memo.
    if (checkJobName(job).length > 0) return Promise.reject(new InvalidJobError(job, checkJob(job, names)));
    return memoizedAnswer(snap, this.answerMemoStats, query, job, compute);
  }

  /**
   * The view of `user` (SEMANTICS 10); a user no workspace lists is a QuotientError
   * (`cli/unknown-user`): an answer for a misspelt name would silently show nothing.
   */
  viewer(user: string, options: ViewOptions = {}): Viewer {
    const v = viewerFor(this.policy, this.tree, user);
    // Asked about several policies, a user may belong to some of them only: in the others
    // they are an outsider and every job shows as anonymous usage.
    if (!v && options.outsider) return { user, canSee: () => false };
    if (!v) {
      const users = [...new Set(this.policy.workspaces.flatMap((w) => w.members.map((m) => m.user)))];
      throw new QuotientError('cli/unknown-user', `user "${user}" is not a member or guest of any workspace`, users.length ? `known users: ${users.join(', ')}` : 'no workspace lists members');
    }
    return v;
  }

  /** True when some workspace of this policy lists `user` as a member or guest. */
  knows(user: string): boolean {
    return viewerFor(this.policy, this.tree, user) !== undefined;
  }

  /** Answers a submission as `user` may see it: other teams' jobs only as anonymous usage. A bad job is rejected as in `answer`. */
  async answerAs(query: string, job: JobSpec, user: string, options: ViewOptions = {}): Promise<ViewedAnswer> {
    if (!this.snapshot) throw new Error('no Cluster snapshot loaded');
    const viewer = this.viewer(user, options);
    const problems = checkJob(job, (this.jobNames ??= nameIndex(this.policy)));
    if (problems.length > 0) throw new InvalidJobError(job, problems);
    const answer = noteAssignedIndices(noteModelBlock(await answerWhatIf({ snapshot: this.snapshot, tables: this.tables, viewer }, query, job), this.snapshot, job), this.snapshot);
    return redactAnswer(answer, this.snapshot.jobs, viewer);
  }

  /** Answers a quota scaling (SEMANTICS 9), as `user` may see it when given. */
  scale(s: ScaleQuota, user?: string, options: ViewOptions = {}): ScaleAnswer {
    if (!this.snapshot) throw new Error('no Cluster snapshot loaded');
    return answerScale(this.snapshot, s, user === undefined ? undefined : this.viewer(user, options));
  }
}
