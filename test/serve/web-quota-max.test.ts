/**
 * The web app's quota tree shows each quota's ceiling beside its guarantee (issue 27 item
 * 17): the Max column gives the GPU ceiling the policy sets and "none" where there is
 * none, and the usage bar marks it. In headless Chromium against `quotient serve` on a
 * copy of policies/inference-preempts-training with a ceiling on Quota1.1.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openApp, type TestBrowser } from './web-browser.js';
import { policyCopy, serve, type TestServer } from './serve-helpers.js';

const policy = policyCopy('policies/inference-preempts-training');
const quotas = join(policy, 'quotas.yaml');
writeFileSync(
  quotas,
  readFileSync(quotas, 'utf8').replace(
    '        - name: Quota1.1          # Team B: DLC training\n          min: { gpu: 48 }\n',
    '        - name: Quota1.1          # Team B: DLC training\n          min: { gpu: 48 }\n          max: { gpu: 64 }\n',
  ),
);
let s: TestServer;
let browser: TestBrowser;

beforeAll(async () => {
  [s, browser] = await Promise.all([serve([policy]), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
});

describe('the quota tree (web app)', () => {
  it('shows the max of a quota that has one, "none" elsewhere, and marks it on the bar', async () => {
    const { page } = await browser.pageAs('alice', s.url);
    await openApp(page, s.url);
    const header = await page.locator('table.quota-tree thead th').allInnerTexts();
    const maxColumn = header.indexOf('Max');
    expect(maxColumn).toBeGreaterThan(0);
    const rows = await page.$$eval('table.quota-tree tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => (c as HTMLElement).innerText.trim())));
    const cell = async (quota: string): Promise<string> => {
      // The first cell: the quota's name and its workspaces.
      const row = rows.find((r) => r[0]!.split(/\s/).includes(quota));
      expect(row, `${quota} in ${JSON.stringify(rows)}`).toBeDefined();
      return Promise.resolve(row![maxColumn]!);
    };
    expect(await cell('Quota1.1')).toBe('64');
    expect(await cell('Quota1.2')).toBe('none');
    expect(await page.locator('table.quota-tree .bar-max').count()).toBe(1);
  });
});
