/**
 * The owner a pod's job is named after. A Deployment's pods are owned by a ReplicaSet
 * named `<deployment>-<pod-template-hash>`, and that name changes on every rollout: a job
 * named after it would be a new job each time the Deployment changes its pods. So a pod
 * owned by a ReplicaSet is the Deployment's when either
 *
 *   - the input holds that ReplicaSet (`kubectl get nodes,pods,replicasets -A -o json`) and its
 *     controlling owner is a Deployment: named after that owner; or
 *   - the pod's `pod-template-hash` label is the ReplicaSet name's last `-` part (the
 *     Deployment controller names its ReplicaSets so): the name without that suffix.
 *
 * Any other ReplicaSet (one made by hand, or by another controller) stays the owner.
 */
import type { KubectlOptions, PodFacts } from './kubectl-types.js';
import { importedName } from './imported-name.js';
import { asObject } from './located-json.js';
import { moduleOfOwner, DEFAULT_OWNER_MODULES } from './owner-module.js';

/** The label the Deployment controller puts on its pods and in its ReplicaSets' names. */
export const POD_TEMPLATE_HASH = 'pod-template-hash';

/** ReplicaSets of the input owned by a Deployment: `namespace\0name` → the Deployment's name. */
export type ReplicaSetOwners = Map<string, string>;

/** Records a ReplicaSet object's controlling Deployment, when it has one. */
export function noteReplicaSet(obj: Record<string, unknown>, owners: ReplicaSetOwners): void {
  const meta = asObject(obj.metadata) ?? {};
  if (typeof meta.name !== 'string') return;
  const refs: unknown[] = Array.isArray(meta.ownerReferences) ? meta.ownerReferences : [];
  const owner = refs.map(asObject).find((r) => r?.controller === true && r.kind === 'Deployment' && typeof r.name === 'string');
  if (owner) owners.set(`${typeof meta.namespace === 'string' ? meta.namespace : ''}\u0000${meta.name}`, owner.name as string);
}

/**
 * Lifts a pod owned by a Deployment's ReplicaSet to the Deployment (the rules above), in
 * place: its owner, and its module when the module came from the owner's kind. `raw` is the
 * pod as read (its labels, its raw namespace and owner name).
 */
export function liftToDeployment(pod: PodFacts, raw: Record<string, unknown>, owners: ReplicaSetOwners, opts: KubectlOptions): void {
  if (pod.owner?.kind !== 'ReplicaSet') return;
  const meta = asObject(raw.metadata) ?? {};
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  const rs = rawOwnerName(meta);
  if (rs === undefined) return;
  let deployment = owners.get(`${namespace}\u0000${rs}`);
  let via = `the ReplicaSet ${rs}'s owner`;
  if (deployment === undefined) {
    const hash = asObject(meta.labels)?.[POD_TEMPLATE_HASH];
    if (typeof hash !== 'string' || hash === '' || !rs.endsWith(`-${hash}`) || rs.length === hash.length + 1) return;
    deployment = rs.slice(0, -(hash.length + 1));
    via = `ReplicaSet ${rs} less its ${POD_TEMPLATE_HASH} ${hash}`;
  }
  const safe = importedName(deployment);
  pod.directOwner = pod.owner;
  pod.owner = { kind: 'Deployment', name: safe.name };
  pod.ownerVia = via;
  if (pod.moduleFrom.startsWith('owner kind')) {
    const chosen = moduleOfOwner('Deployment', opts.moduleMap ?? DEFAULT_OWNER_MODULES, opts.module);
    pod.module = chosen.module;
    pod.moduleFrom = chosen.from;
  }
}

/** The raw name of the pod's controlling owner (else its first), as ownerOf chooses it. */
function rawOwnerName(meta: Record<string, unknown>): string | undefined {
  const refs: unknown[] = Array.isArray(meta.ownerReferences) ? meta.ownerReferences : [];
  let at = refs.findIndex((r) => asObject(r)?.controller === true);
  if (at < 0) at = refs.findIndex((r) => asObject(r) !== undefined);
  const name = at >= 0 ? asObject(refs[at])?.name : undefined;
  return typeof name === 'string' ? name : undefined;
}
