/**
 * `quotient whatif --market`: a market event's releases come from the same rule the
 * simulator applies — asked just before a price move of the shipped series, it names
 * exactly the jobs the simulation released at that move.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readReport } from '../helpers/report.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');
const quotient = (...args: string[]) => spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 });
const POLICY = ['policies/spot-market', '--trace', 'policies/spot-market/jobs.csv'];

describe('quotient whatif --market', () => {
  it('releases, at a price move, exactly the jobs the simulation released there', () => {
    const sim = readReport(quotient('simulate', ...POLICY, '--json').stdout, 'SimulateReport');
    const atForty = sim.preemptions.first
      .filter((e: { hour: number; rule: string }) => e.hour === 40 && e.rule === 'market/spot-release')
      .map((e: { job: string }) => e.job)
      .sort();
    expect(atForty.length).toBeGreaterThan(0);
    // The shipped series moves ecs.gn7i-1gpu to 11/h at 40h: ask about that move one second earlier.
    const r = quotient('whatif', ...POLICY, '--market', `ecs.gn7i-1gpu=11@${40 * 3600 - 1}`, '--json');
    expect(r.status, r.stderr).toBe(0);
    const a = readReport(r.stdout, 'MarketWhatIfReport');
    expect(a.released.map((x: { job: string }) => x.job).sort()).toEqual(atForty);
    for (const x of a.released) {
      expect(x.cause).toBe('price');
      expect(x.bid).toBeLessThan(11);
      expect(x.reason).toContain('rose to 11/h');
    }
    for (const k of a.keepsRunning) expect(k.bid).toBeGreaterThanOrEqual(11);
    expect(a.lostGpuHours).toBeCloseTo(
      a.released.reduce((s: number, x: { lostGpuHours: number }) => s + x.lostGpuHours, 0),
      2,
    );
    expect(a.assumptions.length).toBeGreaterThan(0);
  });

  it('answers an inventory drop lowest bids first, and refuses a malformed event (exit 2)', () => {
    const r = quotient('whatif', ...POLICY, '--market', 'lingjun.gu8-8gpu=inventory:0@26h', '--json');
    expect(r.status, r.stderr).toBe(0);
    const a = readReport(r.stdout, 'MarketWhatIfReport');
    expect(a.inventory.after).toBe(0);
    for (const x of a.released) expect(x.cause).toBe('inventory');
    const bids = a.released.map((x: { bid: number }) => x.bid);
    expect(bids).toEqual([...bids].sort((x: number, y: number) => x - y));
    const bad = quotient('whatif', ...POLICY, '--market', 'nonsense');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--market');
  });
});
