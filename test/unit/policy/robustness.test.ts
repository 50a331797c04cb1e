/**
 * Inputs that once reached the engine or a library and failed there with an internal
 * error: each is now a located finding like any other bad input.
 */
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { ONE_ROOT } from '../../helpers/one-root.js';

const cluster = (job: string) => `${ONE_ROOT}---
apiVersion: quotient.dev/v1
kind: Cluster
metadata: { name: c }
spec:
  at: 2026-11-20T12:00:00Z
  nodes: [ { name: n-0, gpus: 8, pool: p } ]
  jobs:
    - ${job}
`;

function firstError(text: string) {
  const { policy, findings } = loadPolicy([{ path: 'p.yaml', text }]);
  expect(policy).toBeUndefined();
  const f = findings.find((x) => x.severity === 'error')!;
  return { code: f.code, line: f.line, column: f.column };
}

describe('robustness of loading', () => {
  it('refuses a pod of more GPUs than any node can have, at the field', () => {
    expect(firstError(cluster('{ name: j, workspace: ws, quota: Root, module: DLC, priority: 5, resources: { gpu: 40 } }'))).toEqual({ code: 'policy/out-of-range', line: 22, column: 90 });
  });

  it('refuses a cpu quantity too large to be a number, at the field', () => {
    expect(firstError(cluster(`{ name: j, workspace: ws, quota: Root, module: DLC, priority: 5, resources: { gpu: 1, cpu: "1${'0'.repeat(400)}" } }`))).toEqual({
      code: 'policy/bad-quantity',
      line: 22,
      column: 98,
    });
  });

  it('refuses a document whose aliases expand without bound, at the document', () => {
    const aliases = Array.from({ length: 120 }, (_, i) => `    - { name: j${i}, gpus: 8, pool: *pool }`).join('\n');
    const text = `${ONE_ROOT}---\napiVersion: quotient.dev/v1\nkind: Cluster\nmetadata: { name: c }\nspec:\n  at: &pool p\n  nodes:\n${aliases}\n`;
    expect(firstError(text).code).toBe('policy/too-many-aliases');
  });

  it('refuses a policy with no QuotaTree, and an empty one, instead of calling them clean', () => {
    expect(firstError('# only a comment\n').code).toBe('policy/no-quota-tree');
    expect(firstError('apiVersion: quotient.dev/v1\nkind: Workspace\nmetadata: { name: ws }\nspec: { quotas: [Root] }\n')).toEqual({ code: 'policy/no-quota-tree', line: 1, column: 1 });
  });

  it('reports each unknown field of one mapping on its own line', () => {
    const { findings } = loadPolicy([{ path: 'p.yaml', text: ONE_ROOT.replace('min: { gpu: 8 }', 'min: { gpu: 8 }\n      minn: 3\n      chidren: []') }]);
    expect(findings.filter((f) => f.code === 'policy/unknown-field').map((f) => [f.line, f.column, f.hint.startsWith('did you mean')])).toEqual([
      [9, 7, true],
      [10, 7, true],
    ]);
  });

  it('reports a missing enum field as missing, not as an unknown value', () => {
    const text = cluster('{ name: j, workspace: ws, quota: Root, priority: 5, resources: { gpu: 1 } }');
    expect(firstError(text).code).toBe('policy/missing-field');
  });
});
