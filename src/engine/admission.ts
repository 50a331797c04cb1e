/**
 * Admission before any quota arithmetic (SEMANTICS 10, docs/teams.md): who may submit
 * (policy/build/access.ts), the workspace's per-module settings and its resource caps, the
 * last two run as json-rules-engine rules (rules/compile-admission.ts).
 *
 *   access refused, a setting broken, or the job alone above a cap  → reject
 *   the job plus what the cap's subject already runs above a cap   → blocked (wait)
 *
 * When several caps apply every one must hold, so the strictest decides; reasons name
 * the cap that bit (the one with the least room), its numbers and its policy line.
 */
import { compareText } from '../model/order.js';
import { capText, capUsage, cappedResources, roleIn } from '../model/caps.js';
import type { JobSpec, Policy, ResourceCap } from '../model/policy.js';
import { formatAmount, formatCpu, formatMemory } from '../model/resources.js';
import { sourceText } from '../model/source.js';
import { accessRefusal } from '../policy/build/access.js';
import { compileAdmissionRules, durationText, specsText, type AdmissionRule } from '../rules/compile-admission.js';
import { AdmissionEvaluator } from '../rules/evaluate-admission.js';
import { because, type Reason } from './reason-codes.js';
import type { Snapshot } from './snapshot.js';
import { totalRequest } from './usage.js';

/** What admission says: reject reasons, or wait reasons when a cap is full, and notes. */
export interface AdmissionOutcome {
  reject?: Reason[];
  blocked?: Reason[];
  /** For an admitted job: the caps that apply and the room they leave. */
  notes: Reason[];
}

const evaluators = new WeakMap<Policy, AdmissionEvaluator>();

/** The evaluator of a policy's admission rules, compiled once per policy. */
export function admissionEvaluator(policy: Policy): AdmissionEvaluator {
  let e = evaluators.get(policy);
  if (!e) {
    e = new AdmissionEvaluator(compileAdmissionRules(policy));
    evaluators.set(policy, e);
  }
  return e;
}

