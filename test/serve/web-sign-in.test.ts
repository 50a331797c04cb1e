/**
 * The web app under `--auth tokens:FILE` (issue 27 item 18), in headless Chromium: a page
 * without a token shows a sign-in form; the token typed there is kept for the tab's session
 * only (sessionStorage, never localStorage or a cookie) and sent as a bearer token, so the
 * page then works as alice's; a wrong token is refused with a sentence and asked again;
 * signing out forgets it. Nothing but the token field sends the token anywhere.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, type TestBrowser } from './web-browser.js';
import { policyCopy, serve, TEAM_A_JOB, type TestServer } from './serve-helpers.js';

const policy = policyCopy('policies/inference-preempts-training');
const TOKEN = 'alice-s3cret-token';
let s: TestServer;
let browser: TestBrowser;

beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'quotient-tokens-')), 'tokens');
  writeFileSync(file, `${createHash('sha256').update(TOKEN).digest('hex')} alice\n`, { mode: 0o600 });
  [s, browser] = await Promise.all([serve([policy], { authText: `tokens:${file}` }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
});

describe('the web app with --auth tokens:FILE', () => {
  it('signs in with a token kept for the session only, answers as alice, refuses a wrong token, and signs out', async () => {
    const { page, offsite, errors } = await browser.pageAs(undefined, s.url);
    await page.goto(`${s.url}/`);
    await page.waitForSelector('#sign-in-token');
    expect(await page.locator('label[for=sign-in-token]').innerText()).toBe('Access token');
    expect(await page.locator('#sign-in-token').getAttribute('type')).toBe('password');

    // A wrong token: refused with a sentence, the form again, nothing kept.
    await page.fill('#sign-in-token', 'not-a-token');
    await page.press('#sign-in-token', 'Enter');
    await page.waitForSelector('.sign-in [role=alert]');
    expect(await page.locator('.sign-in [role=alert]').innerText()).toContain('does not know that token');
    expect(await page.evaluate(() => sessionStorage.getItem('quotient.token'))).toBeNull();

    await page.fill('#sign-in-token', TOKEN);
    await page.click('.sign-in button[type=submit]');
    await page.waitForSelector('canvas.heat-map-overlay', { timeout: 60_000 });
    expect(await page.locator('.viewer').innerText()).toContain('alice');
    expect(await page.evaluate(() => [sessionStorage.getItem('quotient.token'), localStorage.length, document.cookie])).toEqual([TOKEN, 0, '']);

    // The what-if form answers with the token.
    await page.waitForFunction(() => document.querySelector<HTMLSelectElement>('#whatif-quota')?.options.length);
    await page.selectOption('#whatif-workspace', TEAM_A_JOB.workspace);
    await page.selectOption('#whatif-quota', TEAM_A_JOB.quota);
    await page.selectOption('#whatif-module', TEAM_A_JOB.module);
    await page.fill('#whatif-priority', String(TEAM_A_JOB.priority));
    await page.fill('#whatif-pods', String(TEAM_A_JOB.pods));
    await page.fill('#whatif-gpu', String(TEAM_A_JOB.resources.gpu));
    await page.click('#whatif button[type=submit]');
    await page.waitForSelector('.whatif-answer .decision-word');
    expect(await page.locator('.decision-word').innerText()).toBe('PREEMPT');
    await screenshot(page, 'web-signed-in');

    // A reload of the tab keeps the session; a new tab (another session) does not have it.
    await page.reload();
    await page.waitForSelector('canvas.heat-map-overlay', { timeout: 60_000 });
    const other = await browser.pageAs(undefined, s.url);
    await other.page.goto(`${s.url}/`);
    await other.page.waitForSelector('#sign-in-token');
    await other.page.close();

    // Signing out forgets the token and shows the form again.
    await page.click('button.sign-out');
    await page.waitForSelector('#sign-in-token');
    expect(await page.evaluate(() => sessionStorage.getItem('quotient.token'))).toBeNull();
    expect(await page.locator('body').innerText()).not.toContain('PREEMPT');
    expect(offsite).toEqual([]);
    expect(errors.filter((e) => !/401/.test(e))).toEqual([]);
    await page.close();
  }, 120_000);
});
