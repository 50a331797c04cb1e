/**
 * Loading as named stages run by one loop (policy/load-policy.ts): every finding carries
 * the stage that found it, warnings of earlier stages survive a later stage's errors,
 * and the loop stops at the first stage with an error.
 */
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { Session } from '../../../src/engine/session.js';
import { runStages, type StageTiming } from '../../../src/policy/stages.js';
import { timingLines } from '../../../src/cli/timings.js';
import { clusterDoc, jobEntry, jobsBlock, nodeGroupLine, policyText, quotaEntry, quotaTreeDoc, rootQuotaEntry, workspaceDoc } from '../../helpers/policy-yaml.js';

const TREE = policyText(
  quotaTreeDoc(rootQuotaEntry(16, `        - name: A\n          min: { gpu: 8 }\n          childPreemption: { preemptiblePriority: 1-3, modules: [DLC] }\n${quotaEntry('B', 8)}`)),
  workspaceDoc(['A', 'B']),
  clusterDoc(nodeGroupLine(2) + jobsBlock(jobEntry('a1', 'A', 5, 8))),
);
const SCALE = `---
apiVersion: quotient.dev/v1
kind: ScaleQuota
metadata: { name: too-big }
spec:
  set: { A: 12 }
`;

describe('loading stages', () => {
  it('tags each finding with its stage and keeps the build warning when the scale stage fails', () => {
    const { policy, findings } = loadPolicy([{ path: 't.yaml', text: TREE + SCALE }], { now: 0 });
    expect(policy).toBeUndefined();
    expect(findings.map((f) => [f.code, f.stage])).toEqual([
      ['policy/child-preemption-without-children', 'build'],
      ['policy/scale-children-exceed-parent', 'scale'],
    ]);
  });

  it('stops at the first stage with an error: a parse error hides everything after it', () => {
    const { findings } = loadPolicy([{ path: 't.yaml', text: `${TREE}---\nkind: [\n` }], { now: 0 });
    expect(findings.map((f) => f.stage)).toEqual(['parse']);
  });

  it("tags the engine's own stage: a running job that fits nowhere is found by `place`", () => {
    const text = TREE.replace(
      'pods: 1, resources: { gpu: 8 } }',
      'pods: 1, resources: { gpu: 8 } }\n    - { name: a2, workspace: ws, quota: B, module: DLC, priority: 5, pods: 2, resources: { gpu: 8 }, idleResources: only }',
    );
    const { session, findings } = Session.open([{ path: 't.yaml', text }], { backend: 'reference', now: 0 });
    expect(session).toBeUndefined();
    expect(findings.filter((f) => f.severity === 'error').map((f) => [f.code, f.stage])).toEqual([['policy/unplaceable-job', 'place']]);
  });

  it('times every stage that ran, in order, loading then opening', () => {
    const { session } = Session.open([{ path: 't.yaml', text: TREE }], { backend: 'reference', now: 0 });
    expect(session!.timings.map((t) => t.stage)).toEqual(['parse', 'validate', 'build', 'snapshot', 'scale', 'compile', 'place', 'tabulate']);
    expect(session!.timings.every((t) => t.ms >= 0 && Number.isFinite(t.ms))).toBe(true);
    // The build stage's warning is counted where it was found.
    expect(session!.timings.find((t) => t.stage === 'build')!.findings).toBe(1);
    const failed = loadPolicy([{ path: 't.yaml', text: TREE + SCALE }], { now: 0 });
    expect(failed.timings.map((t) => t.stage)).toEqual(['parse', 'validate', 'build', 'snapshot', 'scale']);
  });
});

describe('runStages', () => {
  it('runs stages in order, tags their findings, and stops after the first error', () => {
    const ran: string[] = [];
    const timings: StageTiming[] = [];
    const finding = (code: string, severity: 'error' | 'warning') => ({ file: 'f', line: 1, column: 1, code, severity, path: '', message: code, hint: '' });
    const { findings, failed } = runStages<object>(
      [
        { name: 'parse', run: (_, c) => (ran.push('parse'), c.findings.push(finding('w', 'warning'))) },
        { name: 'validate', run: (_, c) => (ran.push('validate'), c.findings.push(finding('e', 'error'))) },
        { name: 'build', run: () => ran.push('build') },
      ],
      {},
      timings,
    );
    expect(ran).toEqual(['parse', 'validate']);
    expect(failed).toBe(true);
    expect(findings.map((f) => [f.code, f.stage])).toEqual([
      ['w', 'parse'],
      ['e', 'validate'],
    ]);
    expect(timings.map((t) => [t.stage, t.findings])).toEqual([
      ['parse', 1],
      ['validate', 1],
    ]);
  });
});

describe('--timings lines', () => {
  it('prints one line per load and the answers summed', () => {
    const t = (stage: StageTiming['stage'], ms: number, findings = 0): StageTiming => ({ stage, ms, findings });
    expect(timingLines([t('parse', 2), t('validate', 1.25, 2), t('answer', 3), t('parse', 12), t('answer', 5)])).toEqual([
      'timings: parse 2.0 ms, validate 1.3 ms (2 findings); total 3.3 ms',
      'timings: parse 12 ms; total 12 ms',
      'timings: answer 2 × 4.0 ms = 8.0 ms',
    ]);
    expect(timingLines([])).toEqual([]);
  });
});
