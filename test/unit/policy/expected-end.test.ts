/**
 * A running job's expected end (docs/policy-format.md, "Running jobs"): `expectedEnd` (a
 * time) or `duration` (from startedAt), validated with located findings.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../../src/policy/load-policy.js';

const DIR = 'policies/when-will-it-start';
const quotas = { path: `${DIR}/quotas.yaml`, text: readFileSync(`${DIR}/quotas.yaml`, 'utf8') };
const clusterText = readFileSync(`${DIR}/cluster.yaml`, 'utf8');

/** The shipped example's cluster with b-train's `duration: 3h` line replaced. */
function load(durationLine: string) {
  const text = clusterText.replace('      duration: 3h\n', durationLine);
  return loadPolicy([quotas, { path: 'cluster.yaml', text }], { now: 0 });
}

describe('expected end of a running job', () => {
  it('reads expectedEnd as a time and duration from startedAt; a job with neither has none', () => {
    const { policy, findings } = load('      duration: 3h\n');
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    const end = new Map(policy!.cluster!.jobs.map((j) => [j.name, j.expectedEnd]));
    expect(end.get('b-train')).toBe(Date.parse('2026-11-20T13:00:00Z')); // 10:00 + 3h
    expect(end.get('b-eval')).toBe(Date.parse('2026-11-20T15:00:00Z'));
    expect(end.get('a-serve')).toBeUndefined();
  });

  it('refuses both at once, at the job, naming the fields', () => {
    const { policy, findings } = load('      duration: 3h\n      expectedEnd: 2026-11-20T13:00:00Z\n');
    expect(policy).toBeUndefined();
    const f = findings.find((x) => x.code === 'policy/conflicting-end')!;
    expect(f).toMatchObject({ file: 'cluster.yaml', severity: 'error' });
    expect(f.path).toMatch(/jobs\.1\.duration|jobs\[1\]\.duration/);
    // The text is the behaviour here: it names both fields.
    expect(f.message).toContain('both expectedEnd and duration');
  });

  it('refuses an end before the snapshot time, at the field that gives it', () => {
    const early = load('      duration: 1h\n'); // 10:00 + 1h = 11:00, before at 12:00
    const f = early.findings.find((x) => x.code === 'policy/ended-before-snapshot')!;
    expect(f.line).toBe(clusterText.split('\n').indexOf('      duration: 3h') + 1);
    // The text is the behaviour here: it names the end the fields give.
    expect(f.message).toContain('2026-11-20T11:00:00.000Z');
    const time = load('      expectedEnd: 2026-11-20T11:59:00Z\n');
    expect(time.findings.map((x) => x.code)).toContain('policy/ended-before-snapshot');
  });

  it('locates a bad duration and a bad time', () => {
    expect(load('      duration: soon\n').findings.map((x) => x.code)).toContain('policy/bad-duration');
    expect(load('      expectedEnd: tomorrow\n').findings.map((x) => x.code)).toContain('policy/bad-time');
  });
});
