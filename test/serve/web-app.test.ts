/**
 * The web app as people use it, in headless Chromium against `quotient serve` on
 * 127.0.0.1 (an ephemeral port) serving a copy of policies/inference-preempts-training
 * with --auth header:X-Remote-User; the browser sends the header, standing in for the
 * proxy. Alice (team A) asks the README's what-if and sees team B's training job as the
 * victim with its rule and policy line, marked on the heat map; the form works from the
 * keyboard alone; carol (team C) sees none of team B's job names anywhere; a broken edit
 * shows while the last good version keeps answering, its findings as text even when they
 * quote markup. Screenshots go to test-results/.
 */
import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openApp, pageText, screenshot, type TestBrowser } from './web-browser.js';
import { policyCopy, serve, TEAM_A_JOB, until, type TestServer } from './serve-helpers.js';

const policy = policyCopy('policies/inference-preempts-training');
let s: TestServer;
let browser: TestBrowser;

beforeAll(async () => {
  [s, browser] = await Promise.all([serve([policy]), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
});

/** Fills the what-if form with the README's team A job by mouse and keyboard as a user would. */
async function fillTeamAJob(page: Page): Promise<void> {
  await page.selectOption('#whatif-workspace', TEAM_A_JOB.workspace);
  await page.selectOption('#whatif-quota', TEAM_A_JOB.quota);
  await page.selectOption('#whatif-module', TEAM_A_JOB.module);
  await page.fill('#whatif-priority', String(TEAM_A_JOB.priority));
  await page.fill('#whatif-pods', String(TEAM_A_JOB.pods));
  await page.fill('#whatif-gpu', String(TEAM_A_JOB.resources.gpu));
}

/** The text of the tooltip after hovering the heat map's node `name` (found by walking the map with the mouse). */
async function hoverNode(page: Page, name: string): Promise<string> {
  const box = (await page.locator('canvas.heat-map-overlay').boundingBox())!;
  // From 10 px: the canvases have an 8 px margin around the cells (heat-map-paint.ts, MARGIN).
  for (let y = 10; y < box.height - 4; y += 6) {
    for (let x = 10; x < box.width - 4; x += 6) {
      await page.mouse.move(box.x + x, box.y + y);
      const shown = await page
        .locator('.tooltip strong')
        .textContent({ timeout: 50 })
        .catch(() => null);
      if (shown === name) return (await page.locator('.tooltip').innerText()) ?? '';
      // Skip to the next cell once on a node: cells are wider than 6 px.
      if (shown !== null) x += 12;
    }
  }
  throw new Error(`node ${name} not found on the heat map`);
}

describe('the web app (quotient serve, GET /)', () => {
  it("answers alice's what-if: team B's train-b-llm is the victim, with its rule and policy line, marked on the heat map", async () => {
    const api = await (await s.post('/v1/whatif', { submit: TEAM_A_JOB }, 'alice')).json();
    const victim = api.answers[0].victims[0];
    expect(victim).toMatchObject({ job: 'train-b-llm', rule: 'Quota1/childPreemption' });
    expect(victim.source).toMatch(/quotas\.yaml:\d+:\d+$/);

    const { page, offsite, errors } = await browser.pageAs('alice', s.url);
    await openApp(page, s.url);
    expect(await page.locator('.viewer').innerText()).toContain('alice');
    await fillTeamAJob(page);
    await page.click('button[type=submit]');
    await page.waitForSelector('.whatif-answer .decision-word');
    expect(await page.locator('.decision-word').innerText()).toBe('PREEMPT');
    const row = page.locator('ul.victims li.victim');
    expect(await row.count()).toBe(1);
    expect(await row.locator('.job-name').innerText()).toBe('train-b-llm');
    expect(await row.locator('code.rule').innerText()).toBe('Quota1/childPreemption');
    expect(await row.locator('code.source').innerText()).toBe(victim.source);
    expect(await page.locator('.whatif-answer').innerText()).toContain(victim.reason);

    // The heat map hatches the victim's GPUs and frames the nodes the job would take.
    const legend = await page.locator('.heat-map .legend').innerText();
    expect(legend).toContain('would be preempted');
    expect(legend).toContain('where the job would run');
    const placed = api.answers[0].placement[0].node as string;
    const tip = await hoverNode(page, placed);
    expect(tip).toContain('the what-if job would run here');
    expect(tip).toMatch(/GPUs 0-7 would be preempted/);
    expect(tip).toContain('train-b-llm');

    await screenshot(page, 'serve-whatif-alice');
    expect(offsite).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('works from the keyboard alone: labelled fields in order, Enter asks, the answer takes the focus', async () => {
    const { page } = await browser.pageAs('alice', s.url);
    await openApp(page, s.url);
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLInputElement | null;
        const label = el?.labels?.[0]?.textContent ?? el?.getAttribute('aria-label') ?? el?.textContent ?? '';
        return { id: el?.id ?? '', tag: el?.tagName ?? '', label: label.trim(), outline: el ? getComputedStyle(el).outlineStyle : 'none' };
      });
    const order: Array<{ id: string; tag: string; label: string; outline: string }> = [];
    for (let i = 0; i < 9; i++) {
      await page.keyboard.press('Tab');
      order.push(await focused());
    }
    expect(order[0]!.label).toBe('Skip to the what-if form');
    expect(order.slice(1).map((o) => o.id)).toEqual(['whatif-workspace', 'whatif-quota', 'whatif-module', 'whatif-priority', 'whatif-pods', 'whatif-gpu', 'whatif-idle', '']);
    expect(order.slice(1, 8).map((o) => o.label)).toEqual(['Workspace', 'Quota', 'Module', 'Priority (1-9)', 'Pods', 'GPUs per pod', 'Idle resources']);
    expect(order[8]!.label).toBe('Ask what if');
    // Focus is visible on every stop.
    for (const o of order) expect(o.outline).not.toBe('none');

    // Back to the module field and set every field by keys: type to pick an option, select-all and type a number.
    for (let i = 0; i < 5; i++) await page.keyboard.press('Shift+Tab');
    expect((await focused()).id).toBe('whatif-module');
    await page.keyboard.type('EAS');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('9');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('2');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('8');
    expect(await page.inputValue('#whatif-module')).toBe('EAS');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.whatif-answer .decision-word');
    expect((await focused()).id).toBe('answer-title');
    expect(await page.locator('.decision-word').innerText()).toBe('PREEMPT');

    // A wrong value comes back as the server's finding on the field, tied to it for screen readers.
    await page.focus('#whatif-gpu');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('-1');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#whatif-gpu[aria-invalid=true]');
    const described = await page.getAttribute('#whatif-gpu', 'aria-describedby');
    expect(await page.locator(`#${described}`).innerText()).toContain('gpu');
    await page.close();
  });

  it("shows carol (team C) none of team B's job names, in text or attributes, wherever she looks", async () => {
    const teamB = (await (await s.get('/v1/jobs', 'bob')).json()).running.filter((j: { workspace: string }) => j.workspace === 'workspace-b').map((j: { job: string }) => j.job);
    expect(teamB.length).toBeGreaterThanOrEqual(2);
    const { page, errors } = await browser.pageAs('carol', s.url);
    const bodies: string[] = [];
    page.on('response', (r) => {
      void r.text().then(
        (t) => bodies.push(t),
        () => undefined,
      );
    });
    await openApp(page, s.url);
    // Her own jobs are named (the check below can fail), with what could preempt them.
    await page.waitForSelector('.job-card .explanation');
    const seen: string[] = [await pageText(page)];
    expect(seen[0]).toContain('dsw-c-finetune');
    expect(seen[0]).toContain('Quota1/childPreemption');
    // Her what-if, and every node of the heat map walked with the arrow keys.
    await page.selectOption('#whatif-module', 'DSW');
    await page.fill('#whatif-priority', '9');
    await page.fill('#whatif-pods', '2');
    await page.click('button[type=submit]');
    await page.waitForSelector('.whatif-answer .decision-word');
    seen.push(await pageText(page));
    await page.focus('canvas.heat-map-overlay');
    const nodes = (await (await s.get('/v1/nodes', 'carol')).json()).nodes.length;
    for (let i = 0; i < nodes; i++) {
      await page.keyboard.press(i === 0 ? 'Home' : 'ArrowRight');
      seen.push(await pageText(page));
    }
    expect(seen.some((t) => t.includes('a job of workspace-b'))).toBe(true);
    await page.locator('label', { hasText: 'team' }).click();
    seen.push(await pageText(page));
    await screenshot(page, 'serve-isolation-carol');
    for (const text of [...seen, ...bodies]) for (const name of teamB) expect(text).not.toContain(name);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows a broken policy edit with its findings while the last good version keeps answering', async () => {
    const { page } = await browser.pageAs('alice', s.url);
    await openApp(page, s.url);
    const good = (await (await s.get('/v1/status', 'alice')).json()).version as string;
    expect(await page.locator('.policy-line').innerText()).toContain(good);
    const file = join(policy, 'quotas.yaml');
    const original = readFileSync(file, 'utf8');
    const write = (text: string): void => {
      writeFileSync(`${file}.tmp`, text);
      renameSync(`${file}.tmp`, file);
    };
    // The edit's finding quotes a key that is HTML: the banner must show it as text, never as markup.
    const markup = '<img src=x onerror=window.__pwned=1>';
    write(original.replace('min: { gpu: 48 }', `min: { gpu: 48, "${markup}": 1 }`));
    await page.waitForSelector('.broken-edit', { timeout: 30_000 });
    const banner = await page.locator('.broken-edit').innerText();
    expect(await page.locator('.broken-edit').getAttribute('role')).toBe('alert');
    expect(banner).toContain('policy/unknown-field');
    expect(banner).toMatch(/quotas\.yaml:\d+:\d+/);
    expect(banner).toContain(markup);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(banner).toContain(good);
    expect(await page.locator('.policy-line').innerText()).toContain(good);
    // The last good version still answers the form.
    await fillTeamAJob(page);
    await page.click('button[type=submit]');
    await page.waitForSelector('.whatif-answer .decision-word');
    expect(await page.locator('.decision-word').innerText()).toBe('PREEMPT');
    expect(await page.locator('#answer-title').innerText()).toContain(good);
    await screenshot(page, 'serve-broken-edit');
    // Fixed, the banner goes.
    write(original);
    await until(async () => (await page.locator('.broken-edit').count()) === 0, 30_000, 'the banner to go once the policy loads again');
    await page.close();
  });
});
