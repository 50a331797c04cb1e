/**
 * Policy → json-rules-engine admission rules: each resource cap and each per-module
 * admission setting of a workspace becomes one named rule carrying its file:line:col,
 * like the preemption clauses (compile-rules.ts), so `quotient explain` lists them and
 * answers cite them. They run on one submission's facts (AdmissionFacts):
 *
 *   cap            fires when the cap applies to the submission; the engine then does
 *                  the arithmetic (own request vs max → reject; usage + request → wait)
 *   max-runtime    fires when the job's maxRuntime is above the module's limit → reject
 *   role-priority  fires when the submitter's role has a range for the module and the
 *                  priority is outside it → reject
 *   resource-spec  fires when the pod matches none of the module's templates → reject
 *
 * They are kept apart from the preemption rules: those are tabulated over victim facts
 * (eligibility-table.ts), these look at the submission only.
 */
import type { ConditionProperties, NestedCondition, RuleProperties, TopLevelCondition } from 'json-rules-engine';
import { capName, capText } from '../model/caps.js';
import type { ModuleAdmission, Policy, ResourceCap } from '../model/policy.js';
import { formatRange } from '../model/priority.js';
import { formatCpu, formatMemory } from '../model/resources.js';
import { sourceText, type Source } from '../model/source.js';

export type AdmissionRuleKind = 'cap' | 'max-runtime' | 'role-priority' | 'resource-spec';

/** The facts of one submission, flat for json-rules-engine. */
export interface AdmissionFacts {
  workspace: string;
  quota: string;
  module: string;
  priority: number;
  /** '' when the job names no submittedBy. */
  user: string;
  /** The submitter's role in the workspace; '' when unknown. */
  role: string;
  /** ms; 0 when the job gives none. */
  maxRuntime: number;
  podGpu: number;
  /** Millicores per pod; 0 when not given. */
  podCpu: number;
  /** MiB per pod; 0 when not given. */
  podMemory: number;
}

/** A compiled admission rule with what explanations need. */
export interface AdmissionRule {
  /** e.g. `workspace-b/resourcePolicies[1]`, `workspace-b/admission/DLC/maxRuntime`. */
  name: string;
  kind: AdmissionRuleKind;
  workspace: string;
  /** file:line:col of the setting. */
  source: string;
  rule: RuleProperties;
  summary: string;
  cap?: ResourceCap;
  admission?: ModuleAdmission;
  /** For role-priority rules: the role. */
  role?: string;
}

