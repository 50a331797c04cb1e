/**
 * Saying on a terminal which snapshot a policy was asked against when files named beside its folder
 * added or replaced the Cluster (`quotient whatif policy/ cluster.yaml`): a user must
 * never mistake the folder's example snapshot for the live one they imported, or the
 * reverse.
 */
import { snapshotOf, type AnswerSnapshot } from '../engine/answer-snapshot.js';
import type { Policy } from '../model/policy.js';
import { display } from '../model/display-text.js';
import { log } from './output.js';

/** One sentence: `snapshot "imported" (at …) from cluster.yaml, replacing the Cluster of policy/cluster.yaml`. */
export function describeSnapshot(s: AnswerSnapshot): string {
  const replaced = s.replaced.length ? `, replacing the Cluster of ${s.replaced.join(', ')}` : ', added to the policy (its folder has no Cluster)';
  return `snapshot "${s.name}" (at ${s.at}) from ${s.files.join(', ')}${replaced}`;
}

/** Says on stderr which snapshot `policy` (labelled `label`) uses, when files named beside its folder hold it. */
export function noteSnapshot(label: string, policy: Policy | undefined): void {
  const s = policy && snapshotOf(policy);
  if (s) log(display`quotient: ${label}: ${describeSnapshot(s)}`);
}
