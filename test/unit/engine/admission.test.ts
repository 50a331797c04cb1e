import { describe, expect, it } from 'vitest';
import { admissionEvaluator, checkAdmission } from '../../../src/engine/admission.js';
import { codesOf } from '../../helpers/codes.js';
import { openSession } from '../../helpers/session.js';
import { shippedBundle } from '../../helpers/shipped.js';

describe('checkAdmission', () => {
  const caps = openSession(shippedBundle('resource-policies'));
  const isolation = openSession(shippedBundle('team-isolation'));
  const check = (s: typeof caps, name: string) => checkAdmission(s.snapshot!, s.policy.whatIfs.find((w) => w.name === name)!.submit);

  it('admits a job within its caps, noting the strictest cap and the room it leaves', async () => {
    const a = await check(caps, 'ann-p7-fits-her-cap');
    expect(a.reject).toBeUndefined();
    expect(a.blocked).toBeUndefined();
    expect(codesOf(a.notes)).toContain('admission/cap-room');
  });

  it('blocks a job whose cap is full now, and rejects one the cap can never take', async () => {
    expect(codesOf((await check(caps, 'ann-p7-strictest-wins')).blocked ?? [])).toEqual(['admission/cap-full']);
    expect(codesOf((await check(caps, 'ann-above-cap-alone')).reject ?? [])).toEqual(['admission/cap-never-fits']);
  });

  it("rejects a job that breaks a module's admission setting", async () => {
    expect(codesOf((await check(caps, 'dan-odd-pod-size')).reject ?? [])).toEqual(['admission/setting-violated']);
  });

  it('rejects a submitter the workspace or quota does not admit, before any cap', async () => {
    expect(codesOf((await check(isolation, 'bob-in-workspace-c')).reject ?? [])).toEqual(['admission/access-denied']);
    expect(codesOf((await check(isolation, 'operator-on-quota1-1')).reject ?? [])).toEqual(['admission/access-denied']);
  });

  it('compiles one evaluator per policy', () => {
    expect(admissionEvaluator(caps.policy)).toBe(admissionEvaluator(caps.policy));
  });
});
