/**
 * Running jobs against resource caps: a snapshot above a cap is a warning, not an
 * error (`policy/over-cap`): caps are applied at submission, and an administrator may
 * have lowered one after the jobs started.
 */
import { capUsage, cappedResources, capText } from '../../model/caps.js';
import type { Cluster, Workspace } from '../../model/policy.js';
import { formatCpu, formatMemory } from '../../model/resources.js';
import type { Collector } from '../collector.js';

/** Warns once per cap whose subject's running jobs hold more than it allows. */
export function checkCaps(c: Collector, cluster: Cluster, workspaces: Workspace[]): void {
  for (const ws of workspaces) {
    for (const cap of ws.resourcePolicies) {
      const used = capUsage(cap, ws, cluster.jobs);
      const r = cappedResources(cap).find((res) => used[res] > cap.max[res]!);
      if (!r) continue;
      c.errorAt(
        cap.src,
        'policy/over-cap',
        `running jobs of ${capText(cap)} already hold ${r === 'gpu' ? `${used.gpu} GPUs` : r === 'cpu' ? `${formatCpu(used.cpu)} cpu` : formatMemory(used.memory)} (workspace ${ws.name})`,
        'new submissions under this cap will wait; raise the cap or let jobs finish',
        'warning',
      );
    }
  }
}
