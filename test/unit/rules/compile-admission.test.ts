import { describe, expect, it } from 'vitest';
import { compileAdmissionRules, durationText, specsText } from '../../../src/rules/compile-admission.js';
import { openSession } from '../../helpers/session.js';
import { shippedBundle } from '../../helpers/shipped.js';

describe('compileAdmissionRules', () => {
  const policy = openSession(shippedBundle('resource-policies')).policy;
  const rules = compileAdmissionRules(policy);

  it('compiles each cap and each module setting of a workspace into one named rule, scoped to that workspace, with its source', () => {
    const names = rules.map((r) => r.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'research/resourcePolicies[0]',
        'research/resourcePolicies[1]',
        'research/admission/DLC/maxRuntime',
        'research/admission/DLC/priorities/developer',
        'research/admission/DLC/resourceSpecs',
      ]),
    );
    expect(new Set(rules.map((r) => r.kind))).toEqual(new Set(['cap', 'max-runtime', 'role-priority', 'resource-spec']));
    for (const r of rules) {
      expect(r.workspace).toBe('research');
      expect(r.source).toMatch(/^policies\/resource-policies\/quotas\.yaml:\d+:\d+$/);
      expect(JSON.stringify(r.rule.conditions)).toContain('"fact":"workspace"');
    }
  });

  it('keeps what explanations need: the cap on a cap rule, the module settings on a setting rule', () => {
    expect(rules.find((r) => r.kind === 'cap')!.cap).toBeDefined();
    expect(rules.find((r) => r.kind === 'max-runtime')!.admission!.module).toBe('DLC');
  });

  it('writes durations and resource specifications as people read them', () => {
    expect(durationText(72 * 3_600_000)).toBe('72h');
    expect(durationText(90 * 60_000)).toBe('1h30m');
    expect(durationText(45 * 60_000)).toBe('45m');
    const dlc = policy.workspaces[0]!.admission.find((a) => a.module === 'DLC')!;
    expect(specsText(dlc)).toMatch(/\d+ GPU/);
  });
});
