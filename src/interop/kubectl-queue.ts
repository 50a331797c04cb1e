/**
 * Pending pods that name a queue → the snapshot's queue (SEMANTICS 8, "Queues at one
 * instant": importing a live cluster turns pending pods into the queue). Pods of one
 * owner and one shape are one waiting gang, as running pods are one running job
 * (kubectl-jobs.ts); it was submitted when its first pod was created
 * (metadata.creationTimestamp). A waiting gang of an owner that also has running pods
 * (a job being started, a Deployment scaling up) is named `owner#pending`.
 */
import type { ImportedQueuedJob, KubectlImport, PodFacts } from './kubectl-types.js';
import { gangOf } from './kubectl-jobs.js';

/** The waiting jobs of `pods` (each with `pending` set), in submission order. */
export function groupQueued(pods: PodFacts[], taken: Set<string>, out: KubectlImport): ImportedQueuedJob[] {
  const groups = new Map<string, PodFacts[]>();
  for (const p of pods) {
    const shape = `${p.gpu}/${p.cpu ?? '-'}/${p.memory ?? '-'}`;
    const key = `${p.owner ? `${p.namespace}\u0000${p.owner.kind}\u0000${p.owner.name}` : `${p.namespace}\u0000Pod\u0000${p.name}`}\u0000${shape}`;
    const group = groups.get(key);
    if (group) group.push(p);
    else groups.set(key, [p]);
  }
  const shapesOf = new Map<string, number>();
  for (const group of groups.values()) {
    const base = baseName(group[0]!);
    shapesOf.set(base, (shapesOf.get(base) ?? 0) + 1);
  }
  const part = new Map<string, number>();
  const queue: ImportedQueuedJob[] = [];
  for (const group of groups.values()) {
    const head = group[0]!;
    const base = baseName(head);
    let name = base;
    if ((shapesOf.get(base) ?? 1) > 1) {
      part.set(base, (part.get(base) ?? 0) + 1);
      name = `${base}#${part.get(base)!}`;
    }
    if (taken.has(name)) name = `${name}#pending`;
    for (let k = 2; taken.has(name); k++) name = `${base}#pending~${k}`;
    taken.add(name);
    const differ = (f: (p: PodFacts) => string | number): boolean => group.some((p) => f(p) !== f(head));
    if (differ((p) => p.quota) || differ((p) => p.workspace) || differ((p) => p.priority) || differ((p) => p.module))
      out.report.warn(
        head.sd,
        head.path,
        'interop/mixed-gang',
        `the pending pods of ${name} differ in quota, workspace, priority or module; the first pod's (${head.name}) are used for the whole job`,
        'label every pod of one owner alike',
      );
    const submittedAt = Math.min(...group.map((p) => p.pending!.createdAt));
    const priority = head.kubePriority === undefined ? `priority ${head.priority}: no spec.priority (counted as 0)` : `priority ${head.priority} from spec.priority ${head.kubePriority}`;
    queue.push({
      ...gangOf(name, group, [
        `waiting: ${group.length} pending pod(s) of ${head.owner ? `${head.owner.kind} ${head.namespace}/${head.owner.name}` : `pod ${head.name}`}, submitted at the first one's metadata.creationTimestamp`,
        ...new Set(group.flatMap((p) => p.rewritten)),
        `GPUs per pod ${head.gpu}; ${priority}; quota "${head.quota}" from ${head.quotaDetail ?? head.quotaFrom}; module ${head.module} from ${head.moduleFrom}`,
      ]),
      submittedAt,
    });
  }
  queue.sort(bySubmission);
  if (queue.length) out.mapped.push(`queue: ${queue.length} waiting job(s) from ${pods.length} pending pod(s) that name a queue, submitted at metadata.creationTimestamp`);
  return queue;
}

function baseName(p: PodFacts): string {
  return p.owner ? `${p.namespace}/${p.owner.name}` : p.name;
}

/** Queue order: submission time, then name. */
export function bySubmission(a: ImportedQueuedJob, b: ImportedQueuedJob): number {
  return a.submittedAt - b.submittedAt || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}
