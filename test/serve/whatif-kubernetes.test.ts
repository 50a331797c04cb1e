/**
 * POST /v1/whatif/kubernetes: a Kubernetes manifest as YAML or JSON, answered through the
 * one pipeline as `quotient whatif DIR --job job.yaml --json` answers it (the Kueue
 * fixture imported as test/cli/manifest-whatif.test.ts imports it); a bad manifest is a
 * 400 WhatIfReport whose findings point at the body's own lines.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { schemaErrors } from '../helpers/report.js';
import { quotient, ROOT } from '../helpers/run-cli.js';
import { serve, type TestServer } from './serve-helpers.js';

const K = 'test/fixtures/interop/kueue-cluster';
const JOB = 'test/fixtures/interop/manifests/job.yaml';
const dir = mkdtempSync(join(tmpdir(), 'quotient-serve-k8s-'));
const policy = join(dir, 'policy');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Report {
  findings: Array<{ code: string; file: string; line: number; column: number; path: string }>;
  answers: Array<{ job: string; quota: string; decision: string; victims: Array<{ job: string }>; notes: Array<{ code: string; message: string }> }>;
}

/** What both sides must agree on: the decision and its parts, not the file names the notes cite. */
const gist = (r: Report) => r.answers.map((a) => ({ job: a.job, quota: a.quota, decision: a.decision, victims: a.victims.map((v) => v.job), notes: a.notes.length }));

describe('POST /v1/whatif/kubernetes', () => {
  let s: TestServer;
  let cli: Report;
  beforeAll(async () => {
    mkdirSync(policy);
    writeFileSync(join(policy, 'tree.yaml'), quotient(['import', 'kueue', `${K}/kueue.yaml`]).stdout);
    writeFileSync(join(policy, 'cluster.yaml'), quotient(['import', 'kubectl', `${K}/state.json`, '--kueue', `${K}/kueue.yaml`, '--at', '2026-11-27T12:00:00Z']).stdout);
    const r = quotient(['whatif', policy, '--job', JOB, '--json']);
    expect(r.status).toBe(0);
    cli = JSON.parse(r.stdout) as Report;
    s = await serve([policy], { authText: 'none' });
  });

  it('answers a YAML manifest as `quotient whatif --job job.yaml` does', async () => {
    const r = await s.post('/v1/whatif/kubernetes', readFileSync(join(ROOT, JOB), 'utf8'), undefined, { 'content-type': 'application/yaml' });
    expect(r.status).toBe(200);
    const doc = (await r.json()) as Report;
    expect(schemaErrors('WhatIfReport', doc)).toEqual([]);
    expect(gist(doc)).toEqual(gist(cli));
    expect(gist(doc)[0]).toMatchObject({ job: 'prod/embed-refresh', quota: 'prod-cq' });
    // The class's origin is the body's own line.
    expect(doc.answers[0]!.notes.map((n) => n.message).join('\n')).toMatch(/WorkloadPriorityClass prod-high \(value 10000, request:3:1\)/);
  });

  it('answers the same manifest sent as a JSON List', async () => {
    const items = parseAllDocuments(readFileSync(join(ROOT, JOB), 'utf8')).map((d) => d.toJS() as unknown);
    const r = await s.post('/v1/whatif/kubernetes', JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 2));
    expect(r.status).toBe(200);
    expect(gist((await r.json()) as Report)).toEqual(gist(cli));
  });

  it('is in the OpenAPI document, taking JSON and YAML', async () => {
    const doc = (await (await s.get('/openapi.json')).json()) as { paths: Record<string, { post?: { requestBody?: { content?: Record<string, unknown> } } }> };
    expect(Object.keys(doc.paths['/v1/whatif/kubernetes']?.post?.requestBody?.content ?? {})).toEqual(['application/json', 'application/yaml']);
  });

  it('refuses a JSON body nested past the limit as it is read (serve/too-deep), as every body route', async () => {
    const deep = `${'['.repeat(150)}${']'.repeat(150)}`;
    const r = await s.post('/v1/whatif/kubernetes', `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"x":${deep}}}`);
    expect(r.status).toBe(400);
    expect(((await r.json()) as Report).findings.map((f) => f.code)).toEqual(['serve/too-deep']);
  });

  it("points a bad manifest's findings at the body's lines: a 400 WhatIfReport", async () => {
    const body = readFileSync(join(ROOT, JOB), 'utf8').replace('nvidia.com/gpu: 4', 'nvidia.com/gpu: "four"');
    const r = await s.post('/v1/whatif/kubernetes', body, undefined, { 'content-type': 'application/yaml' });
    expect(r.status).toBe(400);
    const doc = (await r.json()) as Report;
    expect(doc.findings.map((f) => [f.code, f.file, f.line, f.path])).toEqual([['interop/bad-quantity', 'request', 33, 'spec.template.spec.containers[0].resources.limits.nvidia.com/gpu']]);
  });
});
