import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/engine/session.js';
import { coded } from '../../helpers/codes.js';
import { openSession } from '../../helpers/session.js';
import { shippedBundle } from '../../helpers/shipped.js';
import { submit, TWO_TEAMS, twoTeams } from '../../helpers/two-teams.js';

describe('Session', () => {
  it('opens a policy into rules, tables and a snapshot, or gives the findings that stop it', () => {
    const { session, findings } = Session.open([{ path: 't.yaml', text: TWO_TEAMS }], { now: 0 });
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(session!.rules.map((r) => r.name)).toContain('A/selfPreemption');
    expect(session!.snapshot!.jobs.map((j) => j.name)).toEqual(['a-low', 'b-run']);
    const bad = Session.open([{ path: 't.yaml', text: TWO_TEAMS.replace('priority: 2', 'priority: 12') }], { now: 0 });
    expect(bad.session).toBeUndefined();
    expect(bad.findings.map((f) => f.code)).toEqual(['policy/priority-out-of-range']);
  });

  it('answers a WhatIf by name and an ad-hoc job alike, the same every time', async () => {
    const s = twoTeams();
    const first = await s.answerJob('q', submit('A', 7));
    expect(first.decision).toBe('preempt');
    expect(await s.answerJob('q', submit('A', 7))).toEqual(first);
  });

  it('asks a request checked as a value: a bad job gives located findings with codes, no answer', async () => {
    const s = twoTeams();
    const bad = await s.ask({ submit: { name: 'x', workspace: 'ws', quota: 'A', module: 'DLC', priority: 7, pods: 0, resources: { gpu: 8 } } });
    expect(bad.answer).toBeUndefined();
    expect(bad.findings.map((f) => [f.code, f.path])).toEqual([['policy/non-positive', 'submit.pods']]);
    const noSuch = await s.ask({ query: 'nope' });
    expect(noSuch.findings.map((f) => f.code)).toEqual(['request/unknown-query']);
  });

  it('answers as a member, hiding what the member may not see, and refuses a stranger', async () => {
    const s = openSession(shippedBundle('team-isolation'));
    const w = s.policy.whatIfs.find((x) => x.name === 'team-a-service')!;
    const seen = JSON.stringify(await s.answerJob(w.name, w.submit, { viewer: s.viewer('bob') }));
    expect(seen).toContain('(hidden: workspace-c)');
    expect(s.knows('bob')).toBe(true);
    expect(() => s.viewer('nobody')).toThrow(coded('cli/unknown-user'));
  });

  it('scales a quota: the answer lists the jobs whose standing changes', () => {
    const s = openSession(shippedBundle('quota-scaling'));
    const a = s.scale(s.policy.scales.find((x) => x.name === 'rebalance-b-c')!);
    expect(a.changes.map((c) => [c.job, c.to, c.code])).toEqual([['dsw-c-notebooks', 'borrowing', 'scale/job-turns-borrowing']]);
  });
});
