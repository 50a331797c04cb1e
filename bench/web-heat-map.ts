/**
 * The web app's heat map at scale (issue 20 item 4: "10,000 nodes draw in under a second
 * and stay responsive"). Serves B3's generated cluster (bench/b3-policy.ts, seeded; 8 GPUs
 * a node) with `quotient serve`, opens the app in headless Chromium (Debian's, as the
 * browser tests do), and measures in the page:
 *
 * - paint: the app's own User Timing measure `quotient:heat-map-paint` (lay out and draw
 *   every GPU), for the first paint and for each switch of the colouring (standing ↔
 *   team), median with min and max;
 * - load: from navigation to the first paint (includes reading /v1/nodes: ~1.7 KB a node);
 * - hover: from a mousemove to the frame whose tooltip names the new node.
 *
 *   npm run bench:web                      # 10,000 nodes (and 1,000)
 *   npm run bench:web -- --nodes 2000 --json
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { b3Policy } from './b3-policy.js';
import { pino } from 'pino';
import { parseAuth } from '../src/serve/auth.js';
import { startServer } from '../src/serve/server.js';
import { hoverTimes, launchBrowser, openApp, paintTimes } from '../test/serve/web-browser.js';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const at = argv.indexOf('--nodes');
const sizes = at >= 0 ? [Number(argv[at + 1])] : [1_000, 10_000];
const SWITCHES = 10;
const HOVERS = 60;

/** Median, min and max of `xs`. */
function spread(xs: number[]): { median: number; min: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)] ?? NaN, min: s[0] ?? NaN, max: s[s.length - 1] ?? NaN };
}

const show = (x: { median: number; min: number; max: number }): string => `${x.median.toFixed(1)} ms (${x.min.toFixed(1)}-${x.max.toFixed(1)})`;

const rows = [];
const browser = await launchBrowser();
try {
  for (const nodes of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'quotient-bench-web-'));
    try {
      const policy = b3Policy({ nodes, queriesPerShape: 1 });
      for (const f of policy.files) {
        mkdirSync(dirname(join(dir, f.path)), { recursive: true });
        writeFileSync(join(dir, f.path), f.text);
      }
      // The server of `quotient serve` in this process (its engine threads run from dist/: npm run build first).
      const server = await startServer({ paths: [join(dir, 'b3')], host: '127.0.0.1', port: 0, auth: parseAuth('none'), log: pino({ level: 'silent' }), processMetrics: false, watch: false });
      await server.loaded;
      try {
        const { page } = await browser.pageAs(undefined, server.url);
        const started = performance.now();
        await openApp(page, server.url, 300_000);
        await page.waitForFunction(() => performance.getEntriesByName('quotient:heat-map-paint').length > 0);
        const load = performance.now() - started;
        for (let k = 0; k < SWITCHES; k++) {
          await page.locator('label', { hasText: k % 2 === 0 ? 'team' : 'standing' }).click();
          await page.waitForFunction((n) => performance.getEntriesByName('quotient:heat-map-paint').length > n, k + 1);
        }
        const paints = await paintTimes(page);
        const hover = spread(await hoverTimes(page, HOVERS));
        rows.push({ nodes, gpus: nodes * 8, firstPaintMs: paints[0]!, repaint: spread(paints.slice(1)), loadMs: load, hover });
        await page.close();
      } finally {
        await server.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
} finally {
  await browser.close();
}

const load = loadavg()[0]!;
if (json) {
  console.log(JSON.stringify({ bench: 'web-heat-map', target: { paintMs: 1000 }, loadAverage: load, rows }, null, 2));
} else {
  console.log(`Heat map in headless Chromium (software canvas: --disable-gpu), load average ${load.toFixed(2)}; target: 10,000 nodes paint under 1 s`);
  for (const r of rows)
    console.log(
      `  ${r.nodes.toLocaleString('en-US')} nodes (${r.gpus.toLocaleString('en-US')} GPUs): first paint ${r.firstPaintMs.toFixed(1)} ms; repaint ${show(r.repaint)} over ${SWITCHES}; page to painted ${Math.round(r.loadMs)} ms; hover to tooltip ${show(r.hover)} over ${HOVERS}`,
    );
}
