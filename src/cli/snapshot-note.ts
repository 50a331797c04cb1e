/**
 * Saying which snapshot a policy was asked against when files named beside its folder
 * added or replaced the Cluster (`quotient whatif policy/ cluster.yaml`): a user must
 * never mistake the folder's example snapshot for the live one they imported, or the
 * reverse.
 */
import type { Policy } from '../model/policy.js';
import { log } from './output.js';

/** The answer's `snapshot` field; present only when files named beside the folder hold the Cluster. */
export interface AnswerSnapshot {
  /** The Cluster's `metadata.name`. */
  name: string;
  /** The snapshot's time, ISO 8601. */
  at: string;
  /** The files named beside the folder that hold it. */
  files: string[];
  /** The folder's files whose Cluster it replaced (empty: the folder had none). */
  replaced: string[];
}

/** Where the snapshot came from, when files named beside the folder hold it. */
export function snapshotOf(policy: Policy): AnswerSnapshot | undefined {
  const from = policy.snapshotFrom;
  if (!from || !policy.cluster) return undefined;
  return { name: policy.cluster.name, at: new Date(policy.cluster.at).toISOString(), files: from.files, replaced: from.replaced };
}

/** One sentence: `snapshot "imported" (at …) from cluster.yaml, replacing the Cluster of policy/cluster.yaml`. */
export function describeSnapshot(s: AnswerSnapshot): string {
  const replaced = s.replaced.length ? `, replacing the Cluster of ${s.replaced.join(', ')}` : ', added to the policy (its folder has no Cluster)';
  return `snapshot "${s.name}" (at ${s.at}) from ${s.files.join(', ')}${replaced}`;
}

/** Says on stderr which snapshot `policy` (labelled `label`) uses, when files named beside its folder hold it. */
export function noteSnapshot(label: string, policy: Policy | undefined): void {
  const s = policy && snapshotOf(policy);
  if (s) log(`quotient: ${label}: ${describeSnapshot(s)}`);
}
