/**
 * The smallest policy that loads: one pool, one root quota of 8 GPUs (`Root`) and one
 * workspace (`ws`) on it. Tests of loading add the documents they are about to it.
 */
export const ONE_ROOT = `apiVersion: quotient.dev/v1
kind: QuotaTree
metadata: { name: t }
spec:
  pool: { name: p }
  quotas:
    - name: Root
      min: { gpu: 8 }
---
apiVersion: quotient.dev/v1
kind: Workspace
metadata: { name: ws }
spec: { quotas: [Root] }
`;
