/**
 * Which snapshot a policy was asked against when files named beside its folder added or
 * replaced the Cluster (`quotient whatif policy/ cluster.yaml`, or the snapshot command of
 * `quotient serve`): every answer names it, so a user never mistakes the folder's example
 * snapshot for the live one, or the reverse.
 */
import type { Policy } from '../model/policy.js';

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
