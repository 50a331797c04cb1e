/**
 * `import kubectl` names a Deployment's job after the Deployment, never after its
 * ReplicaSet, whose name changes on every rollout (issue 27 item 20; kubectl-owner.ts):
 * through a ReplicaSet in the input and its owner, else by the pod-template-hash suffix
 * rule. A ReplicaSet of no Deployment stays the owner.
 */
import { describe, expect, it } from 'vitest';
import { importKubectl } from '../../../src/interop/import-kubectl.js';
import { KUBECTL_DEFAULTS } from '../../helpers/kubectl-options.js';

const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n0' }, status: { allocatable: { 'nvidia.com/gpu': '8' } } };
function pod(name: string, rs: string, hash: string | undefined): unknown {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'serve',
      labels: hash === undefined ? {} : { 'pod-template-hash': hash },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs, controller: true }],
    },
    spec: { nodeName: 'n0', containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
    status: { phase: 'Running' },
  };
}
const replicaSet = (name: string, deployment: string) => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name, namespace: 'serve', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment, controller: true }] },
});
const run = (...items: unknown[]) => importKubectl({ path: 'state.json', text: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [node, ...items] }) }, KUBECTL_DEFAULTS);

describe('import kubectl: a Deployment', () => {
  it('names the job after the Deployment by the pod-template-hash suffix, the same before and after a rollout', () => {
    const before = run(pod('llm-7d9f8b6c5-abcde', 'llm-7d9f8b6c5', '7d9f8b6c5'), pod('llm-7d9f8b6c5-fghij', 'llm-7d9f8b6c5', '7d9f8b6c5'));
    const after = run(pod('llm-5b4c3d2e1-klmno', 'llm-5b4c3d2e1', '5b4c3d2e1'), pod('llm-5b4c3d2e1-pqrst', 'llm-5b4c3d2e1', '5b4c3d2e1'));
    expect(before.report.findings).toEqual([]);
    expect(before.jobs.map((j) => [j.name, j.module, j.pods])).toEqual([['serve/llm', 'EAS', 2]]);
    expect(after.jobs.map((j) => j.name)).toEqual(['serve/llm']);
    expect(before.jobs[0]!.notes[0]).toContain('Deployment serve/llm (ReplicaSet llm-7d9f8b6c5 less its pod-template-hash 7d9f8b6c5)');
  });

  it("names it after the ReplicaSet's owner when the input holds the ReplicaSet (a hyphenated Deployment, no label needed)", () => {
    const r = run(replicaSet('my-api-v2-6f5e4d', 'my-api-v2'), pod('my-api-v2-6f5e4d-aaaaa', 'my-api-v2-6f5e4d', undefined));
    expect(r.jobs.map((j) => j.name)).toEqual(['serve/my-api-v2']);
    expect(r.skipped.filter((s) => s.kind === 'ReplicaSet')).toEqual([]);
  });

  it('keeps a ReplicaSet of no Deployment (no matching hash, no owner in the input) as the owner', () => {
    const r = run(pod('hand-made-x1', 'hand-made', undefined), pod('odd-9-y1', 'odd-9', 'zzz'));
    expect(r.jobs.map((j) => j.name).sort()).toEqual(['serve/hand-made', 'serve/odd-9']);
  });
});
