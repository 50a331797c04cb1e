/** Running pods → the snapshot's jobs: one gang per owner and pod shape (import-kubectl.ts). */
import type { ImportedGang, ImportedJob, ImportedNode, KubectlImport, KubectlOptions, PodFacts } from './kubectl-types.js';
import { where } from './located-json.js';
import { DEFAULT_OWNER_MODULES, describeModuleMap } from './owner-module.js';
import { describePriorityMap } from './priority-map.js';

/** Pods of one owner and one shape → one gang job; a node's GPUs are never over-committed. */
export function groupJobs(pods: PodFacts[], nodes: Map<string, ImportedNode>, out: KubectlImport, opts: KubectlOptions): ImportedJob[] {
  const groups = new Map<string, PodFacts[]>();
  for (const p of pods) {
    const key = p.owner ? `${p.namespace}\u0000${p.owner.kind}\u0000${p.owner.name}` : `${p.namespace}\u0000Pod\u0000${p.name}`;
    const group = groups.get(key);
    if (group) group.push(p);
    else groups.set(key, [p]);
  }
  const jobs: ImportedJob[] = [];
  const used = new Map<string, number>();
  const names = new Set<string>();
  const ownerKinds = new Map<string, number>();
  const quotaSources = new Map<string, number>();
  for (const members of groups.values()) {
    const first = members[0]!;
    const base = first.owner ? `${first.namespace}/${first.owner.name}` : first.name;
    const shapes = new Map<string, PodFacts[]>();
    for (const p of members) {
      const shape = `${p.gpu}/${p.cpu ?? '-'}/${p.memory ?? '-'}`;
      const same = shapes.get(shape);
      if (same) same.push(p);
      else shapes.set(shape, [p]);
    }
    let part = 0;
    for (const group of shapes.values()) {
      const head = group[0]!;
      let name = shapes.size > 1 ? `${base}#${++part}` : base;
      if (names.has(name)) name = `${name}(${head.owner?.kind ?? 'Pod'})`;
      // Names made from rewritten ones (imported-name.ts) may meet a name the input spelled with the escape itself.
      for (let k = 2; names.has(name); k++) name = `${base}~${k}`;
      names.add(name);
      const notes: string[] = [];
      notes.push(
        head.owner
          ? `${group.length} pod(s) of ${head.owner.kind} ${head.namespace}/${head.owner.name}${shapes.size > 1 ? ` (pods of one shape; the owner has ${shapes.size} shapes)` : ''}`
          : `standalone pod ${head.name}`,
      );
      notes.push(...new Set(group.flatMap((p) => p.rewritten)));
      const differ = (f: (p: PodFacts) => string | number): boolean => group.some((p) => f(p) !== f(head));
      if (differ((p) => p.quota) || differ((p) => p.workspace) || differ((p) => p.priority) || differ((p) => p.module)) {
        out.report.warn(
          head.sd,
          head.path,
          'interop/mixed-gang',
          `the pods of ${name} differ in quota, workspace, priority or module; the first pod's (${head.name}) are used for the whole job`,
          'label every pod of one owner alike',
        );
      }
      // A node's GPUs: pods beyond its count are inconsistent input; the job is skipped.
      const onNode = new Map<string, number>();
      for (const p of group) onNode.set(p.node, (onNode.get(p.node) ?? 0) + p.gpu);
      const over = [...onNode].find(([node, gpus]) => (used.get(node) ?? 0) + gpus > nodes.get(node)!.gpus)?.[0];
      if (over !== undefined) {
        for (const p of group) out.skipped.push({ kind: 'Pod', name: p.name, where: where(p.sd, p.path), reason: `node "${over}" would hold more GPUs than it has with job ${name}` });
        continue;
      }
      for (const [node, gpus] of onNode) used.set(node, (used.get(node) ?? 0) + gpus);
      const priority = head.kubePriority === undefined ? `priority ${head.priority}: no spec.priority (counted as 0)` : `priority ${head.priority} from spec.priority ${head.kubePriority}`;
      notes.push(
        `GPUs per pod from limits["${opts.gpuResource}"] = ${head.gpu}; ${priority}; quota "${head.quota}" from ${head.quotaDetail ?? head.quotaFrom}; module ${head.module} from ${head.moduleFrom}`,
      );
      const startedAt = group.reduce<number | undefined>((m, p) => (p.startedAt === undefined ? m : m === undefined ? p.startedAt : Math.min(m, p.startedAt)), undefined);
      jobs.push({
        ...gangOf(name, group, notes),
        startedAt,
        placement: group.map((p) => ({ node: p.node, gpuCount: p.gpu })),
      });
      const kind = head.owner?.kind ?? 'Pod (no owner)';
      ownerKinds.set(kind, (ownerKinds.get(kind) ?? 0) + 1);
      for (const p of group) quotaSources.set(p.quotaFrom, (quotaSources.get(p.quotaFrom) ?? 0) + 1);
    }
  }
  const list = (m: Map<string, number>): string => [...m].map(([k, n]) => `${n} ${k}`).join(', ') || 'none';
  out.mapped.push(
    `pods: Running with spec.nodeName and GPUs → ${jobs.length} job(s) by controlling owner (${list(ownerKinds)}); GPUs from limits (requests when no limit), cpu and memory from requests (limits when no request)`,
  );
  out.mapped.push(
    `quota per pod from ${list(quotaSources)}; workspace from ${opts.workspaceFrom.join(', ')}; module from label ${opts.moduleLabel}, else the owner's kind (${describeModuleMap(opts.moduleMap ?? DEFAULT_OWNER_MODULES)}), else ${opts.module}`,
  );
  out.mapped.push(`priority: ${describePriorityMap(opts.priorityMap)} (a pod without spec.priority counts as 0)`);
  out.mapped.push('placement: node and GPU count per pod (Kubernetes does not say which GPU indices a pod holds); Quotient assigns indices when it loads the snapshot and says so in answers');
  return jobs;
}

/** The fields a running and a waiting job share, from the first pod of its gang (`group`). */
export function gangOf(name: string, group: PodFacts[], notes: string[]): ImportedGang {
  const head = group[0]!;
  return {
    name,
    workspace: head.workspace,
    quota: head.quota,
    module: head.module,
    priority: head.priority,
    pods: group.length,
    resources: { gpu: head.gpu, ...(head.cpu !== undefined ? { cpu: head.cpu } : {}), ...(head.memory !== undefined ? { memory: head.memory } : {}) },
    origin: where(head.sd, head.path),
    notes,
  };
}
