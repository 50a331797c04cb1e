/**
 * What the server shows a caller who is not an administrator, beyond the listings
 * (docs/serve.md "Isolation"; issue 27 items 10 and 11): the snapshot command line and the
 * words of its failure are the administrator's (a command line may hold a token, its error
 * output names pods); a finding about a hidden job (a derived standing) is anonymous, with
 * no line, priority or name; and a caller is the submitter of what they ask, unless they
 * are an administrator.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { policyCopy, serve, until, type TestServer } from './serve-helpers.js';

const SECRET = 's3cr3t-t0ken';

/** The interop fixture with a member in each workspace (ana: team-a, ben: team-b). */
function withMembers(dir: string): void {
  const quotas = join(dir, 'policy/quotas.yaml');
  writeFileSync(
    quotas,
    readFileSync(quotas, 'utf8')
      .replace('spec: { quotas: [team-a, platform] }', 'spec: { quotas: [team-a, platform], members: [ { user: ana, role: developer } ] }')
      .replace('spec: { quotas: [team-b] }', 'spec: { quotas: [team-b], members: [ { user: ben, role: developer } ] }'),
  );
}

describe('the snapshot command in the status', () => {
  let s: TestServer;
  let state: string;
  beforeAll(async () => {
    const dir = policyCopy('test/fixtures/interop');
    withMembers(dir);
    state = join(dir, 'kubectl-state.json');
    // The command line holds a token; when the state is empty it fails, saying a pod's name and the token on stderr.
    const command = `TOKEN=${SECRET}; if [ -s '${state}' ]; then cat '${state}'; else echo "pod team-a/debug-0: denied for $TOKEN" >&2; exit 3; fi`;
    s = await serve([join(dir, 'policy/quotas.yaml')], { admins: ['root'], snapshot: { command, everyMs: 100, timeoutMs: 10_000, maxBytes: 1 << 24 } });
  });

  it("shows the command line and its failure's words to an administrator only", async () => {
    const before = (await (await s.get('/v1/status', 'ben')).json()) as { snapshot: Record<string, unknown> };
    expect(before.snapshot).toMatchObject({ source: 'command' });
    expect(before.snapshot.command).toBeUndefined();
    expect(before.snapshot.checkedAt).toBeUndefined();
    const admin = (await (await s.get('/v1/status', 'root')).json()) as { snapshot: Record<string, unknown> };
    expect(String(admin.snapshot.command)).toContain(SECRET);
    writeFileSync(state, '');
    await until(async () => ((await (await s.get('/v1/status', 'root')).json()) as { lastLoad: { ok: boolean } }).lastLoad.ok === false, 20_000, 'the failure');
    const rootText = await (await s.get('/v1/status', 'root')).text();
    expect(rootText).toContain('team-a/debug-0');
    expect(rootText).toContain(SECRET);
    for (const user of ['ben', 'ana', 'stranger']) {
      const text = await (await s.get('/v1/status', user)).text();
      expect(text, user).not.toContain(SECRET);
      // ana may read her own team's jobs (a derived standing names one); ben and a stranger may not.
      if (user !== 'ana') expect(text, user).not.toContain('debug-0');
      const doc = JSON.parse(text) as { lastLoad: { ok: boolean; stage: string; findings: Array<{ code: string; message: string }> } };
      expect(doc.lastLoad).toMatchObject({ ok: false, stage: 'snapshot-command' });
      expect(doc.lastLoad.findings.map((f) => f.code)).toEqual(['serve/snapshot-command-failed']);
      expect(doc.lastLoad.findings[0]!.message).toBe('the last run of the snapshot command failed; the last good snapshot keeps serving');
    }
  });
});

describe('findings about a hidden job', () => {
  it('are anonymous: the workspace and the code, never the name, priority or line', async () => {
    const dir = policyCopy('test/fixtures/interop');
    withMembers(dir);
    const s = await serve([join(dir, 'policy')]);
    type Doc = { findings: Array<{ code: string; message: string; file: string; line: number; path: string }> };
    const ana = (await (await s.get('/v1/status', 'ana')).json()) as Doc;
    const ben = (await (await s.get('/v1/status', 'ben')).json()) as Doc;
    const own = ana.findings.filter((f) => f.message.includes('"team-a/debug-0"'));
    expect(own).toHaveLength(1);
    expect(own[0]!.line).toBeGreaterThan(0);
    const hidden = ben.findings.filter((f) => f.code === 'policy/derived-standing' && f.message.includes('team-a'));
    expect(hidden.length).toBeGreaterThan(0);
    for (const f of hidden) {
      expect(f).toMatchObject({ file: '', line: 0, path: '' });
      expect(f.message).toMatch(/^a job of team-a on \S+, which you may not see, has a warning \(policy\/derived-standing\)$/);
    }
    expect(JSON.stringify(ben)).not.toContain('debug-0');
    // ben's own job's finding stays whole, with its line.
    expect(ben.findings.find((f) => f.message.includes('"team-b/llama-pretrain"'))?.line).toBeGreaterThan(0);
    // The same findings ride on every answer, and read the same there.
    const answer = (await (await s.post('/v1/whatif', { submit: { workspace: 'team-b', quota: 'team-b', module: 'DLC', priority: 3, pods: 1, resources: { gpu: 1 } } }, 'ben')).json()) as Doc;
    expect(answer.findings.filter((f) => f.code === 'policy/derived-standing' && f.message.includes('team-a'))).toEqual(hidden);
  });
});

describe('who submits', () => {
  let s: TestServer;
  beforeAll(async () => {
    const dir = policyCopy('test/fixtures/interop');
    withMembers(dir);
    s = await serve([join(dir, 'policy')], { admins: ['root'] });
  });
  const job = { workspace: 'team-a', quota: 'team-a', module: 'DLC', priority: 3, pods: 1, resources: { gpu: 1 } };

  it('refuses a caller who names another submitter (bob as alice would pass her membership check)', async () => {
    const r = await s.post('/v1/whatif', { submit: { ...job, submittedBy: 'ana' } }, 'ben');
    expect(r.status).toBe(400);
    const doc = (await r.json()) as { findings: Array<{ code: string; path: string; message: string }> };
    expect(doc.findings).toEqual([expect.objectContaining({ code: 'request/not-submitter', path: 'submit.submittedBy', message: 'submittedBy must be you (ben): you ask as yourself' })]);
    // Several jobs: the one that names another is refused at its own index.
    const many = await s.post('/v1/whatif', { submits: [job, { ...job, submittedBy: 'ana' }] }, 'ben');
    expect(many.status).toBe(400);
    expect(((await many.json()) as { findings: Array<{ path: string }> }).findings.map((f) => f.path)).toEqual(['submits[1].submittedBy']);
  });

  it('takes the caller as submitter, named or not, and lets an administrator name anyone', async () => {
    for (const submit of [job, { ...job, submittedBy: 'ben' }]) {
      const r = await s.post('/v1/whatif', { submit }, 'ben');
      expect(r.status).toBe(200);
      // ben is no member of team-a: his own membership is what the answer checks.
      expect(await r.text()).toContain('admission/access-denied');
    }
    const r = await s.post('/v1/whatif', { submit: { ...job, submittedBy: 'ana' } }, 'root');
    expect(r.status).toBe(200);
    expect(await r.text()).not.toContain('admission/access-denied');
  });
});
