/**
 * Live state (docs/serve.md "Reload"): an edit is loaded off the request path and
 * swapped in whole; a broken edit keeps the last good version serving and shows its
 * findings. Clients ask all the while: no request fails, and every response is, byte for
 * byte, what the version it names answers (no mixed versions).
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { policyCopy, serve, TEAM_A_JOB, until, type TestServer } from './serve-helpers.js';

describe('reload', () => {
  let dir: string;
  let s: TestServer;
  let original: string;
  /** Quota1's child-level preemption reaches priority 1 only: the job waits instead of preempting. */
  let narrowed: string;
  /** Not a valid policy: a negative guarantee. */
  const broken = (text: string): string => text.replace('min: { gpu: 48 }', 'min: { gpu: -48 }');
  const write = (text: string): void => {
    // Atomically, as an editor or git-sync does: a half-written file is never read.
    const tmp = join(dir, '.quotas.yaml.tmp');
    writeFileSync(tmp, text);
    renameSync(tmp, join(dir, 'quotas.yaml'));
  };
  const status = async (): Promise<{ version: string | null; lastLoad: { version: string | null; ok: boolean; stage?: string; findings: Array<{ code: string; file: string; line: number }> } }> =>
    (await (await s.get('/v1/status', 'alice')).json()) as never;

  beforeAll(async () => {
    dir = policyCopy('policies/inference-preempts-training');
    original = readFileSync(join(dir, 'quotas.yaml'), 'utf8');
    narrowed = original.replace('preemptiblePriority: 1-3', 'preemptiblePriority: 1-1');
    s = await serve([dir], { pollMs: 50 });
  });

  it('keeps the last good version serving through a broken edit, and shows its findings', async () => {
    const good = (await status()).version;
    expect(good).toMatch(/^[0-9a-f]{16}$/);
    write(broken(original));
    await until(async () => (await status()).lastLoad.ok === false, 20_000, 'the broken edit to be tried');
    const st = await status();
    expect(st.version).toBe(good);
    expect(st.lastLoad.version).not.toBe(good);
    expect(st.lastLoad.stage).toBe('open');
    expect(st.lastLoad.findings.map((f) => f.code)).toContain('policy/out-of-range');
    expect(st.lastLoad.findings[0]!.file).toContain('quotas.yaml');
    const r = await s.post('/v1/whatif', { submit: TEAM_A_JOB }, 'alice');
    expect(r.status).toBe(200);
    expect(r.headers.get('quotient-policy-version')).toBe(good);
    expect((await (await s.get('/readyz')).json()) as unknown).toMatchObject({ status: 'ready', version: good });
    const metrics = await (await s.get('/metrics')).text();
    expect(metrics).toMatch(/^quotient_policy_load_failures_total\{stage="open"\} [1-9]/m);
    expect(metrics).toMatch(/^quotient_policy_last_load_ok 0/m);
    write(original);
    await until(async () => (await status()).lastLoad.ok, 20_000, 'the fixed policy');
    expect((await status()).version).toBe(good);
  });

  it('answers every request while versions are swapped in a loop, each whole from the version it names', async () => {
    const asks = [1, 2, 3, 4].map((pods) => ({ submit: { ...TEAM_A_JOB, name: `q-${pods}`, pods } }));
    // The canonical answers of each version, asked while it alone serves.
    const canonical = new Map<string, string>();
    const learn = async (text: string, previous?: string): Promise<string> => {
      write(text);
      await until(
        async () => {
          const st = await status();
          return (
            st.lastLoad.ok && st.version !== previous && st.version === st.lastLoad.version && (await s.post('/v1/whatif', asks[0], 'alice')).headers.get('quotient-policy-version') === st.version
          );
        },
        20_000,
        'the version to serve',
      );
      const version = (await status()).version!;
      for (const [i, body] of asks.entries()) canonical.set(`${version}/${i}`, await (await s.post('/v1/whatif', body, 'alice')).text());
      return version;
    };
    const a = await learn(original);
    const b = await learn(narrowed, a);
    expect(a).not.toBe(b);
    expect(canonical.get(`${a}/1`)).not.toBe(canonical.get(`${b}/1`));

    let stop = false;
    const seen = new Map<string, number>();
    let failures = 0;
    const client = async (k: number): Promise<void> => {
      for (let n = 0; !stop; n++) {
        const i = (n + k) % asks.length;
        const r = await s.post('/v1/whatif', asks[i], 'alice');
        const version = r.headers.get('quotient-policy-version') ?? 'none';
        const text = await r.text();
        if (r.status !== 200 || canonical.get(`${version}/${i}`) !== text) failures++;
        seen.set(version, (seen.get(version) ?? 0) + 1);
      }
    };
    const reloadsBefore = Number(/^quotient_policy_reloads_total (\d+)/m.exec(await (await s.get('/metrics')).text())?.[1]);
    const clients = Array.from({ length: 8 }, (_, k) => client(k));
    // Good and broken edits in turn; each good one is waited for until it serves, each broken one until it was tried.
    const rounds: Array<[string, string | undefined]> = [
      [original, a],
      [broken(original), undefined],
      [narrowed, b],
      [broken(narrowed), undefined],
    ];
    for (let round = 0; round < 8; round++) {
      const [text, version] = rounds[round % rounds.length]!;
      write(text);
      if (version) await until(async () => (await status()).version === version, 20_000, 'the good edit to serve');
      else await until(async () => !(await status()).lastLoad.ok, 20_000, 'the broken edit to be tried');
      await new Promise((r) => setTimeout(r, 100));
    }
    stop = true;
    await Promise.all(clients);
    expect(failures).toBe(0);
    expect([...seen.keys()].sort()).toEqual([a, b].sort());
    expect(Math.min(...seen.values())).toBeGreaterThan(5);
    const reloadsAfter = Number(/^quotient_policy_reloads_total (\d+)/m.exec(await (await s.get('/metrics')).text())?.[1]);
    expect(reloadsAfter - reloadsBefore).toBeGreaterThanOrEqual(3);
  });
});
