/**
 * What every request goes through (docs/serve.md "Conventions" and "Errors"): identity
 * in each auth mode, the body's schema with the field's path, body and media limits, one
 * error document with a code and never a stack, request ids, security headers, and the
 * operations routes.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAuth } from '../../src/serve/auth.js';
import { startServer } from '../../src/serve/server.js';
import { ROOT } from '../helpers/run-cli.js';
import { httpCall, serve, TEAM_A_JOB, until, type TestServer } from './serve-helpers.js';

const POLICY = 'policies/inference-preempts-training';

describe('identity', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await serve([POLICY], { bodyLimit: 4096 });
  });

  it('refuses a request without the user header with 401 auth/no-identity', async () => {
    for (const r of [await s.get('/v1/quotas'), await s.post('/v1/whatif', { submit: TEAM_A_JOB })]) {
      expect(r.status).toBe(401);
      expect(await r.json()).toMatchObject({ apiVersion: 'quotient/v1', kind: 'Error', status: 401, code: 'auth/no-identity' });
    }
  });

  it('refuses a user name with a control or bidirectional character (401 auth/bad-identity)', async () => {
    // A proxy sends UTF-8 bytes; Node reads them as Latin-1 (U+202E RIGHT-TO-LEFT OVERRIDE here, then a C1 control).
    for (const user of [Buffer.from('car\u202eol', 'utf8').toString('latin1'), 'car\u0085ol']) {
      const r = await s.get('/v1/quotas', user);
      expect(r.status).toBe(401);
      expect(((await r.json()) as { code: string }).code).toBe('auth/bad-identity');
    }
    // A name in UTF-8 is read as the proxy wrote it.
    const jose = await s.get('/v1/status', Buffer.from('José', 'utf8').toString('latin1'));
    expect(((await jose.json()) as { viewer: { user: string } }).viewer.user).toBe('José');
  });

  it('needs no identity for the operations routes and the web app', async () => {
    for (const path of ['/livez', '/readyz', '/metrics', '/openapi.json', '/']) expect((await s.get(path)).status, path).toBe(200);
  });

  it('refuses --auth none off a loopback address, before listening', async () => {
    await expect(startServer({ paths: [join(ROOT, POLICY)], host: '0.0.0.0', port: 0, auth: parseAuth('none') })).rejects.toMatchObject({ code: 'serve/auth-none-not-loopback' });
    expect(() => parseAuth('header:')).toThrow(expect.objectContaining({ code: 'serve/bad-auth' }));
  });

  it('takes bearer tokens by their SHA-256 and reads the token file again when it changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'quotient-tokens-'));
    const file = join(dir, 'tokens');
    const sha = (t: string): string => createHash('sha256').update(t).digest('hex');
    writeFileSync(file, `# tokens\n${sha('s3cret-alice')} alice\n`);
    const t = await serve([POLICY], { authText: `tokens:${file}`, tokenPollMs: 50 });
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    expect((await t.get('/v1/status', undefined, bearer('s3cret-alice'))).status).toBe(200);
    expect(((await (await t.get('/v1/status', undefined, bearer('s3cret-alice'))).json()) as { viewer: { user: string } }).viewer.user).toBe('alice');
    expect((await t.get('/v1/status', undefined, bearer('wrong'))).status).toBe(401);
    expect((await t.get('/v1/status')).status).toBe(401);
    writeFileSync(file, `${sha('s3cret-carol')} carol\n`);
    await until(async () => (await t.get('/v1/status', undefined, bearer('s3cret-carol'))).status === 200, 10_000, 'the new token file');
    expect((await t.get('/v1/status', undefined, bearer('s3cret-alice'))).status).toBe(401);
    // A broken file keeps the tokens in use.
    writeFileSync(file, 'not a token line\n');
    await new Promise((r) => setTimeout(r, 300));
    expect((await t.get('/v1/status', undefined, bearer('s3cret-carol'))).status).toBe(200);
  });
});

describe('bad requests', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await serve([POLICY], { bodyLimit: 4096 });
  });

  it.each([
    ['an unknown field', { submit: TEAM_A_JOB, sumbit: 1 }, 'sumbit'],
    ['too many jobs', { submits: Array.from({ length: 101 }, () => ({})) }, 'submits'],
    ['a job that is not an object', { submits: [TEAM_A_JOB, 'x'] }, 'submits[1]'],
    ['estimate not a boolean', { submit: TEAM_A_JOB, estimate: 'yes' }, 'estimate'],
  ])('refuses %s with 400 serve/bad-request and the field path', async (_what, body, path) => {
    const r = await s.post('/v1/whatif', body, 'alice');
    expect(r.status).toBe(400);
    const doc = (await r.json()) as { code: string; path: string; requestId: string; message: string };
    expect(doc).toMatchObject({ kind: 'Error', code: 'serve/bad-request', path });
    expect(doc.requestId).toBe(r.headers.get('x-request-id'));
    expect(doc.message).not.toMatch(/\n\s+at /);
  });

  it('refuses a body with neither submit, submits nor query, and one with two of them', async () => {
    expect((await s.post('/v1/whatif', {}, 'alice')).status).toBe(400);
    expect((await s.post('/v1/whatif', { submit: TEAM_A_JOB, query: 'team-a-inference' }, 'alice')).status).toBe(400);
  });

  it('refuses a body that is not JSON (400 serve/bad-json), not application/json (415) or over the limit (413)', async () => {
    const bad = await s.post('/v1/whatif', '{"submit": ', 'alice');
    expect([bad.status, ((await bad.json()) as { code: string }).code]).toEqual([400, 'serve/bad-json']);
    const text = await httpCall(`${s.url}/v1/whatif`, { method: 'POST', headers: { 'x-remote-user': 'alice', 'content-type': 'text/plain' }, body: 'hello' });
    expect([text.status, ((await text.json()) as { code: string }).code]).toEqual([415, 'serve/unsupported-media-type']);
    const big = await s.post('/v1/whatif', { submit: { ...TEAM_A_JOB, name: 'x'.repeat(5000) } }, 'alice');
    expect([big.status, ((await big.json()) as { code: string }).code]).toEqual([413, 'serve/body-too-large']);
  });

  it('answers an unknown route with 404 serve/not-found, and refuses bad query values', async () => {
    const r = await s.get('/v2/whatif', 'alice');
    expect([r.status, ((await r.json()) as { code: string }).code]).toEqual([404, 'serve/not-found']);
    const q = await s.get('/v1/jobs?mine=maybe', 'alice');
    expect([q.status, ((await q.json()) as { code: string; path: string }).path]).toEqual([400, 'mine']);
  });

  it('sends a request id, no-store for answers and a content security policy for pages', async () => {
    const r = await s.get('/v1/quotas', 'alice');
    expect(r.headers.get('x-request-id')).toMatch(/^[a-z0-9]+-[a-z0-9]+$/);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    const page = await s.get('/');
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
  });
});
