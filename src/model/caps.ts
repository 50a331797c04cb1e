/**
 * Resource caps (SEMANTICS 10, docs/teams.md "Resource policies"): who a cap counts and
 * what counts against it. Usage against a cap = the running `in-quota` and `borrowing`
 * jobs of the cap's workspace, on the cap's quota itself (not its subtree), with a
 * priority in the cap's range, submitted by the cap's subject: the user, or any member
 * or guest whose role in the workspace is the cap's role. Idle jobs use no quota and
 * count nowhere; jobs without `submittedBy` cannot be attributed and count against no cap.
 */
import { totalRequest } from './usage-rule.js';
import type { JobSpec, ResourceCap, RunningJob, Workspace } from './policy.js';
import { formatRange, inRange } from './priority.js';
import { RESOURCE_NAMES, type ResourceName } from './resources.js';

/** The role `user` holds in `ws`, if they are a member or guest. */
export function roleIn(ws: Workspace, user: string | undefined): string | undefined {
  return user === undefined ? undefined : ws.members.find((m) => m.user === user)?.role;
}

/** True when the cap counts this job (running or submitted), ignoring its standing. */
export function capCovers(cap: ResourceCap, ws: Workspace, job: Pick<JobSpec, 'workspace' | 'quota' | 'priority' | 'submittedBy'>): boolean {
  if (job.workspace !== cap.workspace || job.quota !== cap.quota || !inRange(cap.priority, job.priority)) return false;
  if (job.submittedBy === undefined) return false;
  return 'user' in cap.subject ? job.submittedBy === cap.subject.user : roleIn(ws, job.submittedBy) === cap.subject.role;
}

/** What the running jobs use against a cap, per resource. */
export function capUsage(cap: ResourceCap, ws: Workspace, jobs: RunningJob[]): Record<ResourceName, number> {
  const used = { gpu: 0, cpu: 0, memory: 0 };
  for (const j of jobs) {
    if (j.standing === 'idle' || !capCovers(cap, ws, j)) continue;
    const need = totalRequest(j);
    for (const r of RESOURCE_NAMES) used[r] += need[r];
  }
  return used;
}

/** The resources a cap limits (gpu always; cpu and memory when given). */
export function cappedResources(cap: ResourceCap): ResourceName[] {
  return RESOURCE_NAMES.filter((r) => cap.max[r] !== undefined);
}

/** `role developer` / `user alice`. */
export function subjectText(cap: ResourceCap): string {
  return 'user' in cap.subject ? `user ${cap.subject.user}` : `role ${cap.subject.role}`;
}

/** `workspace-b/resourcePolicies[1]` (with the quota when the cap stands for several). */
export function capName(cap: ResourceCap, ws: Workspace): string {
  const many = ws.resourcePolicies.filter((c) => c.index === cap.index).length > 1;
  return `${cap.workspace}/resourcePolicies[${cap.index}]${many ? `@${cap.quota}` : ''}`;
}

/** One line: `role developer at priority 1-7 on Quota1.1: at most 32 GPUs`. */
export function capText(cap: ResourceCap): string {
  return `${subjectText(cap)} at priority ${formatRange(cap.priority)} on ${cap.quota}: at most ${cap.max.gpu} GPU${cap.max.gpu === 1 ? '' : 's'}`;
}
