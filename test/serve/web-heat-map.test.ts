/**
 * The heat map at the scale of B3's cluster: 10,000 nodes × 8 GPUs (bench/b3-policy.ts,
 * seeded), served by `quotient serve` and drawn in headless Chromium. The app measures
 * each paint (User Timing, `quotient:heat-map-paint`); the issue asks for under a second,
 * and the test prints the figure. The bound is the issue's, far above what the paint
 * takes (tens of ms), so a loaded machine does not fail it; bench/web-heat-map.ts gives
 * the figures with their spread. Hovering stays responsive: the tooltip shows the node
 * under the mouse in the next frames.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b3Policy } from '../../bench/b3-policy.js';
import { serve, type TestServer } from './serve-helpers.js';
import { hoverTimes, launchBrowser, openApp, paintTimes, screenshot, type TestBrowser } from './web-browser.js';

const dir = mkdtempSync(join(tmpdir(), 'quotient-web-b3-'));
let s: TestServer;
let browser: TestBrowser;

beforeAll(async () => {
  const policy = b3Policy({ nodes: 10_000, queriesPerShape: 1 });
  for (const f of policy.files) {
    mkdirSync(dirname(join(dir, f.path)), { recursive: true });
    writeFileSync(join(dir, f.path), f.text);
  }
  [s, browser] = await Promise.all([serve([join(dir, 'b3')], { authText: 'none' }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the heat map of 10,000 nodes', () => {
  it('draws in under a second and answers hovering in the next frames', async () => {
    const { page, errors } = await browser.pageAs(undefined, s.url);
    const started = Date.now();
    await openApp(page, s.url, 120_000);
    await page.waitForFunction(() => performance.getEntriesByName('quotient:heat-map-paint').length > 0);
    const loadedMs = Date.now() - started;
    expect(await page.locator('.heat-map .totals').innerText()).toContain('10,000 nodes');
    const [first] = await paintTimes(page);
    // Switching the colouring paints all 80,000 GPUs again.
    await page.locator('label', { hasText: 'team' }).click();
    await page.waitForFunction(() => performance.getEntriesByName('quotient:heat-map-paint').length > 1);
    const [, team] = await paintTimes(page);
    const hovers = (await hoverTimes(page, 30)).sort((a, b) => a - b);
    const p50 = hovers[Math.floor(hovers.length / 2)]!;
    const max = hovers[hovers.length - 1]!;
    console.log(
      `heat map, 10,000 nodes: paint ${first!.toFixed(1)} ms (standing), ${team!.toFixed(1)} ms (team); page to painted ${loadedMs} ms; hover to tooltip p50 ${p50.toFixed(1)} ms, max ${max.toFixed(1)} ms`,
    );
    expect(first).toBeLessThan(1000);
    expect(team).toBeLessThan(1000);
    // Every hover showed its node (none waited out the 2 s limit).
    expect(max).toBeLessThan(2000);
    await screenshot(page, 'serve-heat-map-10000');
    expect(errors).toEqual([]);
    await page.close();
  });
});
