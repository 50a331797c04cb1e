/**
 * The shipped openb replay (docs/examples/trace-replay, issue 23 item 3) shows what a
 * replay is for: teams contend. The README's command, run as written, reports queue
 * waits, preemptions by a rule of the policy and by idle reclaim, borrowing, and the
 * trace's GPU sharing; the example's policy checks clean. Its data is the subset
 * scripts/openb-replay-subset.mjs makes from the real trace (README.md beside it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/simulate/report.js';
import { quotient, ROOT } from '../helpers/run-cli.js';

const DIR = 'docs/examples/trace-replay';

/** The replay command of the README, as written (continuation lines joined). */
function readmeCommand(): string[] {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\\\n\s*/g, '');
  const line = text.split('\n').find((l) => l.includes(`quotient simulate ${DIR}`));
  expect(line, 'the README shows the openb replay').toBeDefined();
  return line!.replace(/^\$ /, '').trim().split(/\s+/).slice(1);
}

describe('the openb replay example', () => {
  it('checks clean', () => {
    const r = quotient(['check', DIR, '--json']);
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as { findings: unknown[] }).findings).toEqual([]);
  });

  it("shows contention: waits, preemptions by the policy's rules and by idle reclaim, borrowing, shared GPUs", () => {
    const argv = readmeCommand().filter((a, i, all) => a !== '--html' && all[i - 1] !== '--html');
    const r = quotient([...argv, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    const t = report.totals;
    expect(t.wait.p95).toBeGreaterThan(0);
    const rules = new Map(report.preemptions.byRule.map((x) => [x.rule, x.count]));
    expect(rules.get('reclaim/idle')).toBeGreaterThan(0);
    expect([...rules.keys()].some((k) => k.startsWith('Quota1'))).toBe(true);
    expect(report.quotas.reduce((s, q) => s + q.gpuHours.borrowing, 0)).toBeGreaterThan(0);
    expect(report.quotas.reduce((s, q) => s + q.gpuHours.idle, 0)).toBeGreaterThan(0);
    expect(t.utilisation).toBeGreaterThan(0.5);
    expect(t.sharedRoomGpuHours).toBeGreaterThan(0);
    expect(Math.abs(t.usedGpuHours + t.idleGpuHours - t.capacityGpuHours)).toBeLessThanOrEqual(0.02);
    // Quota1 is a parent: its chart line is its subtree's use, sample by sample (issue 23 item 1).
    const s = report.series;
    const sub = s.byQuotaSubtree!.Quota1!;
    expect(Object.keys(s.byQuotaSubtree!)).toEqual(['Quota1']);
    sub.forEach((y, k) => expect(y).toBeCloseTo(s.byQuota.Quota1![k]! + s.byQuota['Quota1.1']![k]! + s.byQuota['Quota1.2']![k]!, 3));
    expect(Math.max(...sub)).toBeGreaterThan(Math.max(...s.byQuota.Quota1!));
  });

  it('prints the lines the README shows', () => {
    const r = quotient(readmeCommand().filter((a, i, all) => a !== '--html' && all[i - 1] !== '--html'));
    expect(r.status, r.stderr).toBe(0);
    const out = stripVTControlCharacters(r.stdout);
    expect(out).toMatch(/used by standing: [\d.]+ in quota, [1-9][\d.]* borrowed, [1-9][\d.]* on idle capacity/);
    expect(out).toMatch(/room on shared GPUs/);
  });
});
