/** Whether one answer keeps a promise's expectations; each broken clause is one sentence. */
import type { Answer } from '../engine/answer.js';
import type { RunningJob } from '../model/policy.js';
import { formatRange, inRange } from '../model/priority.js';
import type { JobSelector, PromiseExpect } from '../model/promise.js';
import type { QuotaTree } from '../model/quota-tree.js';

/** True when a running job matches the selector (`quota` matches its whole subtree). */
export function matches(tree: QuotaTree, job: RunningJob, s: JobSelector): boolean {
  if (s.quota !== undefined && !tree.inSubtree(tree.indexOf(job.quota), tree.indexOf(s.quota))) return false;
  if (s.workspace !== undefined && job.workspace !== s.workspace) return false;
  if (s.module && !s.module.includes(job.module)) return false;
  if (s.priority && !inRange(s.priority, job.priority)) return false;
  if (s.standing && !s.standing.includes(job.standing)) return false;
  return true;
}

/** Describes a selector: `jobs on Quota1.1 (or below) of priority 7-9`. */
export function describeSelector(s: JobSelector): string {
  const parts = ['jobs'];
  if (s.quota) parts.push(`on ${s.quota} (or below)`);
  if (s.workspace) parts.push(`of workspace ${s.workspace}`);
  if (s.module) parts.push(`in ${s.module.join('/')}`);
  if (s.priority) parts.push(`of priority ${formatRange(s.priority)}`);
  if (s.standing) parts.push(`running ${s.standing.join('/')}`);
  return parts.join(' ');
}

/** The clauses of `expect` that `answer` breaks (empty: the promise held). */
export function brokenClauses(tree: QuotaTree, jobs: Map<string, RunningJob>, expect: PromiseExpect, answer: Answer): string[] {
  const out: string[] = [];
  if (expect.decision && !expect.decision.includes(answer.decision)) out.push(`decision is ${answer.decision}, promised ${expect.decision.join(' or ')}`);
  const standing = answer.standing ?? 'none';
  if (expect.standing && !expect.standing.includes(standing)) out.push(`standing is ${standing}, promised ${expect.standing.join(' or ')}`);
  if (expect.neverPreempts) {
    const hit = answer.victims.filter((v) => matches(tree, jobs.get(v.job)!, expect.neverPreempts!));
    if (hit.length)
      out.push(`preempts ${hit.map((v) => `${v.job} (${v.quota}, priority ${v.priority}, by ${v.rule})`).join(', ')}; promised never to preempt ${describeSelector(expect.neverPreempts)}`);
  }
  if (expect.maxLostGpuHours) {
    const { limit, of } = expect.maxLostGpuHours;
    const counted = answer.victims.filter((v) => !of || matches(tree, jobs.get(v.job)!, of));
    const lost = Math.round(counted.reduce((s, v) => s + v.lostGpuHours, 0) * 100) / 100;
    if (lost > limit) out.push(`loses ${lost} GPU-hours of ${of ? describeSelector(of) : 'work'}, promised at most ${limit}`);
  }
  if (expect.maxVictims !== undefined && answer.victims.length > expect.maxVictims) out.push(`preempts ${answer.victims.length} jobs, promised at most ${expect.maxVictims}`);
  return out;
}
