/**
 * The two-team policy of the queue unit tests (test/unit/engine/queue-*.test.ts): a
 * Cluster with a queue given as flow-style YAML lines, and an 8-GPU request of team-a.
 */
const TREE = `apiVersion: quotient.dev/v1
kind: QuotaTree
metadata: { name: t }
spec:
  pool: { name: p }
  quotas:
    - name: Root
      min: { gpu: 32 }
      children:
        - { name: A, min: { gpu: 16 }, queueStrategy: fifo }
        - { name: B, min: { gpu: 16 } }
---
apiVersion: quotient.dev/v1
kind: Workspace
metadata: { name: team-a }
spec:
  quotas: [A]
  modules: [DLC]
  members: [{ user: alice, role: developer }]
---
apiVersion: quotient.dev/v1
kind: Workspace
metadata: { name: team-b }
spec:
  quotas: [A, B]
  members: [{ user: bob, role: developer }]
`;

/** A (fifo) runs 8 of its 16 GPUs; `queue` lines go into the Cluster. */
export function policy(queue: string[]): string {
  return `${TREE}---
apiVersion: quotient.dev/v1
kind: Cluster
metadata: { name: c }
spec:
  at: 2026-11-20T12:00:00Z
  nodeGroups: [ { prefix: n-, count: 4, gpus: 8, pool: p } ]
  jobs:
    - { name: a-run, workspace: team-a, quota: A, module: DLC, priority: 5, resources: { gpu: 8 }, placement: [ { node: n-0, gpus: [0,1,2,3,4,5,6,7] } ] }
${queue.length ? `  queue:\n${queue.map((q) => `    - ${q}`).join('\n')}\n` : ''}`;
}

/** b-secret (team-b) heads A's fifo queue and cannot run (16 GPUs: A would use 24 of 16); b-small (team-b, B) runs now. */
export const QUEUE = [
  '{ name: b-secret, workspace: team-b, quota: A, module: DLC, priority: 5, pods: 2, resources: { gpu: 8 }, submittedAt: 2026-11-20T11:00:00Z }',
  '{ name: b-small, workspace: team-b, quota: B, module: DLC, priority: 5, resources: { gpu: 8 }, submittedAt: 2026-11-20T11:30:00Z }',
];

/** A request for an 8-GPU priority-5 job of team-a on A, with `over` changed. */
export const submit = (name: string, over: Record<string, unknown> = {}) => ({ submit: { name, workspace: 'team-a', quota: 'A', module: 'DLC', priority: 5, resources: { gpu: 8 }, ...over } });
