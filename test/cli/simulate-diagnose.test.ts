/**
 * The simulate report diagnoses (issue 23): censored waits, blocked queue heads with their
 * reasons' codes, the starvation finding, and a parent quota's subtree use. The run is the
 * issue's: 2,000 generated PAI jobs over 3 days on a 64-GPU policy whose queues are FIFO.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readReport } from '../helpers/report.js';
import type { Report } from '../../src/simulate/report.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');
const dir = mkdtempSync(join(tmpdir(), 'quotient-diag-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function quotient(...args: string[]) {
  const r = spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, COLUMNS: '200' }, timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const RUN = ['--generate', 'pai', '--jobs', '2000', '--days', '3'];
let fifo: Report;
let table: string;

beforeAll(() => {
  const j = quotient('simulate', 'policies/self-level-preemption', ...RUN, '--json');
  expect(j.status).toBe(0);
  fifo = readReport(j.stdout, 'SimulateReport');
  table = quotient('simulate', 'policies/self-level-preemption', ...RUN).stdout;
}, 180_000);

describe('simulate diagnoses', () => {
  it('counts the jobs that never started as censored waits, and says so', () => {
    const w = fifo.totals.wait;
    expect(w.stillWaiting).toBeGreaterThan(1000);
    expect(fifo.teams.reduce((s, t) => s + t.wait.stillWaiting, 0)).toBe(w.stillWaiting);
    expect(w.stillWaiting).toBeLessThanOrEqual(fifo.totals.unfinished);
    expect(w.longestStillWaiting).toBeGreaterThan(w.max);
    expect(w.longestStillWaiting).toBeLessThanOrEqual(fifo.hours);
    // Censored waits pull the percentiles up: a report over started jobs alone hides them.
    expect(w.p50WithWaiting).toBeGreaterThan(w.p50);
    expect(table).toContain(`${w.stillWaiting} still waiting at the end, the longest ${w.longestStillWaiting} h`);
  });

  it('names the blocked heads of the FIFO queues with their reasons as codes, and the GPU-hours they held back', () => {
    const blocked = fifo.queues.filter((q) => q.blockedHours > 0);
    expect(blocked.map((q) => q.quota).sort()).toEqual(['QuotaA', 'QuotaB']);
    for (const q of blocked) {
      expect(q.blockedHours).toBeLessThanOrEqual(fifo.hours);
      expect(q.heldBackGpuHours).toBeGreaterThan(0);
      expect(q.reasons.length).toBeGreaterThan(0);
      for (const r of q.reasons) {
        expect(r.code).toMatch(/^[a-z]+\/[a-z-]+$/);
        expect(r.hours).toBeLessThanOrEqual(q.blockedHours);
      }
    }
    expect(fifo.blockedHeads.length).toBeGreaterThan(0);
    const held = fifo.blockedHeads.map((h) => h.heldBackGpuHours);
    expect(held).toEqual([...held].sort((a, b) => b - a));
    for (const h of fifo.blockedHeads) expect(h.reasons.length).toBeGreaterThan(0);
    expect(fifo.blockedHeads[0]!.reasons.map((r) => r.code)).toContain('quota/over-min');
    expect(table).toContain('Blocked queues');
    expect(table).toContain(fifo.blockedHeads[0]!.job);
  });

  it('finds a starved FIFO queue, and none once the queues let jobs pass their head', () => {
    expect(fifo.findings.map((f) => `${f.code} ${f.quota}`)).toEqual(['simulate/queue-starved QuotaA', 'simulate/queue-starved QuotaB']);
    // The first day is enough to tell (a round-robin pass tries every waiting job: slower).
    const day = quotient('simulate', 'policies/self-level-preemption', ...RUN, '--until', '24h', '--json');
    expect((readReport(day.stdout, 'SimulateReport') as unknown as Report).findings.length).toBe(2);
    const policy = join(dir, 'round-robin');
    cpSync(join(ROOT, 'policies/self-level-preemption'), policy, { recursive: true });
    const file = join(policy, 'quotas.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8')
        .replace('      min: { gpu: 64 }\n', '      min: { gpu: 64 }\n      queueStrategy: round-robin\n')
        .replace(/(min: \{ gpu: 32 \}\n)/g, '$1          queueStrategy: round-robin\n'),
    );
    const r = quotient('simulate', policy, ...RUN, '--until', '24h', '--json');
    expect(r.status).toBe(0);
    const rr = readReport(r.stdout, 'SimulateReport') as unknown as Report;
    expect(rr.queues.every((q) => q.strategy === 'round-robin')).toBe(true);
    expect(rr.findings).toEqual([]);
    expect(rr.queues.every((q) => q.blockedHours === 0)).toBe(true);
  });

  it("reports a parent quota's subtree use beside its own jobs'", () => {
    const [research, a, b] = ['Research', 'QuotaA', 'QuotaB'].map((n) => fifo.quotas.find((q) => q.name === n)!);
    expect(research!.jobs).toBe(0);
    expect(research!.guaranteeUsed).toBe(0);
    expect(research!.subtree.quotas).toBe(3);
    expect(research!.subtree.jobs).toBe(a!.jobs + b!.jobs);
    expect(research!.subtree.gpuHours.inQuota).toBeCloseTo(a!.gpuHours.inQuota + b!.gpuHours.inQuota, 1);
    expect(research!.subtree.guaranteeUsed).toBeGreaterThan(0.5);
    expect(a!.subtree.guaranteeUsed).toBe(a!.guaranteeUsed);
    expect(table).toMatch(/0\.0% own, \d+\.\d%\s/);
  });
});
