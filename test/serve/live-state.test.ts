/**
 * Live state against what the files and the snapshot command really hold (issue 27): an
 * edit that keeps the files' sizes and times is still loaded (reloads are decided by
 * content), a snapshot run equal to the version serving clears a failed last load, the
 * snapshot command's whole process group is stopped on its timeout and when its output
 * passes the bound, and connections that send nothing are closed.
 */
import { existsSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { policyCopy, serve, until } from './serve-helpers.js';

const POLICY = 'policies/inference-preempts-training';

type Status = { version: string | null; lastLoad: { ok: boolean; stage?: string; findings: Array<{ code: string; message: string }> } };

/** True while the process `pid` runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('reloads decided by content', () => {
  it('loads an edit that keeps the size and the modification time (touch -r, cp -p, rsync -t)', async () => {
    const dir = policyCopy(POLICY);
    const file = join(dir, 'quotas.yaml');
    // A whole second, so that putting it back is exact.
    utimesSync(file, 1_700_000_000, 1_700_000_000);
    const s = await serve([dir], { pollMs: 100, watch: false });
    const status = async (): Promise<Status> => (await (await s.get('/v1/status', 'alice')).json()) as Status;
    const first = (await status()).version;
    const before = statSync(file);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('# Team B: DLC training');
    writeFileSync(file, text.replace('# Team B: DLC training', '# Team Q: DLC training'));
    utimesSync(file, 1_700_000_000, 1_700_000_000);
    const after = statSync(file);
    expect([after.size, after.mtimeMs, after.ino]).toEqual([before.size, before.mtimeMs, before.ino]);
    await until(async () => (await status()).version !== first, 10_000, 'the edit to be loaded');
    expect((await status()).lastLoad.ok).toBe(true);
  });
});

describe('the snapshot command', () => {
  it('a run equal to the version serving, after a failed one, makes the last load good again (status and metric)', async () => {
    const dir = policyCopy('test/fixtures/interop');
    const state = join(dir, 'kubectl-state.json');
    const fail = join(dir, 'fail');
    const command = `test -e '${fail}' && exit 3; cat '${state}'`;
    const s = await serve([join(dir, 'policy/quotas.yaml')], { authText: 'none', snapshot: { command, everyMs: 100, timeoutMs: 10_000, maxBytes: 1 << 24 } });
    const status = async (): Promise<Status> => (await (await s.get('/v1/status')).json()) as Status;
    const serving = (await status()).version;
    expect(serving).not.toBeNull();
    writeFileSync(fail, '');
    await until(async () => (await status()).lastLoad.ok === false, 10_000, 'the failed run');
    expect((await status()).lastLoad.stage).toBe('snapshot-command');
    expect(await (await s.get('/metrics')).text()).toMatch(/^quotient_policy_last_load_ok 0$/m);
    rmSync(fail);
    await until(async () => (await status()).lastLoad.ok, 10_000, 'the last load good again');
    expect((await status()).version).toBe(serving);
    expect(await (await s.get('/metrics')).text()).toMatch(/^quotient_policy_last_load_ok 1$/m);
  });

  it('on its timeout, every process it started is stopped, not only sh', async () => {
    const dir = policyCopy('test/fixtures/interop');
    const pidFile = join(dir, 'pid');
    // A process started in the background, then a wait past the timeout.
    const command = `sleep 60 & echo $! > '${pidFile}'; sleep 60`;
    const s = await serve([join(dir, 'policy/quotas.yaml')], { authText: 'none', snapshot: { command, everyMs: 60_000, timeoutMs: 500, maxBytes: 1 << 24 } });
    // The first run failed (the log says why), and the policy then had no Cluster to open.
    await until(() => s.logText().includes('ran longer than 500 ms'), 5000, 'the timeout in the log');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await until(() => !alive(pid), 3000, 'the background process to be stopped');
  });

  it('output past the bound stops it (and what it started) with a clear error', async () => {
    const dir = policyCopy('test/fixtures/interop');
    const pidFile = join(dir, 'pid');
    const command = `sleep 60 & echo $! > '${pidFile}'; yes quotient`;
    const s = await serve([join(dir, 'policy/quotas.yaml')], { authText: 'none', snapshot: { command, everyMs: 60_000, timeoutMs: 20_000, maxBytes: 1 << 20 } });
    await until(() => s.logText().includes('serve/snapshot-command-failed the snapshot command failed: its output is over 1 MiB'), 5000, 'the bound in the log');
    expect(existsSync(pidFile)).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await until(() => !alive(pid), 3000, 'the background process to be stopped');
  });
});

describe('connections', () => {
  it('closes a connection that never sends a byte, and one whose headers never end', async () => {
    const s = await serve([POLICY], { headersTimeoutMs: 500, requestTimeoutMs: 1000 });
    const { hostname, port } = new URL(s.url);
    const closedAfter = (send: string): Promise<number> =>
      new Promise((resolve) => {
        const started = Date.now();
        const socket = connect(Number(port), hostname, () => (send ? socket.write(send) : undefined));
        socket.resume();
        socket.on('error', () => {});
        socket.on('close', () => resolve(Date.now() - started));
      });
    const [silent, slow] = await Promise.all([closedAfter(''), closedAfter('GET /livez HTTP/1.1\r\nHost: x\r\n')]);
    expect(silent).toBeLessThan(3000);
    expect(slow).toBeLessThan(3000);
  });
});
