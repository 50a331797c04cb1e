/** A small Kueue-rules policy for unit tests: two flavors, a cohort of two ClusterQueues, labelled nodes. */
import { loadPolicy } from '../../src/policy/load-policy.js';
import type { Policy } from '../../src/model/policy.js';

export const KUEUE_POLICY = `apiVersion: quotient.dev/v1
kind: QuotaTree
metadata: { name: t }
spec:
  rules: kueue
  pool: { name: p }
  flavors:
    - { name: a100, nodeLabels: { model: a100 } }
    - { name: h100, nodeLabels: { model: h100 } }
    - { name: tainted, nodeLabels: { model: h100 }, nodeTaints: [ { key: only, effect: NoSchedule } ] }
  quotas:
    - name: org
      children:
        - name: A
          resourceGroups:
            - coveredResources: [nvidia.com/gpu, cpu]
              flavors:
                - { name: tainted, resources: [ { name: nvidia.com/gpu, nominalQuota: 64 }, { name: cpu, nominalQuota: 64 } ] }
                - { name: a100, resources: [ { name: nvidia.com/gpu, nominalQuota: 8 }, { name: cpu, nominalQuota: 64 } ] }
                - { name: h100, resources: [ { name: nvidia.com/gpu, nominalQuota: 8 }, { name: cpu, nominalQuota: 64 } ] }
          preemption: { withinClusterQueue: LowerPriority, reclaimWithinCohort: Any }
          flavorFungibility: { whenCanBorrow: TryNextFlavor }
        - name: B
          resourceGroups:
            - coveredResources: [nvidia.com/gpu, cpu]
              flavors:
                - { name: a100, resources: [ { name: nvidia.com/gpu, nominalQuota: 8, lendingLimit: 4 }, { name: cpu, nominalQuota: 64 } ] }
---
apiVersion: quotient.dev/v1
kind: Workspace
metadata: { name: ws }
spec: { quotas: [A, B] }
---
apiVersion: quotient.dev/v1
kind: Cluster
metadata: { name: c }
spec:
  at: 2026-11-20T12:00:00Z
  nodes:
    - { name: a-0, gpus: 8, cpu: 64, pool: p, labels: { model: a100 } }
    - { name: a-1, gpus: 8, cpu: 64, pool: p, labels: { model: a100 } }
    - { name: h-0, gpus: 8, cpu: 64, pool: p, labels: { model: h100 } }
    - { name: x-0, gpus: 8, pool: p }
  jobs:
    - { name: a-run, workspace: ws, quota: A, module: DLC, priority: -5, pods: 2, resources: { gpu: 2, cpu: 4 }, startedAt: 2026-11-20T10:00:00Z, placement: [ { node: a-0, gpus: [0, 1] }, { node: h-0, gpus: [0, 1] } ] }
    - { name: b-run, workspace: ws, quota: B, module: DLC, priority: 7, resources: { gpu: 8 }, startedAt: 2026-11-20T11:00:00Z, placement: [ { node: a-1, gpus: [0,1,2,3,4,5,6,7] } ] }
    - { name: stray, workspace: ws, quota: B, module: DLC, priority: 1, resources: { gpu: 1 }, startedAt: 2026-11-20T11:00:00Z, placement: [ { node: x-0, gpus: [0] } ] }
`;

/** The policy, loaded clean. */
export function kueuePolicy(text = KUEUE_POLICY): Policy {
  const { policy, findings } = loadPolicy([{ path: 'kueue.yaml', text }], { now: Date.parse('2026-11-20T12:00:00Z') });
  const errors = findings.filter((f) => f.severity === 'error');
  if (!policy || errors.length > 0) throw new Error(`the test policy does not load: ${JSON.stringify(errors)}`);
  return policy;
}
