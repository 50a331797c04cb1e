/**
 * The web app in a real browser: Debian's Chromium (/usr/bin/chromium; .ci/run installs
 * it) driven by playwright-core, headless, with a fresh profile folder per launch and
 * nothing fetched from the network but the server under test. A page opened "as" a user
 * sends X-Remote-User on every request, standing in for the authenticating proxy of
 * `--auth header:X-Remote-User`. The browser tests (test/serve/web*.test.ts) and the heat
 * map bench (bench/web-heat-map.ts) share this.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from '../helpers/run-cli.js';

/** Debian's Chromium, or QUOTIENT_CHROMIUM (scripts/check-chromium.mjs, npm test's pretest, checks it is there). */
export const CHROMIUM = process.env.QUOTIENT_CHROMIUM || '/usr/bin/chromium';

/** Quiet, sandbox-free headless flags: no GPU, no QUIC, nothing fetched in the background. */
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Where the tests keep their screenshots (git-ignored). */
export const ARTIFACTS = join(ROOT, 'test-results');

/** A running browser: one context on a fresh profile folder. */
export interface TestBrowser {
  context: BrowserContext;
  /** A new page whose requests carry X-Remote-User: `user` (none when undefined); every request it makes outside `origin` is recorded in `offsite`. */
  pageAs(user: string | undefined, origin: string): Promise<{ page: Page; offsite: string[]; errors: string[] }>;
  close(): Promise<void>;
}

/** Launches Chromium on a fresh --user-data-dir (a persistent context on a new temporary folder, removed on close). */
export async function launchBrowser(viewport = { width: 1400, height: 1000 }): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: apt-get install -y chromium (npm test's pretest does it as root)`);
  const profile = mkdtempSync(join(tmpdir(), 'quotient-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: FLAGS, headless: true, viewport, reducedMotion: 'reduce' });
  return {
    context,
    async pageAs(user, origin) {
      const page = await context.newPage();
      if (user !== undefined) await page.setExtraHTTPHeaders({ 'X-Remote-User': user });
      const offsite: string[] = [];
      const errors: string[] = [];
      page.on('request', (r) => {
        const url = r.url();
        if (!url.startsWith(`${origin}/`) && !url.startsWith('data:')) offsite.push(url);
      });
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      return { page, offsite, errors };
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens the app and waits until the status, the heat map and the form are there. */
export async function openApp(page: Page, url: string, timeout = 60_000): Promise<void> {
  await page.goto(`${url}/`);
  await page.waitForSelector('canvas.heat-map-overlay', { timeout });
  await page.waitForFunction(() => document.querySelector<HTMLSelectElement>('#whatif-quota')?.options.length, undefined, { timeout });
}

/** The durations (ms) of the heat map's paints so far, as the app measured them (User Timing). */
export function paintTimes(page: Page): Promise<number[]> {
  return page.evaluate(() => performance.getEntriesByName('quotient:heat-map-paint').map((e) => e.duration));
}

/**
 * Moves the mouse over `count` places spread over the map (each 37 px right of the one
 * before, so each on another node) and times each move until the tooltip shows the new
 * node, measured in the page from the event to the first frame showing it: "stays
 * responsive" as a figure.
 */
export async function hoverTimes(page: Page, count: number): Promise<number[]> {
  const box = await page.locator('canvas.heat-map-overlay').boundingBox();
  if (!box) throw new Error('no heat map');
  const times: number[] = [];
  for (let k = 0; k < count; k++) {
    const x = box.x + 10 + ((k * 37) % Math.max(1, Math.floor(box.width - 20)));
    const y = box.y + 10 + ((k * 53) % Math.max(1, Math.floor(box.height - 20)));
    // Source text, not a function: tsx (the bench) would wrap named inner functions in a helper the page does not have.
    const ms = await page.evaluate<number>(`new Promise((resolve) => {
      const canvas = document.querySelector('canvas.heat-map-overlay');
      const shown = () => document.querySelector('.tooltip strong')?.textContent ?? '';
      const before = shown();
      const start = performance.now();
      canvas.dispatchEvent(new MouseEvent('mousemove', { clientX: ${x}, clientY: ${y}, bubbles: true }));
      const wait = () => (shown() !== before || performance.now() - start > 2000 ? resolve(performance.now() - start) : requestAnimationFrame(wait));
      requestAnimationFrame(wait);
    })`);
    times.push(ms);
  }
  return times;
}

/** Saves a full-page screenshot as test-results/NAME.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Every text of the page and every attribute value of its DOM, for isolation checks. */
export function pageText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const parts = [document.body.innerText, document.title];
    for (const el of document.querySelectorAll('*')) for (const a of el.attributes) parts.push(a.value);
    // Form values are properties, not attributes.
    for (const el of document.querySelectorAll('input, select, textarea')) parts.push((el as HTMLInputElement).value);
    return parts.join('\n');
  });
}
