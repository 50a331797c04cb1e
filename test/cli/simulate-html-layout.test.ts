/**
 * The HTML report's charts as people read them (issue 23), checked from the DOM Chromium
 * renders at 1,400 and 800 px: every chart that draws a level has a visible dashed
 * capacity or guarantee line, tick labels are formatted (thousands separators, durations),
 * and nothing overflows its card or the window. Screenshots go to test-results/.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM } from '../serve/web-browser.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = join(ROOT, 'test-results');
const dir = mkdtempSync(join(tmpdir(), 'quotient-html-layout-'));
let browser: Browser;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `Chromium is missing at ${CHROMIUM}: apt-get install -y chromium (npm test's pretest does it as root)`).toBe(true);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, ...args: string[]): string {
  const html = join(dir, `${name}.html`);
  const r = spawnSync(process.execPath, [join(ROOT, 'dist/cli/main.js'), 'simulate', ...args, '--html', html, '--json'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
  return html;
}

/** A tick label as people read it: a formatted number (1,234.5), a duration (45m, 7h, 3d 4h), or a name (band axes). */
function unformatted(label: string): boolean {
  if (/\d{4}/.test(label.replace(/,\d{3}/g, ''))) return true; // 4+ digits with no separator
  if (/\.\d{3,}/.test(label)) return true; // long decimals
  return /^-/.test(label); // an axis that starts below zero
}

interface Layout {
  figures: Array<{ id: string; levels: boolean; levelLines: number; visibleLevels: number; svgW: number; cardW: number; scale: number; overflow: boolean; labels: string[]; legend: string[] }>;
  pageOverflow: boolean;
  cardsOverflow: string[];
}

async function layout(html: string, width: number, shot: string): Promise<Layout> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  try {
    await page.goto(`file://${html}`);
    await page.screenshot({ path: join(ARTIFACTS, `${shot}-${width}.png`), fullPage: true });
    return await page.evaluate(() => {
      const figures = [...document.querySelectorAll('figure')].map((f) => {
        const svg = f.querySelector('svg')!;
        const lines = [...f.querySelectorAll('g.mark-rule.level line')];
        const visible = lines.filter((l) => {
          const r = l.getBoundingClientRect();
          const stroke = l.getAttribute('stroke');
          return (
            r.width > 50 && stroke !== null && stroke !== 'none' && stroke !== 'transparent' && (l.getAttribute('stroke-dasharray') ?? '') !== '' && Number(l.getAttribute('stroke-width') ?? '1') >= 1
          );
        });
        return {
          id: f.id,
          levels: f.dataset.levels === '1',
          levelLines: lines.length,
          visibleLevels: visible.length,
          svgW: svg.getBoundingClientRect().width,
          cardW: f.getBoundingClientRect().width,
          // Drawn size over the chart's own: a chart widened by a long title or legend is drawn small.
          scale: svg.getBoundingClientRect().width / svg.viewBox.baseVal.width,
          overflow: f.scrollWidth > f.clientWidth + 1 || svg.getBoundingClientRect().right > f.getBoundingClientRect().right + 1,
          labels: [...f.querySelectorAll('g.role-axis-label text')].map((t) => t.textContent ?? ''),
          legend: [...f.querySelectorAll('g.role-legend-label text')].map((t) => t.textContent ?? ''),
        };
      });
      const cards = [...document.querySelectorAll('.tile, .scroll, section')].filter((c) => c.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map((c) => c.className);
      return { figures, pageOverflow: document.documentElement.scrollWidth > document.documentElement.clientWidth + 1, cardsOverflow: cards };
    });
  } finally {
    await page.close();
  }
}

describe('simulate --html layout in Chromium', () => {
  const runs: Array<[string, string[]]> = [
    ['fifo-starved', ['policies/self-level-preemption', '--generate', 'pai', '--jobs', '2000', '--days', '3']],
    ['spot-market', ['policies/spot-market', '--trace', 'policies/spot-market/jobs.csv']],
    // The README's openb replay: GPU shares, a parent quota, four quota lines.
    ['openb-replay', ['docs/examples/trace-replay', '--cluster', 'openb:docs/examples/trace-replay/openb-nodes.csv', '--openb', 'docs/examples/trace-replay/openb-pods.csv', '--until', '12h']],
  ];
  for (const [name, args] of runs)
    it(`${name}: charts fill their cards, show their levels and formatted ticks, at 1,400 and 800 px`, async () => {
      const html = write(name, ...args);
      for (const width of [1400, 800]) {
        const l = await layout(html, width, name);
        expect(l.figures.length).toBeGreaterThanOrEqual(6);
        expect(l.pageOverflow, `page wider than ${width} px`).toBe(false);
        expect(l.cardsOverflow).toEqual([]);
        const withLevels = l.figures.filter((f) => f.levels).map((f) => f.id);
        expect(withLevels).toEqual(expect.arrayContaining(['chart-utilisation', 'chart-quotas', 'chart-idle']));
        for (const f of l.figures) {
          expect(f.overflow, `${f.id} overflows its card at ${width} px`).toBe(false);
          // The chart fills its card (less the card's padding), whatever the window's width.
          expect(f.svgW, f.id).toBeGreaterThan(f.cardW - 40);
          // ... and is drawn near its own size: 11 px labels stay at least 8 px on the page.
          expect(f.scale, `${f.id} drawn at ${f.scale.toFixed(2)} of its size at ${width} px`).toBeGreaterThanOrEqual(0.73);
          if (f.levels) expect(f.visibleLevels, `${f.id}: a visible dashed level line`).toBeGreaterThan(0);
          expect(f.labels.length, f.id).toBeGreaterThan(2);
          expect(f.labels.filter(unformatted), f.id).toEqual([]);
        }
        if (name === 'fifo-starved') {
          expect(l.figures.map((f) => f.id)).toContain('chart-blocked');
          // A parent quota's line is its subtree's use, as in the table, beside its own jobs'.
          expect(l.figures.find((f) => f.id === 'chart-quotas')!.legend).toEqual(expect.arrayContaining(['Research (subtree)', 'Research (own)', 'QuotaA']));
        }
        if (name === 'openb-replay') expect(l.figures.find((f) => f.id === 'chart-quotas')!.legend).toEqual(expect.arrayContaining(['Quota1 (subtree)', 'Quota1 (own)', 'Quota1.1']));
      }
    }, 240_000);

  it('the label check refuses what people cannot read', () => {
    expect(['22204993.05', '0.000000', '-5', '3584.1556'].filter(unformatted)).toHaveLength(4);
    expect(['22,204,993.05', '0', '3d 4h', '45m', '7h', '1,200', 'QuotaA (fifo)'].filter(unformatted)).toEqual([]);
  });
});
