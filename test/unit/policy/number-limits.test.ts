/**
 * Numbers a policy writes, past their limits (policy/parse/number-limits.ts): each is a located
 * finding at the value (`policy/out-of-range`, the limit in the message), and the wording
 * of a number of the wrong kind says what it is (issue 18 items 2 and 6).
 */
import { describe, expect, it } from 'vitest';
import { located, markedPolicy } from '../../helpers/marked-policy.js';
import { ONE_ROOT } from '../../helpers/one-root.js';

const FILE = 'policy.yaml';

/** The one-root policy, a Cluster with a node group and a job, and a SpotMarket with inline series and a synthetic model. */
const BASE = `${ONE_ROOT}---
apiVersion: quotient.dev/v1
kind: Cluster
metadata: { name: c }
spec:
  at: 2026-11-20T12:00:00Z
  nodeGroups:
    - { prefix: n-, count: 2, gpus: 8, pool: p }
  jobs:
    - { name: j1, workspace: ws, quota: Root, module: DLC, priority: 5, pods: 1, resources: { gpu: 4 }, checkpoint: { every: 30m } }
---
apiVersion: quotient.dev/v1
kind: SpotMarket
metadata: { name: m }
spec:
  protectionPeriod: 1h
  synthetic: { every: 1h, seed: 7, inventory: 64 }
  instanceTypes:
    - name: t1
      gpus: 1
      payAsYouGo: 12
      prices: [ { at: 0, price: 3 }, { at: 36h, price: 9 } ]
      inventory: [ { at: 0, count: 16 } ]
`;

const { variant, load } = markedPolicy(BASE, FILE);

/** Loads the marked text; the one error it gives, with where the marker says. */
function oneError(marked: string) {
  const { text, marks } = located(marked);
  const errors = load(text).findings.filter((f) => f.severity === 'error');
  expect(errors).toHaveLength(1);
  expect([errors[0]!.line, errors[0]!.column]).toEqual([marks[0]!.line, marks[0]!.column]);
  return errors[0]!;
}

describe('numbers of a policy past their limits', () => {
  it('accepts the base policy', () => {
    expect(load(BASE).findings.filter((f) => f.severity === 'error')).toEqual([]);
  });

  it.each<[string, [string, string], string]>([
    ['a series time of 1e308 seconds', ['{ at: 36h, price: 9 }', '{ at: «1e308, price: 9 }'], 'spec.instanceTypes[0].prices[1].at'],
    ['a series time past 3650d', ['{ at: 36h, price: 9 }', '{ at: «3651d, price: 9 }'], 'spec.instanceTypes[0].prices[1].at'],
    ['a price past 1,000,000', ['{ at: 36h, price: 9 }', '{ at: 36h, price: «1000001 }'], 'spec.instanceTypes[0].prices[1].price'],
    ['a pay-as-you-go price past 1,000,000', ['payAsYouGo: 12', 'payAsYouGo: «1e9'], 'spec.instanceTypes[0].payAsYouGo'],
    ['an inventory count past 1,000,000', ['count: 16', 'count: «2000000'], 'spec.instanceTypes[0].inventory[0].count'],
    ['a protection period of 20 nines + h', ['protectionPeriod: 1h', `protectionPeriod: «${'9'.repeat(20)}h`], 'spec.protectionPeriod'],
    ['a synthetic step past 3650d', ['every: 1h, seed', 'every: «3651d, seed'], 'spec.synthetic.every'],
    ['a synthetic seed past 2^32-1', ['seed: 7', 'seed: «4294967296'], 'spec.synthetic.seed'],
    ['a negative synthetic seed', ['seed: 7', 'seed: «-1'], 'spec.synthetic.seed'],
    ['a synthetic inventory past 1,000,000', ['inventory: 64', 'inventory: «2000000'], 'spec.synthetic.inventory'],
    ["a running job's checkpoint interval past 3650d", ['every: 30m', 'every: «3651d'], 'spec.jobs[0].checkpoint.every'],
    ['a node group of 1e8 nodes', ['count: 2', 'count: «100000000'], 'spec.nodeGroups[0].count'],
    ['a whole number past 2^53', ['count: 16', 'count: «9007199254740993'], 'spec.instanceTypes[0].inventory[0].count'],
  ])('refuses %s at the value', (_what, edit, path) => {
    const f = oneError(variant(edit));
    expect([f.code, f.path]).toEqual(['policy/out-of-range', path]);
  });

  it('says the limit in the message', () => {
    expect(oneError(variant(['{ at: 36h, price: 9 }', '{ at: «3651d, price: 9 }'])).message).toContain('3650d');
    expect(oneError(variant(['count: 2', 'count: «100000000'])).message).toContain('100,000');
    expect(oneError(variant(['seed: 7', 'seed: «4294967296'])).message).toContain('4,294,967,295');
  });

  it('takes every value at its limit', () => {
    const edge = variant(['{ at: 36h, price: 9 }', '{ at: 3650d, price: 1000000 }'], ['count: 16', 'count: 1000000'], ['seed: 7', 'seed: 4294967295'], ['every: 30m', 'every: 3650d']);
    expect(load(edge).findings.filter((f) => f.severity === 'error')).toEqual([]);
  });
});

describe('the wording of a number of the wrong kind', () => {
  it('calls a fractional count a fraction, not infinity', () => {
    const f = oneError(variant(['count: 16', 'count: «1.5']));
    expect(f.code).toBe('policy/invalid-type');
    expect(f.message).toContain('whole number');
    expect(f.message).toContain('1.5');
    expect(f.message).not.toContain('infinity');
  });

  it('calls protectionPeriod: 0 a number where a duration belongs, not minus infinity', () => {
    const f = oneError(variant(['protectionPeriod: 1h', 'protectionPeriod: «0']));
    expect(f.code).toBe('policy/invalid-type');
    expect(f.message).toContain('duration');
    expect(f.message).not.toContain('infinity');
  });

  it('still says what an infinite number was read as', () => {
    expect(oneError(variant(['count: 16', 'count: «.inf'])).message).toContain('infinity');
  });
});
