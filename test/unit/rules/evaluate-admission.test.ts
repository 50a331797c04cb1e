import { describe, expect, it } from 'vitest';
import { compileAdmissionRules, type AdmissionFacts } from '../../../src/rules/compile-admission.js';
import { AdmissionEvaluator } from '../../../src/rules/evaluate-admission.js';
import { openSession } from '../../helpers/session.js';
import { shippedBundle } from '../../helpers/shipped.js';

describe('AdmissionEvaluator', () => {
  const evaluator = new AdmissionEvaluator(compileAdmissionRules(openSession(shippedBundle('resource-policies')).policy));
  const facts = (over: Partial<AdmissionFacts>): AdmissionFacts => ({
    workspace: 'research',
    quota: 'Team',
    module: 'DLC',
    priority: 3,
    user: 'dan',
    role: 'developer',
    maxRuntime: 0,
    podGpu: 8,
    podCpu: 0,
    podMemory: 0,
    ...over,
  });

  it('returns the caps that apply to the submission and the settings it breaks', async () => {
    const ok = await evaluator.evaluate(facts({}));
    expect(ok.violations).toEqual([]);
    expect(ok.caps.length).toBeGreaterThan(0);
    const long = await evaluator.evaluate(facts({ maxRuntime: 96 * 3_600_000, podGpu: 3 }));
    expect(long.violations.map((r) => r.name).sort()).toEqual(['research/admission/DLC/maxRuntime', 'research/admission/DLC/resourceSpecs']);
  });

  it("runs only the submission's own workspace's rules", async () => {
    expect(await evaluator.evaluate(facts({ workspace: 'elsewhere', maxRuntime: 96 * 3_600_000 }))).toEqual({ caps: [], violations: [] });
  });
});
