/**
 * A loaded policy ready to answer questions: the model, its compiled rules, the
 * snapshot with the kernel loaded once, and the eligibility tables (made lazily).
 */
import { hasErrors, sortFindings, type Finding } from '../errors.js';
import { createKernel } from '../kernel/create-kernel.js';
import type { Kernel } from '../kernel/types.js';
import type { JobSpec, Policy } from '../model/policy.js';
import { QuotaTree } from '../model/quota-tree.js';
import { loadPolicy, type LoadOptions } from '../policy/load-policy.js';
import type { InputFile } from '../policy/source-doc.js';
import { compileRules, type CompiledRule } from '../rules/compile-rules.js';
import { EligibilityTables } from '../rules/eligibility-table.js';
import type { Answer } from './answer.js';
import { Snapshot } from './snapshot.js';
import { answerWhatIf } from './whatif.js';

export interface SessionOptions extends LoadOptions {
  /** Kernel implementation; default the WebAssembly kernel. */
  backend?: 'wasm' | 'reference';
  /** A kernel to use instead of making one (tests, workers). */
  kernel?: Kernel;
}

export class Session {
  readonly tree: QuotaTree;
  readonly tables: EligibilityTables;

  private constructor(
    readonly policy: Policy,
    readonly rules: CompiledRule[],
    readonly snapshot: Snapshot | undefined,
    /** Warnings from loading (errors stop before a Session exists). */
    readonly findings: Finding[],
  ) {
    this.tree = new QuotaTree(policy.quotas);
    this.tables = new EligibilityTables(rules, this.tree);
  }

  /** Loads files into a Session, or returns every finding that stops it. */
  static open(files: InputFile[], options: SessionOptions = {}): { session?: Session; findings: Finding[] } {
    const loaded = loadPolicy(files, options);
    if (!loaded.policy) return { findings: loaded.findings };
    const policy = loaded.policy;
    const rules = compileRules(policy);
    let snapshot: Snapshot | undefined;
    if (policy.cluster) {
      const kernel = options.kernel ?? createKernel(options.backend ?? 'wasm');
      const built = Snapshot.build(policy, policy.cluster, kernel);
      if (hasErrors(built.findings)) return { findings: sortFindings([...loaded.findings, ...built.findings]) };
      snapshot = built.snapshot;
    }
    return { session: new Session(policy, rules, snapshot, loaded.findings), findings: loaded.findings };
  }

  /** Answers a submission against the snapshot. Throws when the files hold no Cluster. */
  answer(query: string, job: JobSpec): Promise<Answer> {
    if (!this.snapshot) throw new Error('no Cluster snapshot loaded');
    return answerWhatIf({ snapshot: this.snapshot, tables: this.tables }, query, job);
  }
}
