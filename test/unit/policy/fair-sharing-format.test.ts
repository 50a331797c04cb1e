/**
 * The policy format's fair-sharing fields under `rules: kueue` (SEMANTICS 13,
 * docs/fair-sharing.md): the tree's `fairSharing: { preemptionStrategies }` and each
 * quota's `fairSharing: { weight }`, read into the model and into the KueueState fair
 * preemption decides on; each of Kueue's rules on them a located finding (code and place,
 * marked `«`, never message text).
 */
import { describe, expect, it } from 'vitest';
import { FAIR_PREEMPTION_STRATEGIES } from '../../../src/rules/kueue/kueue-state.js';
import { KUEUE_FAIR_PREEMPTION_STRATEGIES } from '../../../src/model/kueue-policy.js';
import { parseWeight } from '../../../src/policy/build/build-fair-sharing.js';
import { buildKueueState } from '../../../src/rules/kueue/build-kueue-state.js';
import type { Finding } from '../../../src/errors.js';
import { located, markedPolicy } from '../../helpers/marked-policy.js';

const FILE = 'fair.yaml';

const cq = (name: string, gpus: number, more = ''): string => `        - name: ${name}
          resourceGroups:
            - coveredResources: [nvidia.com/gpu]
              flavors:
                - name: a100
                  resources:
                    - { name: nvidia.com/gpu, nominalQuota: ${gpus} }
          preemption: { reclaimWithinCohort: Any }
${more}`;

/** Kueue's issue example: weights 2, 1 (default) and 0, both strategies, a cohort weight as a quantity. */
const BASE = `apiVersion: quotient.dev/v1
kind: QuotaTree
metadata: { name: tree }
spec:
  rules: kueue
  pool: { name: p }
  flavors:
    - { name: a100 }
  fairSharing:
    preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]
  quotas:
    - name: org
      fairSharing: { weight: "500m" }
      children:
${cq('research', 8, '          fairSharing: { weight: 2 }\n')}${cq('vision', 8)}${cq('batch', 0, '          fairSharing: { weight: 0 }\n')}---
apiVersion: quotient.dev/v1
kind: Workspace
metadata: { name: ws }
spec:
  quotas: [research, vision, batch]
---
apiVersion: quotient.dev/v1
kind: Cluster
metadata: { name: c }
spec:
  at: 2026-11-20T12:00:00Z
  nodes:
    - { name: a-0, gpus: 8, pool: p }
    - { name: a-1, gpus: 8, pool: p }
  jobs:
    - name: j1
      workspace: ws
      quota: vision
      module: DLC
      priority: 100
      resources: { gpu: 8 }
      placement:
        - { node: a-0, gpus: [0, 1, 2, 3, 4, 5, 6, 7] }
`;

const { variant, load } = markedPolicy(BASE, FILE);

/** A PAI-rules tree (its quotas have min, so the clauses are read) with `tree` and `quota` lines added. */
function paiTree(tree: string, quota: string): string {
  return `apiVersion: quotient.dev/v1
kind: QuotaTree
metadata: { name: pai }
spec:
  pool: { name: p }
${tree}  quotas:
    - name: org
      min: { gpu: 8 }
${quota}`;
}

const STRATEGIES = '    preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]\n';

const cases: Array<{ name: string; yaml: string; code: string; path?: string }> = [
  {
    name: 'strategies in the other order (not a list Kueue accepts)',
    yaml: variant([STRATEGIES, '    preemptionStrategies: «[LessThanInitialShare, LessThanOrEqualToFinalShare]\n']),
    code: 'policy/kueue-fair-strategies',
    path: 'spec.fairSharing.preemptionStrategies',
  },
  {
    name: 'a strategy named twice',
    yaml: variant([STRATEGIES, '    preemptionStrategies: «[LessThanInitialShare, LessThanInitialShare]\n']),
    code: 'policy/kueue-fair-strategies',
  },
  {
    name: 'a strategy Kueue does not have',
    yaml: variant([STRATEGIES, '    preemptionStrategies: [«LessThanFinalShare]\n']),
    code: 'policy/invalid-value',
    path: 'spec.fairSharing.preemptionStrategies[0]',
  },
  {
    name: 'a weight that is not a quantity',
    yaml: variant(['      fairSharing: { weight: "500m" }\n', '      fairSharing: { weight: «"half" }\n']),
    code: 'policy/kueue-bad-weight',
    path: 'spec.quotas[0].fairSharing.weight',
  },
  {
    name: 'a weight at or below 10^-9 but not 0',
    yaml: variant(['          fairSharing: { weight: 2 }\n', '          fairSharing: { weight: «0.0000000001 }\n']),
    code: 'policy/kueue-bad-weight',
    path: 'spec.quotas[0].children[0].fairSharing.weight',
  },
  {
    name: 'a negative weight',
    yaml: variant(['          fairSharing: { weight: 2 }\n', '          fairSharing: { weight: «-1 }\n']),
    code: 'policy/out-of-range',
  },
  {
    name: "the tree's fairSharing under rules: pai",
    yaml: paiTree('  «fairSharing: {}\n', ''),
    code: 'policy/kueue-clause-under-pai',
    path: 'spec.fairSharing',
  },
  {
    name: "a quota's fairSharing under rules: pai",
    yaml: paiTree('', '      fairSharing: «{ weight: 2 }\n'),
    code: 'policy/kueue-clause-under-pai',
    path: 'spec.quotas[0].fairSharing',
  },
];

