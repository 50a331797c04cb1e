/**
 * Checks of SEMANTICS section 11 on one answer: given the snapshot the engine answered
 * against and its answer, each function returns the violations it finds (empty = holds).
 * They recompute everything from the model, independently of the engine's bookkeeping
 * (no engine usage function is called here).
 */
import type { Answer } from '../../src/engine/answer.js';
import type { Session } from '../../src/engine/session.js';
import type { RunningJob, Standing } from '../../src/model/policy.js';

/** Invariants 1 and 8: GPUs allocated once, within the node, in the quota's pool, gang whole. */
export function checkPlacement(session: Session, answer: Answer, pods: number, gpuPerPod: number, quota: string): string[] {
  const snap = session.snapshot!;
  const out: string[] = [];
  if (answer.decision === 'wait' || answer.decision === 'reject') {
    if (answer.placement.length) out.push('a waiting or rejected job has a placement');
    return out;
  }
  if (answer.placement.length !== pods) out.push(`gang placed partly: ${answer.placement.length} of ${pods} pods (invariant 8)`);
  const victims = new Set(answer.victims.map((v) => v.job));
  const used = new Map<string, Set<number>>();
  for (const job of snap.jobs) {
    if (victims.has(job.name)) continue;
    for (const p of job.placement) {
      const s = used.get(p.node) ?? new Set<number>();
      used.set(p.node, s);
      for (const g of p.gpus) s.add(g);
    }
  }
  const pool = snap.poolOf(quota).name;
  for (const p of answer.placement) {
    const node = snap.cluster.nodes.find((n) => n.name === p.node);
    if (!node) {
      out.push(`placement on unknown node ${p.node}`);
      continue;
    }
    if (node.pool !== pool) out.push(`pod on ${p.node} of pool ${node.pool}, quota's pool is ${pool} (invariant 8)`);
    if (p.gpus.length !== gpuPerPod) out.push(`pod on ${p.node} got ${p.gpus.length} GPUs, asked ${gpuPerPod}`);
    const s = used.get(p.node) ?? new Set<number>();
    used.set(p.node, s);
    for (const g of p.gpus) {
      if (g >= node.gpus) out.push(`GPU ${g} beyond node ${p.node} (${node.gpus} GPUs)`);
      if (s.has(g)) out.push(`GPU ${g} of ${p.node} allocated twice (invariant 1)`);
      s.add(g);
    }
  }
  return out;
}

/**
 * Invariant 2 on the state after the answer (victims gone, the job running as answered),
 * recomputed from the policy's quota names alone — its own subtree walk, not the
 * engine's `countsAt` or usage table — so a wrong usage rule in the engine cannot hide:
 *   - the in-quota usage of A's subtree is at most A.min;
 *   - counting borrowers too, usage exceeds A.min only at a borrower's own quota;
 *   - and there by at most what A's own borrowers borrowed (their GPUs);
 *   - so never at the parent a borrower borrowed through.
 */
export function checkQuotas(session: Session, answer: Answer, newJob: { quota: string; pods: number; gpu: number }): string[] {
  const snap = session.snapshot!;
  const victims = new Set(answer.victims.map((v) => v.job));
  const jobs: Array<{ quota: string; standing: Standing; gpus: number }> = snap.jobs
    .filter((j) => !victims.has(j.name))
    .map((j: RunningJob) => ({ quota: j.quota, standing: j.standing, gpus: j.pods * j.resources.gpu }));
  if (answer.standing) jobs.push({ quota: newJob.quota, standing: answer.standing, gpus: newJob.pods * newJob.gpu });
  const parentOf = new Map(session.policy.quotas.map((q) => [q.name, q.parent]));
  const within = (quota: string, a: string): boolean => {
    for (let x: string | null | undefined = quota; x; x = parentOf.get(x)) if (x === a) return true;
    return false;
  };
  const out: string[] = [];
  for (const q of session.policy.quotas) {
    let inQuota = 0;
    let all = 0;
    let ownBorrowed = 0;
    for (const j of jobs) {
      if (j.standing === 'idle' || !within(j.quota, q.name)) continue;
      all += j.gpus;
      if (j.standing === 'in-quota') inQuota += j.gpus;
      else if (j.quota === q.name) ownBorrowed += j.gpus;
    }
    if (inQuota > q.min.gpu) out.push(`in-quota usage of ${q.name} is ${inQuota} > min ${q.min.gpu} (invariant 2)`);
    if (all > q.min.gpu && ownBorrowed === 0)
      out.push(`usage of ${q.name} counting borrowers is ${all} > min ${q.min.gpu}, and no borrower runs on ${q.name} itself: over at a quota borrowed through (invariant 2)`);
    else if (all - q.min.gpu > ownBorrowed)
      out.push(`usage of ${q.name} counting borrowers is ${all - q.min.gpu} over min ${q.min.gpu}, more than the ${ownBorrowed} its own borrowers borrowed (invariant 2)`);
  }
  return out;
}
