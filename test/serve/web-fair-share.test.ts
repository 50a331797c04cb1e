/**
 * The web app's quota tree shows each quota's weighted share (SEMANTICS 13) when its tree
 * has fair sharing: a Share column with GET /v1/quotas's numbers (docs/fair-sharing.md
 * section 3's cohort before r-pretrain: vision 223, the others 0). A PAI tree has no such
 * column. In headless Chromium against `quotient serve`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openApp, type TestBrowser } from './web-browser.js';
import { serve, type TestServer } from './serve-helpers.js';

const GOLDEN = readFileSync('test/golden/kueue/fair-sharing-worked-example.yaml', 'utf8');
const file = join(mkdtempSync(join(tmpdir(), 'quotient-web-fair-')), 'fair.yaml');
writeFileSync(file, GOLDEN.slice(0, GOLDEN.indexOf('---\napiVersion: quotient.dev/v1\nkind: WhatIf')));
let s: TestServer;
let pai: TestServer;
let browser: TestBrowser;

beforeAll(async () => {
  [s, pai, browser] = await Promise.all([serve([file]), serve(['test/serve/fixtures/two-teams.yaml']), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
});

async function table(url: string): Promise<{ header: string[]; rows: string[][] }> {
  const { page } = await browser.pageAs('alice', url);
  await openApp(page, url);
  const header = await page.locator('table.quota-tree thead th').allInnerTexts();
  const rows = await page.$$eval('table.quota-tree tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => (c as HTMLElement).innerText.trim())));
  return { header, rows };
}

describe('the quota tree (web app): fair sharing', () => {
  it("shows each quota's weighted share in a Share column", async () => {
    const { header, rows } = await table(s.url);
    const col = header.indexOf('Share');
    expect(col).toBeGreaterThan(0);
    const share = (quota: string): string | undefined => rows.find((r) => r[0]!.split(/\s/).includes(quota))?.[col];
    expect([share('org'), share('research'), share('vision'), share('nlp')]).toEqual(['0', '0', '223', '0']);
  });

  it('a PAI tree has no Share column', async () => {
    const { header } = await table(pai.url);
    expect(header).not.toContain('Share');
  });
});