describe('fair sharing in the policy format', () => {
  it("loads weights 2, 1 (default), 0 and 500m and both strategies, into the model and into Kueue's state", () => {
    const { policy, findings } = load(BASE);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    const pool = policy!.pools.find((p) => p.name === 'p')!;
    expect(pool.fairSharing!.strategies).toEqual(['LessThanOrEqualToFinalShare', 'LessThanInitialShare']);
    const weight = (q: string): number | undefined => policy!.quotas.find((x) => x.name === q)!.kueue!.fairSharing?.weight;
    expect([weight('org'), weight('research'), weight('vision'), weight('batch')]).toEqual([0.5, 2, undefined, 0]);
    expect(policy!.quotas.find((x) => x.name === 'research')!.kueue!.fairSharing!.src.line).toBe(23);
    const { state } = buildKueueState({ pool, quotas: policy!.quotas, nodes: policy!.cluster!.nodes, jobs: policy!.cluster!.jobs });
    expect(['org', 'research', 'vision', 'batch'].map((n) => state.nodes.get(n)!.weight)).toEqual([0.5, 2, 1, 0]);
    expect(state.fairSharing).toEqual({ strategies: ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'] });
  });

  it("defaults to Kueue's strategies (both) when fairSharing names none, and is off without fairSharing", () => {
    const on = load(variant([STRATEGIES, '    {}\n'], ['  fairSharing:\n    {}\n', '  fairSharing: {}\n']));
    expect(on.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(on.policy!.pools[0]!.fairSharing!.strategies).toEqual(['LessThanOrEqualToFinalShare', 'LessThanInitialShare']);
    const off = load(variant(['  fairSharing:\n' + STRATEGIES, '']));
    expect(off.policy!.pools[0]!.fairSharing).toBeUndefined();
    const { state } = buildKueueState({ pool: off.policy!.pools[0]!, quotas: off.policy!.quotas, nodes: off.policy!.cluster!.nodes, jobs: off.policy!.cluster!.jobs });
    expect(state.fairSharing).toBeUndefined();
  });

  it('accepts each list Kueue accepts', () => {
    for (const list of ['[LessThanOrEqualToFinalShare]', '[LessThanInitialShare]']) {
      const { policy, findings } = load(variant([STRATEGIES, `    preemptionStrategies: ${list}\n`]));
      expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
      expect(`[${policy!.pools[0]!.fairSharing!.strategies.join(', ')}]`).toBe(list);
    }
  });

  it.each(cases.map((c) => [c.name, c] as const))('reports %s with its code and location', (_name, c) => {
    const { text, marks } = located(c.yaml);
    expect(marks, 'a case marks exactly one place').toHaveLength(1);
    const { findings } = load(text);
    const want: Partial<Finding> = { file: FILE, code: c.code, line: marks[0]!.line, column: marks[0]!.column };
    if (c.path !== undefined) want.path = c.path;
    expect(findings.filter((f) => f.severity === 'error')).toContainEqual(expect.objectContaining(want));
  });

  it('reads a weight as Kubernetes writes a quantity', () => {
    expect(['2', '0.5', '500m', '.25', '0', 1.5, 'x', '-1', '1e3'].map((v) => parseWeight(v))).toEqual([2, 0.5, 0.5, 0.25, 0, 1.5, undefined, undefined, undefined]);
  });

  it("names the strategies as Kueue's rules do (the model's list is the rules layer's)", () => {
    expect([...KUEUE_FAIR_PREEMPTION_STRATEGIES]).toEqual([...FAIR_PREEMPTION_STRATEGIES]);
  });
});
