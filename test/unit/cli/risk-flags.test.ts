/** cli/risk.ts: its flags and its policy checked, each refusal by code (exit 2 in the CLI). */
import { describe, expect, it } from 'vitest';
import { openRisk, riskFlags } from '../../../src/cli/risk.js';
import { coded } from '../../helpers/codes.js';

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
