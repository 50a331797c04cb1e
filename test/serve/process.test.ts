/**
 * `quotient serve` as a process, as Kubernetes runs it: SIGTERM makes /readyz fail,
 * the requests in flight are answered, and the process exits 0; what cannot be served is
 * refused at start with exit 2 and one line saying why.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quotient, ROOT } from '../helpers/run-cli.js';
import { httpCall, TEAM_A_JOB, until } from './serve-helpers.js';

const MAIN = join(ROOT, 'dist/cli/main.js');

/** Starts `quotient serve ARGS` and resolves with its URL once it listens. */
function start(args: string[]): Promise<{ child: ChildProcess; url: string; stderr: () => string; exit: Promise<number | null> }> {
  const child = spawn(process.execPath, [MAIN, 'serve', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not listening: ${err}`)), 60_000);
    child.stderr.on('data', () => {
      const m = / at (http:\/\/[^\s]+)\n/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, stderr: () => err, exit });
      }
    });
    void exit.then((code) => reject(new Error(`exited ${code}: ${err}`)));
  });
}

describe('quotient serve (process)', () => {
  it('on SIGTERM fails /readyz, answers what is in flight, and exits 0', async () => {
    const { child, url, exit } = await start(['policies/inference-preempts-training', '--listen', '127.0.0.1:0', '--auth', 'header:X-Remote-User', '--drain-delay', '1s']);
    await until(async () => (await httpCall(`${url}/readyz`)).status === 200, 60_000, 'ready');
    const ask = () =>
      httpCall(`${url}/v1/whatif`, {
        method: 'POST',
        headers: { 'x-remote-user': 'alice', 'content-type': 'application/json' },
        body: JSON.stringify({ submit: { ...TEAM_A_JOB, name: `j-${Math.random()}` } }),
      });
    const inFlight = Array.from({ length: 20 }, ask);
    child.kill('SIGTERM');
    const answers = await Promise.all(inFlight);
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    // During the drain delay /readyz says so, and answers still come.
    const ready = await httpCall(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { status: string }).status).toBe('draining');
    expect(await exit).toBe(0);
  });

  it('refuses to start what it cannot serve: exit 2 and one line with the reason', () => {
    const none = quotient(['serve', 'policies/inference-preempts-training', '--listen', '0.0.0.0:0', '--auth', 'none']);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/--auth none on 0\.0\.0\.0/);
    const several = quotient(['serve', 'policies', '--listen', '127.0.0.1:0', '--auth', 'none']);
    expect(several.status).toBe(2);
    expect(several.stderr).toMatch(/make \d+ policies/);
    const noAuth = quotient(['serve', 'policies/inference-preempts-training']);
    expect(noAuth.status).toBe(2);
    expect(noAuth.stderr).toMatch(/needs --auth/);
    for (const r of [none, several, noAuth]) expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a taken port: exit 2 and "port in use", not an internal error', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const r = quotient(['serve', 'policies/inference-preempts-training', '--listen', `127.0.0.1:${port}`, '--auth', 'none', '--log-level', 'silent']);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`port in use: another process listens on 127.0.0.1:${port}`);
      expect(r.stderr).not.toMatch(/internal error|bug in Quotient/);
    } finally {
      taken.close();
    }
  });
});