/** Compiles every workspace's caps and admission settings. */
export function compileAdmissionRules(policy: Policy): AdmissionRule[] {
  const out: AdmissionRule[] = [];
  for (const ws of policy.workspaces) {
    for (const cap of ws.resourcePolicies) {
      const subject: ConditionProperties = 'user' in cap.subject ? { fact: 'user', operator: 'equal', value: cap.subject.user } : { fact: 'role', operator: 'equal', value: cap.subject.role };
      out.push(
        make(
          capName(cap, ws),
          'cap',
          ws.name,
          cap.src,
          { all: [...scope(ws.name), { fact: 'quota', operator: 'equal', value: cap.quota }, subject, ...inRange(cap.priority)] },
          `resource cap of ${ws.name}: ${capText(cap)}; the strictest cap that applies wins`,
          { cap },
        ),
      );
    }
    for (const a of ws.admission) {
      const base = `${ws.name}/admission/${a.module}`;
      const mod: ConditionProperties = { fact: 'module', operator: 'equal', value: a.module };
      if (a.maxRuntime !== undefined) {
        out.push(
          make(
            `${base}/maxRuntime`,
            'max-runtime',
            ws.name,
            a.maxRuntimeSrc!,
            { all: [...scope(ws.name), mod, { fact: 'maxRuntime', operator: 'greaterThan', value: a.maxRuntime }] },
            `${a.module} jobs of ${ws.name} may run at most ${durationText(a.maxRuntime)}; a job asking for a longer maxRuntime is rejected`,
            { admission: a },
          ),
        );
      }
      for (const p of a.priorities) {
        out.push(
          make(
            `${base}/priorities/${p.role}`,
            'role-priority',
            ws.name,
            p.src,
            {
              all: [
                ...scope(ws.name),
                mod,
                { fact: 'role', operator: 'equal', value: p.role },
                {
                  any: [
                    { fact: 'priority', operator: 'lessThan', value: p.priority.lo },
                    { fact: 'priority', operator: 'greaterThan', value: p.priority.hi },
                  ],
                },
              ],
            },
            `${p.role} users of ${ws.name} may submit ${a.module} jobs only at priority ${formatRange(p.priority)}`,
            { admission: a, role: p.role },
          ),
        );
      }
      if (a.resourceSpecs.length > 0) {
        const matches: NestedCondition[] = a.resourceSpecs.map((t) => ({
          all: [
            { fact: 'podGpu', operator: 'equal', value: t.resources.gpu },
            ...(t.resources.cpu !== undefined ? [{ fact: 'podCpu', operator: 'lessThanInclusive', value: t.resources.cpu }] : []),
            ...(t.resources.memory !== undefined ? [{ fact: 'podMemory', operator: 'lessThanInclusive', value: t.resources.memory }] : []),
          ],
        }));
        out.push(
          make(
            `${base}/resourceSpecs`,
            'resource-spec',
            ws.name,
            a.resourceSpecsSrc!,
            { all: [...scope(ws.name), mod, { not: { any: matches } }] },
            `every pod of a ${a.module} job of ${ws.name} must match one resource specification: ${specsText(a)}`,
            { admission: a },
          ),
        );
      }
    }
  }
  return out;
}

function make(name: string, kind: AdmissionRuleKind, workspace: string, src: Source, conditions: TopLevelCondition, summary: string, extra: Partial<AdmissionRule>): AdmissionRule {
  let source: string | undefined;
  return {
    name,
    kind,
    workspace,
    // file:line:col, worked out when first printed: reading a Source's line runs the
    // positioned parse of its file (policy/parse/source-doc.ts), which compiling every rule up
    // front would pay for every workspace file of the policy (B7: ~60 % of compiling).
    get source(): string {
      source ??= sourceText(src);
      return source;
    },
    summary,
    ...extra,
    // The event names the rule only: evaluate-admission.ts maps it back to this object.
    rule: { name, conditions, event: { type: kind === 'cap' ? 'cap' : 'violation', params: { rule: name, kind } } },
  };
}

function scope(workspace: string): ConditionProperties[] {
  return [{ fact: 'workspace', operator: 'equal', value: workspace }];
}

function inRange(range: { lo: number; hi: number }): ConditionProperties[] {
  return [
    { fact: 'priority', operator: 'greaterThanInclusive', value: range.lo },
    { fact: 'priority', operator: 'lessThanInclusive', value: range.hi },
  ];
}

/** `gpu-1 (1 GPU, ≤ 8 cpu, ≤ 64Gi), gpu-8 (8 GPU)`. */
export function specsText(a: ModuleAdmission): string {
  return a.resourceSpecs
    .map(
      (t) =>
        `${t.name} (${[`${t.resources.gpu} GPU`, ...(t.resources.cpu !== undefined ? [`≤ ${formatCpu(t.resources.cpu)} cpu`] : []), ...(t.resources.memory !== undefined ? [`≤ ${formatMemory(t.resources.memory)}`] : [])].join(', ')})`,
    )
    .join(', ');
}

/** ms → `72h`, `1h30m`, `45m`. */
export function durationText(ms: number): string {
  const m = Math.round(ms / 60000);
  const h = Math.floor(m / 60);
  const rest = m % 60;
  return h === 0 ? `${m}m` : rest === 0 ? `${h}h` : `${h}h${rest}m`;
}
