/**
 * The HTML report as a person sees it: opened in headless Chromium (Debian's package,
 * installed by npm test's pretest, scripts/check-chromium.mjs), with no network, its charts must have drawn (SVG marks with
 * real size) and its key numbers must be on the page.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { CHROMIUM } from '../serve/web-browser.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(join(tmpdir(), 'quotient-html-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('quotient simulate --html', () => {
  it("writes a self-contained page whose charts render in Chromium and show the report's numbers", async () => {
    expect(existsSync(CHROMIUM), `Chromium is missing at ${CHROMIUM}: apt-get install -y chromium (npm test's pretest does it as root)`).toBe(true);
    const html = join(dir, 'report.html');
    const r = spawnSync(process.execPath, [join(ROOT, 'dist/cli/main.js'), 'simulate', 'policies/spot-market', '--trace', 'policies/spot-market/jobs.csv', '--html', html, '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    const text = readFileSync(html, 'utf8');
    // Nothing to fetch when the file is opened: no script, stylesheet or image from elsewhere.
    expect(text).not.toMatch(/<script|<link |src="http|href="http/);

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
      const requests: string[] = [];
      page.on('request', (req) => {
        if (!req.url().startsWith('file:')) requests.push(req.url());
      });
      await page.goto(`file://${html}`);
      const charts = await page.$$eval('figure svg', (svgs) =>
        svgs.map((s) => ({
          w: s.getBoundingClientRect().width,
          h: s.getBoundingClientRect().height,
          marks: [...s.querySelectorAll('path')].filter((p) => (p.getAttribute('d') ?? '').length > 20).length,
        })),
      );
      expect(charts.length).toBeGreaterThanOrEqual(8);
      for (const c of charts) {
        expect(c.w).toBeGreaterThan(300);
        expect(c.h).toBeGreaterThan(80);
        // Lines, areas and bars are drawn as SVG paths; axes alone have none this long.
        expect(c.marks).toBeGreaterThan(1);
      }
      const body = await page.innerText('body');
      expect(body).toContain(`${(report.totals.utilisation * 100).toFixed(1)}%`);
      expect(body).toContain(`${report.totals.usedGpuHours.toLocaleString('en-US', { maximumFractionDigits: 0 })} used`);
      expect(body).toContain(report.spot.saved.toLocaleString('en-US', { maximumFractionDigits: 2 }));
      for (const rule of report.preemptions.byRule) expect(body).toContain(rule.rule);
      for (const team of report.teams) expect(body).toContain(team.name);
      await page.screenshot({ path: join(dir, 'report.png'), fullPage: true });
      expect(requests).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
