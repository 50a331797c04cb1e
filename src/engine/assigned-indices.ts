/**
 * Answers say when GPU indices were Quotient's guess: Kubernetes reports which node a
 * pod runs on and how many GPUs it holds, never which ones, so a snapshot imported from
 * a cluster gives placements as a node and a count and the snapshot assigns indices
 * (snapshot.ts `assignIndices`). Any answer that depends on those indices says so.
 */
import type { Answer } from './answer.js';
import { because } from './reason-codes.js';
import type { Snapshot } from './snapshot.js';

/** The answer with a reason naming how many jobs had assigned indices, and a note on each such victim. */
export function noteAssignedIndices(answer: Answer, snap: Snapshot): Answer {
  // One pass over the running jobs per snapshot state, not per answer.
  const assigned = snap.memo('assigned-indices', () => new Set(snap.jobs.filter((j) => j.placement.some((p) => p.indicesAssigned)).map((j) => j.name)));
  if (assigned.size === 0) return answer;
  const victims = answer.victims.map((v) => (assigned.has(v.job) ? { ...v, reason: `${v.reason}; its GPU indices were assigned by Quotient (the snapshot gave its node and GPU count only)` } : v));
  const reason = `${assigned.size} running job(s) in the snapshot give only a node and a GPU count per pod (Kubernetes does not say which GPUs a pod holds): Quotient assigned their GPU indices, lowest free aligned block first, so placements next to them rest on that assignment`;
  return { ...answer, victims, reasons: [...answer.reasons, because('placement/indices-assigned', reason)] };
}
