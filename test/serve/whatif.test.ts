/**
 * POST /v1/whatif and /v1/whatif/pai: the CLI's WhatIfReport byte for byte (the same
 * question asked as `quotient whatif --submit ... --json --as USER`), invalid jobs as a
 * 400 WhatIfReport whose findings name the request's fields, and the PAI request's
 * findings pointing into the body.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { schemaErrors } from '../helpers/report.js';
import { quotient, ROOT } from '../helpers/run-cli.js';
import { serve, TEAM_A_JOB, TEAM_A_PAIRS, type TestServer } from './serve-helpers.js';

const POLICY = 'policies/inference-preempts-training';

describe('POST /v1/whatif', () => {
  let s: TestServer;
  let admin: TestServer;
  beforeAll(async () => {
    s = await serve([POLICY]);
    admin = await serve([POLICY], { authText: 'none' });
  });

  it.each(['alice', 'carol', 'bob'])('answers %s byte for byte as `quotient whatif --submit --json --as` does', async (user) => {
    const r = await s.post('/v1/whatif', { submit: TEAM_A_JOB }, user);
    const cli = quotient(['whatif', POLICY, '--submit', ...TEAM_A_PAIRS, '--json', '--as', user]);
    expect(cli.status).toBe(0);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const text = await r.text();
    expect(text).toBe(cli.stdout);
    expect(schemaErrors('WhatIfReport', JSON.parse(text))).toEqual([]);
    expect(r.headers.get('quotient-policy-version')).toMatch(/^[0-9a-f]{16}$/);
  });

  it('answers an administrator (--auth none) as the CLI without --as', async () => {
    const r = await admin.post('/v1/whatif', { submit: TEAM_A_JOB });
    expect(await r.text()).toBe(quotient(['whatif', POLICY, '--submit', ...TEAM_A_PAIRS, '--json']).stdout);
  });

  it("shows bob another team's victim only as anonymous usage, byte for byte as `--as bob` does; alice (admin of the parent quota) by name", async () => {
    const iso = await serve(['policies/team-isolation']);
    const bob = await iso.post('/v1/whatif', { query: 'team-a-service' }, 'bob');
    expect(await bob.text()).toBe(quotient(['whatif', 'policies/team-isolation', '--query', 'team-a-service', '--json', '--as', 'bob']).stdout);
    const seen = (await (await iso.post('/v1/whatif', { query: 'team-a-service' }, 'bob')).json()) as { answers: Array<{ victims: Array<{ job: string; hidden?: boolean }> }> };
    expect(seen.answers[0]!.victims).toEqual([expect.objectContaining({ job: '(hidden: workspace-c)', hidden: true })]);
    const alice = (await (await iso.post('/v1/whatif', { query: 'team-a-service' }, 'alice')).json()) as typeof seen;
    expect(alice.answers[0]!.victims.some((v) => v.hidden)).toBe(false);
  });

  it('answers several jobs in order, each as its own request would be', async () => {
    const second = { ...TEAM_A_JOB, quota: 'Quota1.2', workspace: 'workspace-c', module: 'DSW', priority: 3 };
    const r = (await (await s.post('/v1/whatif', { submits: [TEAM_A_JOB, second] }, 'alice')).json()) as { answers: unknown[] };
    const one = (await (await s.post('/v1/whatif', { submit: TEAM_A_JOB }, 'alice')).json()) as { answers: unknown[] };
    const two = (await (await s.post('/v1/whatif', { submit: second }, 'alice')).json()) as { answers: unknown[] };
    expect(r.answers).toEqual([one.answers[0], two.answers[0]]);
  });

  it('answers a WhatIf document of the policy by name (as `whatif --query`)', async () => {
    const r = await admin.post('/v1/whatif', { query: 'team-a-inference' });
    expect(await r.text()).toBe(quotient(['whatif', POLICY, '--query', 'team-a-inference', '--json']).stdout);
  });

  it('refuses an invalid job with a 400 WhatIfReport naming each field, with the codes of the policy loader', async () => {
    const r = await s.post('/v1/whatif', { submit: { ...TEAM_A_JOB, priority: 'x', bogus: 1 } }, 'alice');
    expect(r.status).toBe(400);
    const doc = (await r.json()) as { kind: string; answers: unknown[]; findings: Array<{ code: string; path: string; file: string; line: number }> };
    expect(doc.kind).toBe('WhatIfReport');
    expect(doc.answers).toEqual([]);
    expect(doc.findings.map((f) => [f.code, f.path, f.file, f.line])).toEqual(
      expect.arrayContaining([
        ['policy/invalid-type', 'submit.priority', 'request', 0],
        ['policy/unknown-field', 'submit.bogus', 'request', 0],
      ]),
    );
  });

  it('names the element of submits at fault', async () => {
    const r = await s.post('/v1/whatif', { submits: [TEAM_A_JOB, { ...TEAM_A_JOB, quota: 'NoSuchQuota' }] }, 'alice');
    expect(r.status).toBe(400);
    const doc = (await r.json()) as { findings: Array<{ code: string; path: string }> };
    expect(doc.findings.map((f) => [f.code, f.path])).toEqual([['policy/unknown-quota', 'submits[1].quota']]);
  });

  it('does not confirm the name of a hidden job: a submission named like one is answered under its own name', async () => {
    const r = await s.post('/v1/whatif', { submit: { ...TEAM_A_JOB, name: 'train-b-llm' } }, 'carol');
    expect(r.status).toBe(200);
    const doc = (await r.json()) as { answers: Array<{ job: string }> };
    expect(doc.answers[0]!.job).toBe('train-b-llm');
    // An administrator asking without a view gets the loader's finding, as the CLI does.
    const a = await admin.post('/v1/whatif', { submit: { ...TEAM_A_JOB, name: 'train-b-llm' } });
    expect(a.status).toBe(400);
    expect(((await a.json()) as { findings: Array<{ code: string }> }).findings.map((f) => f.code)).toEqual(['policy/duplicate-job']);
  });

  it('takes `as` from an administrator only', async () => {
    const r = await admin.post('/v1/whatif', { submit: TEAM_A_JOB, as: 'carol' });
    expect(await r.text()).toBe(quotient(['whatif', POLICY, '--submit', ...TEAM_A_PAIRS, '--json', '--as', 'carol']).stdout);
    const refused = await s.post('/v1/whatif', { submit: TEAM_A_JOB, as: 'alice' }, 'carol');
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe('auth/not-admin');
  });
});

describe('POST /v1/whatif/pai', () => {
  const policy = 'test/fixtures/interop/policy';
  const request = 'test/fixtures/interop/pai-request.json';
  let s: TestServer;
  beforeAll(async () => {
    s = await serve([policy], { authText: 'none' });
  });

  it('answers a CreateJob body byte for byte as `quotient whatif --job` does', async () => {
    const body = readFileSync(join(ROOT, request), 'utf8');
    const r = await s.post('/v1/whatif/pai', body);
    const cli = quotient(['whatif', policy, '--job', request, '--json']);
    expect(cli.status).toBe(0);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe(cli.stdout);
  });

  it("points an invalid request's findings at the body's own lines", async () => {
    const body =
      '{\n  "DisplayName": "x",\n  "JobType": "PyTorchJob",\n  "ResourceId": "no-such-quota",\n  "WorkspaceId": "team-a",\n  "JobSpecs": [ { "Type": "Worker", "PodCount": 1, "ResourceConfig": { "GPU": "8" } } ]\n}';
    const r = await s.post('/v1/whatif/pai', body);
    expect(r.status).toBe(400);
    const doc = (await r.json()) as { findings: Array<{ code: string; file: string; line: number; path: string }> };
    expect(doc.findings.map((f) => [f.code, f.file, f.line, f.path])).toEqual([['policy/unknown-quota', 'request', 4, 'ResourceId']]);
  });
});
