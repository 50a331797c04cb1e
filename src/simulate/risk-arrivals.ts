/**
 * The arrivals `quotient risk` asks about (docs/risk.md "Arrivals"): plausible
 * submissions, drawn with a seeded generator so the same seed draws the same arrivals.
 *
 * Two sources. The policy itself (the default): every submission its workspaces may make
 * — a workspace, one of its quotas, a module both allow, submitted by one of its members
 * (by no one named, when it lists none) — at any priority 1-9 and in the gang shapes the nodes can hold, each
 * equally likely. Or a trace (`--trace`): its jobs' own mix, each row equally likely, so
 * a team that submits often weighs as it does in the trace. Spot jobs bid on a market and
 * never preempt a quota job (SEMANTICS 6): they are left out of a trace's mix.
 */
import type { JobSpec, Module, Policy } from '../model/policy.js';
import type { Source } from '../model/source.js';
import { Random } from './random.js';
import type { SimJob } from './workload.js';

const GENERATED: Source = { file: '(risk arrivals)', line: 1, column: 1, path: '' };

/** Per-pod GPU counts of generated arrivals (kept within the largest node). */
export const ARRIVAL_GPUS = [1, 2, 4, 8] as const;
/** Pod counts of generated arrivals. */
export const ARRIVAL_PODS = [1, 2, 4] as const;

/** One kind of submission a policy allows: who may send what where. */
export interface ArrivalKind {
  workspace: string;
  quota: string;
  module: Module;
  users: string[];
}

/** The submissions the policy's workspaces may make (workspace × quota × module), in the policy's order; `users` empty when the workspace lists no members. */
export function arrivalKinds(policy: Policy): ArrivalKind[] {
  const kinds: ArrivalKind[] = [];
  for (const w of policy.workspaces) {
    // A workspace that lists no members takes jobs that name no submitter (membership is then not checked).
    const users = w.members.map((m) => m.user);
    for (const q of w.quotas) {
      const allowed = policy.quotas.find((x) => x.name === q)?.allowedModules;
      for (const m of w.modules) if (!allowed || allowed.values.includes(m)) kinds.push({ workspace: w.name, quota: q, module: m, users });
    }
  }
  return kinds;
}

/** Where the arrivals come from. */
export type ArrivalSource = { kind: 'policy' } | { kind: 'trace'; path: string; jobs: readonly SimJob[] };

/** `n` arrivals drawn from `source` with `seed`; each named `arrival-<i>` (a name no running job has: see `arrivalName`). */
export function sampleArrivals(policy: Policy, source: ArrivalSource, n: number, seed: number, taken: ReadonlySet<string>): JobSpec[] {
  const rng = new Random(seed);
  const out: JobSpec[] = [];
  const maxGpu = Math.max(1, ...(policy.cluster?.nodes ?? []).map((x) => x.gpus));
  const kinds = arrivalKinds(policy);
  const trace = source.kind === 'trace' ? source.jobs.filter((j) => !j.spot) : [];
  for (let i = 0; i < n; i++) {
    const name = arrivalName(i, taken);
    if (source.kind === 'trace') {
      if (trace.length === 0) break;
      const j = trace[rng.int(0, trace.length - 1)]!;
      out.push({ ...j.spec, name, src: GENERATED });
      continue;
    }
    if (kinds.length === 0) break;
    const k = kinds[rng.int(0, kinds.length - 1)]!;
    const gpus = ARRIVAL_GPUS.filter((g) => g <= maxGpu);
    out.push({
      name,
      workspace: k.workspace,
      quota: k.quota,
      module: k.module,
      priority: rng.int(1, 9),
      pods: ARRIVAL_PODS[rng.int(0, ARRIVAL_PODS.length - 1)]!,
      resources: { gpu: gpus[rng.int(0, gpus.length - 1)]! },
      idleResources: 'none',
      ...(k.users.length ? { submittedBy: k.users[rng.int(0, k.users.length - 1)]! } : {}),
      src: GENERATED,
    });
  }
  return out;
}

/** `arrival-<i>`, or with `-x` added until no running or queued job has the name. */
export function arrivalName(i: number, taken: ReadonlySet<string>): string {
  let name = `arrival-${i + 1}`;
  while (taken.has(name)) name = `${name}-x`;
  return name;
}
