/**
 * A quota's `max` (SEMANTICS 3) and `borrowing` (SEMANTICS 5.2) as the loader reads
 * them: the values the model gets, and each bad input as a finding with its code at the
 * marked place (never message text).
 */
import { describe, expect, it } from 'vitest';
import { located, markedPolicy } from '../../helpers/marked-policy.js';

const FILE = 'policy.yaml';

/** Root 16 over A (8, a ceiling of 12 GPUs and 64 cpu) and B (8, no selfPreemption but borrowing 1-9). */
const BASE = `apiVersion: quotient.dev/v1
kind: QuotaTree
metadata: { name: t }
spec:
  pool: { name: p }
  quotas:
    - name: Root
      min: { gpu: 16 }
      children:
        - name: A
          min: { gpu: 8, cpu: 32 }
          max: { gpu: 12, cpu: 64 }
          selfPreemption: { highPriority: 6-9, lowPriority: 1-5, modules: [DLC] }
        - name: B
          min: { gpu: 8 }
          borrowing: { priority: 1-9 }
---
apiVersion: quotient.dev/v1
kind: Workspace
metadata: { name: ws }
spec:
  quotas: [A, B]
  modules: [DLC]
---
apiVersion: quotient.dev/v1
kind: Cluster
metadata: { name: c }
spec:
  at: 2026-11-20T12:00:00Z
  nodes:
    - { name: n-0, gpus: 8, pool: p }
    - { name: n-1, gpus: 8, pool: p }
  jobs:
    - name: j1
      workspace: ws
      quota: A
      module: DLC
      priority: 5
      pods: 1
      resources: { gpu: 8 }
      standing: in-quota
      placement:
        - { node: n-0, gpus: [0, 1, 2, 3, 4, 5, 6, 7] }
`;

const { variant, load } = markedPolicy(BASE, FILE);

/** Loads a marked variant and returns its findings of `severity` and the one mark. */
function findingsAt(marked: string, severity: 'error' | 'warning') {
  const { text, marks } = located(marked);
  expect(marks, 'a case marks exactly one place').toHaveLength(1);
  const { policy, findings } = load(text);
  return { policy, found: findings.filter((f) => f.severity === severity), mark: marks[0]! };
}

describe('max and borrowing in a QuotaTree', () => {
  it('reads max as a ceiling vector and borrowing.priority as a range', () => {
    const { policy, findings } = load(BASE);
    expect(findings).toEqual([]);
    const a = policy!.quotas.find((q) => q.name === 'A')!;
    expect(a.max).toEqual({ gpu: 12, cpu: 64_000 });
    expect(a.maxSrc).toMatchObject({ file: FILE, line: 12 });
    expect(a.borrowing).toBeUndefined();
    const b = policy!.quotas.find((q) => q.name === 'B')!;
    expect(b.max).toBeUndefined();
    expect(b.borrowing?.priority).toEqual({ lo: 1, hi: 9 });
  });

  it.each([
    { name: 'max below min', yaml: variant(['max: { gpu: 12, cpu: 64 }', 'max: { gpu: «4, cpu: 64 }']), code: 'policy/max-below-min', path: 'spec.quotas[0].children[0].max.gpu' },
    { name: 'max cpu below min cpu', yaml: variant(['max: { gpu: 12, cpu: 64 }', 'max: { gpu: 12, cpu: «16 }']), code: 'policy/max-below-min', path: 'spec.quotas[0].children[0].max.cpu' },
    { name: 'max naming no resource', yaml: variant(['max: { gpu: 12, cpu: 64 }', 'max: «{}']), code: 'policy/max-empty', path: 'spec.quotas[0].children[0].max' },
    { name: 'a max cpu that is not a quantity', yaml: variant(['max: { gpu: 12, cpu: 64 }', 'max: { gpu: 12, cpu: «lots }']), code: 'policy/bad-quantity', path: 'spec.quotas[0].children[0].max.cpu' },
    { name: 'a fractional max.gpu', yaml: variant(['max: { gpu: 12, cpu: 64 }', 'max: { gpu: «12.5, cpu: 64 }']), code: 'policy/invalid-type', path: 'spec.quotas[0].children[0].max.gpu' },
    {
      name: 'a borrowing priority out of 1..9',
      yaml: variant(['borrowing: { priority: 1-9 }', 'borrowing: { priority: «0-9 }']),
      code: 'policy/priority-out-of-range',
      path: 'spec.quotas[0].children[1].borrowing.priority',
    },
    {
      name: 'an unknown field under borrowing',
      yaml: variant(['borrowing: { priority: 1-9 }', 'borrowing: { priority: 1-9, «priorty: 2 }']),
      code: 'policy/unknown-field',
      path: 'spec.quotas[0].children[1].borrowing.priorty',
    },
  ])('refuses $name with $code at the field', ({ yaml, code, path }) => {
    const { policy, found, mark } = findingsAt(yaml, 'error');
    expect(found).toEqual([expect.objectContaining({ file: FILE, code, path, line: mark.line, column: mark.column })]);
    expect(policy).toBeUndefined();
  });

  it.each([
    {
      name: 'borrowing on a root, which has nobody to borrow from',
      yaml: variant(['      min: { gpu: 16 }\n', '      min: { gpu: 16 }\n      borrowing: «{ priority: 1-9 }\n']),
      code: 'policy/borrowing-on-root',
    },
    {
      name: 'a borrowing range that leaves out part of highPriority',
      yaml: variant(['          selfPreemption: { highPriority: 6-9', '          borrowing: { priority: «8-9 }\n          selfPreemption: { highPriority: 6-9']),
      code: 'policy/borrowing-narrows-high-priority',
    },
  ])('warns about $name ($code), and loads', ({ yaml, code }) => {
    const { policy, found, mark } = findingsAt(yaml, 'warning');
    expect(found).toEqual([expect.objectContaining({ file: FILE, code, line: mark.line, column: mark.column })]);
    expect(policy).toBeDefined();
  });
});
