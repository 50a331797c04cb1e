/** Why a job may be preempted, in the policy's own terms: the "because" of an answer. */
import type { Policy, Quota, RunningJob } from '../model/policy.js';
import { formatRange } from '../model/priority.js';
import type { CompiledRule } from './compile-rules.js';

/** One sentence naming the facts and the clause that make `victim` eligible for a preemptor of `priority`. */
export function explainVictim(policy: Policy, rule: CompiledRule, victim: RunningJob, priority: number): string {
  const quota = quotaNamed(policy, rule.quota);
  switch (rule.kind) {
    case 'reclaim-idle':
      return `${victim.name} runs on idle resources (idleResources: ${victim.idleResources}); idle capacity is always reclaimed for jobs that run on quota`;
    case 'reclaim-borrowed':
      return `${victim.name} is borrowing on ${victim.quota}, over its own guarantee, and ${rule.quota} takes back what it lent (reclaim: ${quota?.reclaim}${quota?.reclaim === 'lower-priority' ? `, and priority ${victim.priority} is below ${priority}` : ''})`;
    case 'self': {
      const sp = quota!.selfPreemption!;
      const where = victim.quota === rule.quota ? `on ${rule.quota} itself` : `on ${victim.quota}, a same-level quota of ${rule.quota}`;
      return `priority ${victim.priority} is in lowPriority ${formatRange(sp.lowPriority)} and below ${priority}, and ${victim.module} is in modules [${sp.modules.join(', ')}] of ${rule.quota}'s self-level preemption (highPriority ${formatRange(sp.highPriority)}); the job runs ${where}`;
    }
    case 'child': {
      const cp = quota!.childPreemption!;
      return `priority ${victim.priority} is in preemptiblePriority ${formatRange(cp.preemptiblePriority)} and ${victim.module} is in modules [${cp.modules.join(', ')}] of ${rule.quota}'s child-level preemption; ${victim.quota} is below ${rule.quota}`;
    }
    case 'borrow':
      // Never a victim's rule: `borrow` rules fire on the preemptor alone (eligibleBy skips them).
      return rule.summary;
  }
}

const byName = new WeakMap<Policy, Map<string, Quota>>();

/** The policy's quota of that name, by a map built once per policy (an answer names several victims). */
function quotaNamed(policy: Policy, name: string): Quota | undefined {
  let m = byName.get(policy);
  if (!m || m.size !== policy.quotas.length) {
    m = new Map(policy.quotas.map((q) => [q.name, q]));
    byName.set(policy, m);
  }
  return m.get(name);
}