/** Checks access, settings and caps for `job` against the snapshot's running jobs. */
export async function checkAdmission(snap: Snapshot, job: JobSpec, evaluator = admissionEvaluator(snap.policy)): Promise<AdmissionOutcome> {
  const ws = snap.memo('workspaces', () => new Map(snap.policy.workspaces.map((w) => [w.name, w]))).get(job.workspace)!;
  const refusal = accessRefusal(job, ws, snap.tree.get(job.quota));
  if (refusal) return { reject: [because('admission/access-denied', `${refusal.message}: breaks ${refusal.rule} (${sourceText(refusal.src)}); ${refusal.hint}`)], notes: [] };
  const role = roleIn(ws, job.submittedBy);
  const verdict = await evaluator.evaluate({
    workspace: job.workspace,
    quota: job.quota,
    module: job.module,
    priority: job.priority,
    user: job.submittedBy ?? '',
    role: role ?? '',
    maxRuntime: job.maxRuntime ?? 0,
    podGpu: job.resources.gpu,
    podCpu: job.resources.cpu ?? 0,
    podMemory: job.resources.memory ?? 0,
  });
  if (verdict.violations.length > 0) return { reject: verdict.violations.map((r) => because('admission/setting-violated', explainViolation(r, job, role))), notes: [] };
  // An idle-only job uses no quota, so no cap counts it (docs/teams.md).
  if (job.idleResources === 'only' || verdict.caps.length === 0) return { notes: [] };

  const need = totalRequest(job);
  const rows = verdict.caps.map((r) => {
    const cap = r.cap!;
    // What the cap's subject runs: a pass over the running jobs once per cap and snapshot state.
    const used = snap.memo(`cap-usage:${r.name}`, () => capUsage(cap, ws, snap.jobs));
    const res = cappedResources(cap);
    // Room as a share of each limit, so GPUs, millicores and MiB compare: the cap with the
    // least share left is the strictest; a negative share is a cap the job would overrun.
    const room = Math.min(...res.map((x) => (cap.max[x]! - used[x] - need[x]) / Math.max(cap.max[x]!, 1)));
    return { r, cap, used, res, room };
  });
  rows.sort((a, b) => a.room - b.room || a.cap.max.gpu - b.cap.max.gpu || compareText(a.r.name, b.r.name));
  const others = (skip: AdmissionRule) => {
    const rest = rows.filter((x) => x.r !== skip).map((x) => `${x.r.name} (${capText(x.cap)})`);
    return rest.length ? `; ${rest.length} other cap(s) apply and leave more room: ${rest.join(', ')}` : '';
  };
  const alone = rows.find((x) => x.res.some((res) => need[res] > x.cap.max[res]!));
  if (alone) {
    const res = alone.res.find((x) => need[x] > alone.cap.max[x]!)!;
    return {
      reject: [
        because(
          'admission/cap-never-fits',
          `the job alone asks for ${formatAmount(res, need[res])}, more than cap ${alone.r.name} allows at all (${capText(alone.cap)}, ${alone.r.source}); it can never run under this cap${others(alone.r)}`,
        ),
      ],
      notes: [],
    };
  }
  const bit = rows[0]!; // verdict.caps is non-empty here (returned above when empty)
  if (bit.room < 0) {
    const res = bit.res.find((x) => bit.used[x] + need[x] > bit.cap.max[x]!)!;
    return {
      blocked: [
        because(
          'admission/cap-full',
          `cap ${bit.r.name} is full (${capText(bit.cap)}, ${bit.r.source}): ${subjectJobs(bit.cap, job)} already hold ${formatAmount(res, bit.used[res])} there; with the job's ${formatAmount(res, need[res])} that is ${formatAmount(res, bit.used[res] + need[res])}, ${formatAmount(res, bit.used[res] + need[res] - bit.cap.max[res]!)} over${others(bit.r)}`,
        ),
      ],
      notes: [],
    };
  }
  return {
    notes: [
      because('admission/cap-room', `cap ${bit.r.name} (${capText(bit.cap)}, ${bit.r.source}) is the strictest that applies: ${bit.used.gpu} GPUs in use, ${bit.used.gpu + need.gpu} with this job`),
    ],
  };
}

function subjectJobs(cap: ResourceCap, job: JobSpec): string {
  return 'user' in cap.subject ? `${cap.subject.user}'s running jobs` : `running jobs of ${cap.subject.role}s of ${job.workspace}`;
}

/** One reject sentence for a broken admission setting, citing the rule and its line. */
function explainViolation(r: AdmissionRule, job: JobSpec, role: string | undefined): string {
  const a = r.admission!;
  const cite = `(rule ${r.name}, ${r.source})`;
  switch (r.kind) {
    case 'max-runtime':
      return `the job asks for maxRuntime ${durationText(job.maxRuntime!)}, over the ${durationText(a.maxRuntime!)} that ${a.module} jobs of ${a.workspace} may run ${cite}`;
    case 'role-priority': {
      const p = a.priorities.find((x) => x.role === r.role)!;
      return `${job.submittedBy} is ${role} in ${a.workspace}, whose ${a.module} jobs may have priority ${p.priority.lo === p.priority.hi ? p.priority.lo : `${p.priority.lo}-${p.priority.hi}`} only; the job asks for ${job.priority} ${cite}`;
    }
    case 'resource-spec':
      return `pods of ${job.resources.gpu} GPU${job.resources.cpu !== undefined ? `, ${formatCpu(job.resources.cpu)} cpu` : ''}${job.resources.memory !== undefined ? `, ${formatMemory(job.resources.memory)}` : ''} match no resource specification of ${a.module} in ${a.workspace}: ${specsText(a)} ${cite}`;
    default:
      return `${r.summary} ${cite}`;
  }
}
