/**
 * Servers for the serve tests: `quotient serve` in this process on 127.0.0.1 and an
 * ephemeral port (the engine threads run from dist/, so `npm run build` first, as
 * `npm test` does), policies copied to a temporary folder so a test can edit them, and
 * requests as a client sends them.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll } from 'vitest';
import { ROOT } from '../helpers/run-cli.js';
import { parseAuth } from '../../src/serve/auth.js';
import { startServer, type RunningServer, type ServeOptions } from '../../src/serve/server.js';

/** A response, read whole. */
export interface TestResponse {
  status: number;
  headers: { get(name: string): string | null; raw: IncomingHttpHeaders };
  text(): Promise<string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a client's view: any JSON
  json(): Promise<any>;
}

/**
 * One HTTP request on a fresh connection (no keep-alive: a test that blocks this process,
 * as spawnSync does, would otherwise race the server's idle timeout on a reused socket).
 */
export function httpCall(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const h = res.headers;
        resolve({
          status: res.statusCode ?? 0,
          headers: { get: (name) => (h[name.toLowerCase()] === undefined ? null : String(h[name.toLowerCase()])), raw: h },
          text: () => Promise.resolve(text),
          json: () => Promise.resolve(JSON.parse(text)),
        });
      });
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** A running test server with a client. */
export interface TestServer {
  server: RunningServer;
  url: string;
  /** Every log line, parsed. */
  logs: Array<Record<string, unknown>>;
  /** The raw log text. */
  logText: () => string;
  get(path: string, user?: string, headers?: Record<string, string>): Promise<TestResponse>;
  post(path: string, body: unknown, user?: string, headers?: Record<string, string>): Promise<TestResponse>;
  close(): Promise<void>;
}

const open: TestServer[] = [];
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
});

/** Starts `quotient serve` on `paths` (relative to the repository root unless absolute). */
export async function serve(paths: string[], options: Partial<ServeOptions> & { authText?: string; userHeader?: string } = {}): Promise<TestServer> {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  const server = await startServer({
    paths: paths.map((p) => (p.startsWith('/') ? p : join(ROOT, p))),
    host: '127.0.0.1',
    port: 0,
    auth: parseAuth(options.authText ?? 'header:X-Remote-User'),
    pollMs: 100,
    log: pino({ level: 'info' }, sink),
    processMetrics: false,
    ...options,
  });
  await server.loaded;
  const header = options.userHeader ?? 'x-remote-user';
  const withUser = (user: string | undefined, headers: Record<string, string> = {}): Record<string, string> => (user === undefined ? headers : { [header]: user, ...headers });
  let closed = false;
  const t: TestServer = {
    server,
    url: server.url,
    logs: [],
    logText: () => text,
    get: (path, user, headers) => httpCall(server.url + path, { headers: withUser(user, headers) }),
    post: (path, body, user, headers) =>
      httpCall(server.url + path, { method: 'POST', headers: withUser(user, { 'content-type': 'application/json', ...headers }), body: typeof body === 'string' ? body : JSON.stringify(body) }),
    close: async () => {
      if (closed) return;
      closed = true;
      await server.close();
    },
  };
  Object.defineProperty(t, 'logs', {
    get: () =>
      text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  });
  open.push(t);
  return t;
}

/** A copy of a shipped policy folder in a fresh temporary folder (removed after the file's tests). */
export function policyCopy(folder: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'quotient-serve-'));
  const dest = join(dir, folder.split('/').pop()!);
  cpSync(join(ROOT, folder), dest, { recursive: true });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dest;
}

/** Waits until `check` holds (polling), or fails after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 20_000, what = 'the condition'): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The job the README's tour asks about, as a WhatIf submit. */
export const TEAM_A_JOB = { workspace: 'workspace-a', quota: 'Quota1', module: 'EAS', priority: 9, pods: 2, resources: { gpu: 8 } };
/** The same as `--submit` pairs. */
export const TEAM_A_PAIRS = ['quota=Quota1', 'workspace=workspace-a', 'module=EAS', 'priority=9', 'pods=2', 'gpu=8'];
