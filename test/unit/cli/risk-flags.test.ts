/** cli/risk.ts: its flags and its policy checked, each refusal by code (exit 2 in the CLI). */
import { describe, expect, it } from 'vitest';
import { openRisk, riskFlags } from '../../../src/cli/risk.js';
import { coded } from '../../helpers/codes.js';
import { checkHorizonWork, horizonArrivals, MAX_HORIZON_ARRIVALS } from '../../../src/simulate/risk-horizon.js';

const OK = { samples: '200', seed: '1', runs: '20', rate: '2' };

describe('riskFlags', () => {
  it('reads the defaults and a horizon as milliseconds', () => {
    expect(riskFlags(OK)).toEqual({ samples: 200, seed: 1, runs: 20, rate: 2, horizon: undefined, backend: 'wasm' });
    expect(riskFlags({ ...OK, horizon: '24h' }).horizon).toBe(24 * 3_600_000);
  });

  it.each([
    [{ samples: '0' }, 'cli/bad-samples'],
    [{ samples: 'many' }, 'cli/bad-samples'],
    [{ samples: '100001' }, 'cli/out-of-range'],
    [{ seed: '-1' }, 'cli/bad-seed'],
    [{ runs: '0' }, 'cli/bad-runs'],
    [{ rate: '0' }, 'cli/bad-rate'],
    [{ horizon: 'soon' }, 'cli/bad-horizon'],
    [{ horizon: '0' }, 'cli/bad-horizon'],
    [{ kernel: 'gpu' }, 'cli/bad-kernel'],
  ])('refuses %o with %s', (bad, code) => {
    expect(() => riskFlags({ ...OK, ...bad })).toThrow(coded(code));
  });
});

describe('openRisk', () => {
  it('refuses a user the policy does not list, and a policy without a Cluster', () => {
    expect(() => openRisk('policies/inference-preempts-training', { as: 'bobb' }, 'reference')).toThrow(coded('cli/unknown-user'));
    expect(() => openRisk('policies/quota-scaling/quotas.yaml', {}, 'reference')).toThrow(coded('risk/no-cluster'));
  });

  it("sees as the user: bob's view", () => {
    const o = openRisk('policies/inference-preempts-training', { as: 'bob' }, 'reference');
    expect(o.user).toBe('bob');
    expect(o.viewer?.canSee({ workspace: 'workspace-c', quota: 'Quota1.2' })).toBe(false);
  });
});

describe('checkHorizonWork', () => {
  const policy = { kind: 'policy' } as const;
  const HOUR = 3_600_000;

  it('lets the defaults and 1,000 runs of a day at the default rate through', () => {
    expect(() => checkHorizonWork({ horizon: 24 * HOUR, runs: 20, ratePerHour: 2, source: policy })).not.toThrow();
    expect(horizonArrivals({ horizon: 24 * HOUR, runs: 1000, ratePerHour: 2, source: policy })).toBe(48_000);
    expect(() => checkHorizonWork({ horizon: 24 * HOUR, runs: 1000, ratePerHour: 2, source: policy })).not.toThrow();
  });

  it.each([
    ['3650d at 1,000,000 an hour (issue 27: aborted Node)', { horizon: 3650 * 24 * HOUR, runs: 1, ratePerHour: 1_000_000 }],
    ['3650d at the default rate (hours of work)', { horizon: 3650 * 24 * HOUR, runs: 20, ratePerHour: 2 }],
    ['one arrival past the limit', { horizon: (MAX_HORIZON_ARRIVALS + 1) * HOUR, runs: 1, ratePerHour: 1 }],
  ])('refuses %s with risk/too-much-work', (_, o) => {
    expect(() => checkHorizonWork({ ...o, source: policy })).toThrow(coded('risk/too-much-work'));
  });

  it("counts a trace's own rate, not --rate", () => {
    const jobs = Array.from({ length: 101 }, (_, i) => ({ spec: {}, submit: i * 36_000, duration: HOUR }) as never);
    // 100 jobs over an hour: 100 an hour, whatever --rate says.
    expect(horizonArrivals({ horizon: 10 * HOUR, runs: 2, ratePerHour: 2, source: { kind: 'trace', path: 't.csv', jobs } })).toBeCloseTo(2000, 6);
  });
});
