/**
 * A careless or hostile colleague (issue 27): bodies nested deep or with huge keys are
 * refused as they are read and never hold an engine slot, identity is decided on the
 * routed path and from a header sent once, and Fastify's own refusals (a URL that does
 * not decode, a path outside the web app, a taken port) say what happened in our words.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAuth } from '../../src/serve/auth.js';
import { startServer } from '../../src/serve/server.js';
import { ROOT } from '../helpers/run-cli.js';
import { serve, TEAM_A_JOB, until, type TestServer } from './serve-helpers.js';
import { join } from 'node:path';

const POLICY = 'policies/inference-preempts-training';

/** Sends `head` (request line and headers, CRLF-separated, without the blank line) and `body` raw; the status and body. */
function rawRequest(url: string, head: string, body = ''): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    // Written, not ended: a client's half-close makes Node drop a request still being answered.
    const socket = connect(Number(port), hostname, () => socket.write(`${head}\r\nHost: ${hostname}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), headers: text.slice(0, split).toLowerCase(), body: text.slice(split + 4) });
    });
  });
}

/** `{"submit":{"a":[[[…]]]}}`, `depth` lists deep. */
const deepBody = (depth: number): string => `{"submit":{"name":"x","a":${'['.repeat(depth)}${']'.repeat(depth)}}}`;

describe('bodies past their bounds', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await serve([POLICY]);
  });

  it('a body nested 5,000 deep is a quick 400 with the finding, where it is', async () => {
    const started = performance.now();
    const r = await s.post('/v1/whatif', deepBody(5000), 'mallory');
    expect(r.status).toBe(400);
    const doc = (await r.json()) as { kind: string; findings: Array<{ code: string; file: string; line: number; column: number }> };
    expect(doc.kind).toBe('WhatIfReport');
    expect(doc.findings).toEqual([expect.objectContaining({ code: 'serve/too-deep', file: 'request', line: 1 })]);
    expect(doc.findings[0]!.column).toBeGreaterThan(100);
    expect(performance.now() - started).toBeLessThan(1000);
    // The PAI route reads its body through the same bound.
    expect((await s.post('/v1/whatif/pai', `{"JobType":${'['.repeat(5000)}${']'.repeat(5000)}}`, 'mallory')).status).toBe(400);
  });

  it('640 deep-nested requests from one user leave another user answered in under a second', async () => {
    // Today's bug: each was a 500 whose engine slot stayed taken until the 30 s answer timeout, so 512 locked everyone out (503).
    const body = deepBody(5000);
    for (let sent = 0; sent < 640; sent += 64) await Promise.all(Array.from({ length: 64 }, () => s.post('/v1/whatif', body, 'mallory')));
    const started = performance.now();
    const alice = await s.post('/v1/whatif', { submit: TEAM_A_JOB }, 'alice');
    expect(alice.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1000);
  }, 60_000);

  it('a 250,000-character key is refused as read, quoted back shortened', async () => {
    const key = 'k'.repeat(250_000);
    const started = performance.now();
    const r = await s.post('/v1/whatif', `{"submit":{"name":"x","${key}":1}}`, 'mallory');
    const text = await r.text();
    expect(r.status).toBe(400);
    expect(JSON.parse(text)).toMatchObject({ findings: [{ code: 'serve/key-too-long' }] });
    expect(text).toContain('(250,000 characters)');
    expect(text.length).toBeLessThan(2000);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('a long key under the bound is a finding of the job, still quoted back whole', async () => {
    const r = await s.post('/v1/whatif', { submit: { ...TEAM_A_JOB, ['q'.repeat(200)]: 1 } }, 'alice');
    expect(r.status).toBe(400);
    const doc = (await r.json()) as { findings: Array<{ code: string; message: string }> };
    expect(doc.findings.map((f) => f.code)).toContain('policy/unknown-field');
  });
});

describe('identity', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await serve([POLICY]);
  });

  it('is asked on the routed path: /%761/jobs is /v1/jobs, and needs a caller', async () => {
    for (const path of ['/%761/jobs', '/%76%31/quotas', '/v%31/status']) {
      const r = await s.get(path);
      expect([r.status, ((await r.json()) as { code: string }).code], path).toEqual([401, 'auth/no-identity']);
    }
    expect((await s.get('/%761/jobs', 'alice')).status).toBe(200);
  });

  it('refuses a user header sent twice (Node would join them into "root, bob")', async () => {
    const r = await rawRequest(s.url, 'GET /v1/status HTTP/1.1\r\nX-Remote-User: root\r\nx-remote-user: bob');
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body)).toMatchObject({ code: 'auth/bad-identity' });
    expect(r.body).not.toContain('root, bob');
  });
});

describe("Fastify's own refusals, in our words", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await serve([POLICY]);
  });

  it('a URL that does not decode is our error document, with a request id and nosniff', async () => {
    const r = await rawRequest(s.url, 'GET /v1/jobs/%E0%A4%A/explain HTTP/1.1\r\nX-Remote-User: alice');
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ kind: 'Error', code: 'serve/bad-url', requestId: expect.any(String) });
    expect(r.headers).toContain('x-content-type-options: nosniff');
    expect(r.headers).toContain('x-request-id:');
  });

  it('a path outside the web app is 403 with its own code', async () => {
    for (const path of ['/%2e%2e/%2e%2e/package.json', '/../package.json']) {
      const r = await rawRequest(s.url, `GET ${path} HTTP/1.1`);
      expect([r.status, JSON.parse(r.body).code], path).toEqual([403, 'serve/forbidden-path']);
      expect(r.headers).toContain('x-request-id:');
    }
  });

  it('a taken port is "port in use" (serve/port-in-use), not an internal error', async () => {
    const port = Number(new URL(s.url).port);
    await expect(startServer({ paths: [join(ROOT, POLICY)], host: '127.0.0.1', port, auth: parseAuth('none'), processMetrics: false })).rejects.toMatchObject({
      code: 'serve/port-in-use',
      message: expect.stringContaining('port in use'),
    });
  });
});

describe('the token file', () => {
  const sha = (t: string): string => createHash('sha256').update(t).digest('hex');
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const tokenFile = (text: string): string => {
    const file = join(mkdtempSync(join(tmpdir(), 'quotient-tokens-')), 'tokens');
    writeFileSync(file, text, { mode: 0o600 });
    return file;
  };

  it('is read by content: a revocation that keeps its size and time is taken', async () => {
    const file = tokenFile(`${sha('alice-token')} alice\n`);
    // A whole second, so that putting it back is exact (a Date keeps only milliseconds).
    utimesSync(file, 1_700_000_000, 1_700_000_000);
    const t = await serve([POLICY], { authText: `tokens:${file}`, tokenPollMs: 50 });
    expect((await t.get('/v1/status', undefined, bearer('alice-token'))).status).toBe(200);
    const before = statSync(file);
    // Alice's line replaced by Bob's (same length), the time put back as `touch -r` or `cp -p` would.
    writeFileSync(file, `${sha('bob-token')} alice\n`);
    utimesSync(file, 1_700_000_000, 1_700_000_000);
    expect([statSync(file).size, statSync(file).mtimeMs, statSync(file).ino]).toEqual([before.size, before.mtimeMs, before.ino]);
    await until(async () => (await t.get('/v1/status', undefined, bearer('alice-token'))).status === 401, 5000, 'the revocation');
    expect((await t.get('/v1/status', undefined, bearer('bob-token'))).status).toBe(200);
  });

  it('deleted, revokes every token until it is back', async () => {
    const file = tokenFile(`${sha('alice-token')} alice\n`);
    const t = await serve([POLICY], { authText: `tokens:${file}`, tokenPollMs: 50 });
    expect((await t.get('/v1/status', undefined, bearer('alice-token'))).status).toBe(200);
    rmSync(file);
    await until(async () => (await t.get('/v1/status', undefined, bearer('alice-token'))).status === 401, 5000, 'the tokens revoked');
    expect(t.logText()).toContain('was deleted: every token is revoked');
    writeFileSync(file, `${sha('alice-token')} alice\n`, { mode: 0o600 });
    await until(async () => (await t.get('/v1/status', undefined, bearer('alice-token'))).status === 200, 5000, 'the file back');
  });

  it('writable by every user is refused at start (exit 2 from the CLI), and not taken on a reload', async () => {
    const file = tokenFile(`${sha('alice-token')} alice\n`);
    chmodSync(file, 0o666);
    await expect(startServer({ paths: [join(ROOT, POLICY)], host: '127.0.0.1', port: 0, auth: parseAuth(`tokens:${file}`), processMetrics: false })).rejects.toMatchObject({
      code: 'serve/token-file-writable',
    });
    chmodSync(file, 0o600);
    const t = await serve([POLICY], { authText: `tokens:${file}`, tokenPollMs: 50 });
    writeFileSync(file, `${sha('mallory-token')} alice\n`);
    chmodSync(file, 0o666);
    await until(() => t.logText().includes('may be written by every user'), 5000, 'the refusal in the log');
    expect((await t.get('/v1/status', undefined, bearer('mallory-token'))).status).toBe(401);
    expect((await t.get('/v1/status', undefined, bearer('alice-token'))).status).toBe(200);
  });
});
