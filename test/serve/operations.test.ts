/**
 * Operating the server: Prometheus metrics named quotient_*, one structured log line per
 * request with its id, caller, version and decisions and nothing unescaped, the OpenAPI
 * document made from the routes' schemas (and real responses held to it), a slow client
 * cut off, and the snapshot read from a command.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/run-cli.js';
import { policyCopy, serve, TEAM_A_JOB, until, type TestServer } from './serve-helpers.js';

const POLICY = 'policies/inference-preempts-training';

/** Every character a terminal obeys or that reorders text (display-text.ts's set). */
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('metrics and logs', () => {
  let s: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = policyCopy(POLICY);
    s = await serve([dir], { pollMs: 50 });
  });

  it('counts requests, latency, decisions by kind, reloads and load failures, every name quotient_*', async () => {
    await s.post('/v1/whatif', { submit: TEAM_A_JOB }, 'alice');
    await s.post('/v1/whatif', { submit: TEAM_A_JOB }, 'alice');
    const text = await (await s.get('/metrics')).text();
    const names = [...text.matchAll(/^([a-z_:]+)(?:\{|\s)/gm)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(10);
    expect(names.filter((n) => !n.startsWith('quotient_'))).toEqual([]);
    expect(text).toMatch(/^quotient_http_requests_total\{method="POST",route="\/v1\/whatif",status="200"\} 2$/m);
    expect(text).toMatch(/^quotient_http_request_duration_seconds_bucket\{le="0.05",method="POST",route="\/v1\/whatif"\} \d+$/m);
    expect(text).toMatch(/^quotient_decisions_total\{decision="preempt"\} 2$/m);
    expect(text).toMatch(/^quotient_policy_reloads_total 1$/m);
    expect(text).toMatch(/^quotient_response_cache_total\{result="hit"\} 1$/m);
    expect(text).toMatch(/^quotient_policy_info\{version="[0-9a-f]{16}"\} 1$/m);
    expect(text).toMatch(/^quotient_ready 1$/m);
  });

  it('logs one line per request with its id, the caller, the version and the decisions; nothing in the log is unescaped', async () => {
    const r = await s.post('/v1/whatif', { submit: { ...TEAM_A_JOB, pods: 1 } }, 'alice');
    const id = r.headers.get('x-request-id');
    await until(() => s.logs.some((l) => l.reqId === id), 5000, 'the log line');
    const line = s.logs.find((l) => l.reqId === id)!;
    expect(line).toMatchObject({ route: '/v1/whatif', status: 200, user: 'alice', version: r.headers.get('quotient-policy-version'), decisions: ['preempt'], cache: 'miss' });
    // A file whose name holds U+202E, and a caller whose name holds a C1 control: both reach the log only escaped.
    writeFileSync(join(dir, 'bad\u202e.yaml'), 'kind: [\n');
    await until(() => s.logs.some((l) => l.event === 'policy-load-failed'), 20_000, 'the failed load');
    await s.get('/v1/quotas', 'car\u0085ol');
    expect(s.logText()).toContain('u{202E}');
    expect(UNSAFE.test(s.logText().replaceAll('\n', ''))).toBe(false);
  });
});

describe('OpenAPI', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await serve([POLICY]);
  });

  it("is made from the routes' schemas, and the routes' answers fit it", async () => {
    const doc = (await (await s.get('/openapi.json')).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.openapi).toMatch(/^3\./);
    for (const path of ['/v1/whatif', '/v1/whatif/pai', '/v1/quotas', '/v1/nodes', '/v1/jobs', '/v1/jobs/{name}/explain', '/v1/status', '/livez', '/readyz', '/metrics'])
      expect(Object.keys(doc.paths)).toContain(path);
    expect(doc.components.schemas.JobSubmit).toMatchObject({ type: 'object', properties: expect.objectContaining({ priority: expect.anything(), resources: expect.anything() }) });
    const ajv = new Ajv({ strict: false, validateFormats: false });
    const check = (path: string, method: string, status: number, body: unknown): void => {
      const schema = doc.paths[path]![method]!.responses[String(status)]!.content!['application/json']!.schema;
      const validate = ajv.compile(jsonSchemaOf(schema) as object);
      expect(validate(body), `${method} ${path} ${status}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    check('/v1/quotas', 'get', 200, await (await s.get('/v1/quotas', 'carol')).json());
    check('/v1/nodes', 'get', 200, await (await s.get('/v1/nodes', 'carol')).json());
    check('/v1/jobs', 'get', 200, await (await s.get('/v1/jobs', 'carol')).json());
    check('/v1/jobs/{name}/explain', 'get', 200, await (await s.get('/v1/jobs/dsw-c-notebooks/explain', 'carol')).json());
    check('/v1/jobs/{name}/explain', 'get', 404, await (await s.get('/v1/jobs/train-b-llm/explain', 'carol')).json());
    check('/v1/status', 'get', 200, await (await s.get('/v1/status', 'carol')).json());
    check('/v1/whatif', 'post', 200, await (await s.post('/v1/whatif', { submit: TEAM_A_JOB }, 'alice')).json());
    check('/v1/whatif', 'post', 401, await (await s.post('/v1/whatif', { submit: TEAM_A_JOB })).json());
  });
});

/** An OpenAPI 3.0 schema as JSON Schema: `nullable: true` becomes a type that allows null. */
function jsonSchemaOf(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(jsonSchemaOf);
  if (typeof v !== 'object' || v === null) return v;
  const o = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsonSchemaOf(x)])) as Record<string, unknown>;
  if (o.nullable === true && typeof o.type === 'string') o.type = [o.type, 'null'];
  delete o.nullable;
  return o;
}

describe('slow clients', () => {
  it('cuts a client that does not send its whole request in time (408), and goes on answering others', async () => {
    const s = await serve([POLICY], { requestTimeoutMs: 600, headersTimeoutMs: 600 });
    const url = new URL(s.url);
    const started = Date.now();
    const reply = await new Promise<string>((resolve) => {
      const sock = connect(Number(url.port), url.hostname, () => {
        // Headers promise a body of 100 bytes; only 10 come.
        sock.write('POST /v1/whatif HTTP/1.1\r\nHost: x\r\nX-Remote-User: alice\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"submit":');
      });
      let out = '';
      sock.on('data', (d: Buffer) => (out += d.toString()));
      sock.on('close', () => resolve(out));
      // Not cut at all: give up rather than wait for the test's own timeout.
      setTimeout(() => sock.destroy(), 15_000).unref();
    });
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await s.get('/v1/quotas', 'alice')).status).toBe(200);
  });
});

describe('the snapshot from a command', () => {
  it("reads kubectl's JSON as `import kubectl` does, names it in every answer, reloads when it changes, and keeps the last good snapshot when the command fails", async () => {
    const dir = policyCopy('test/fixtures/interop');
    const state = join(dir, 'kubectl-state.json');
    const command = `cat '${state}'`;
    const s = await serve([join(dir, 'policy/quotas.yaml')], { authText: 'none', snapshot: { command, everyMs: 100, timeoutMs: 10_000, maxBytes: 1 << 24 } });
    const st = (await (await s.get('/v1/status')).json()) as { version: string; snapshot: Record<string, unknown> };
    expect(st.snapshot).toMatchObject({ name: 'imported', source: 'command', command });
    const answer = (await (await s.post('/v1/whatif', { submit: { workspace: 'team-b', quota: 'team-b', module: 'DLC', priority: 3, pods: 1, resources: { gpu: 1 } } })).json()) as {
      answers: Array<{ snapshot: { files: string[] } }>;
    };
    expect(answer.answers[0]!.snapshot.files).toEqual(['--snapshot-command']);
    const nodes = (await (await s.get('/v1/nodes')).json()) as { nodes: Array<{ name: string }> };
    expect(nodes.nodes.map((n) => n.name)).toContain('gpu-node-00');
    // A node more: a new version.
    const json = JSON.parse(readFileSync(state, 'utf8')) as { items: Array<{ kind: string; metadata: { name: string; uid: string } }> };
    const node = structuredClone(json.items.find((i) => i.kind === 'Node')!);
    node.metadata.name = 'gpu-node-99';
    node.metadata.uid = 'n-99';
    json.items.push(node);
    writeFileSync(state, JSON.stringify(json));
    await until(async () => ((await (await s.get('/v1/status')).json()) as { version: string }).version !== st.version, 20_000, 'the new snapshot');
    const after = (await (await s.get('/v1/nodes')).json()) as { nodes: Array<{ name: string }> };
    expect(after.nodes.map((n) => n.name)).toContain('gpu-node-99');
    // The command fails: the last good snapshot serves, the status says why.
    writeFileSync(state, '');
    await until(async () => ((await (await s.get('/v1/status')).json()) as { lastLoad: { ok: boolean } }).lastLoad.ok === false, 20_000, 'the failure');
    const failed = (await (await s.get('/v1/status')).json()) as { version: string; lastLoad: { stage: string; findings: Array<{ code: string }> } };
    expect(failed.lastLoad.stage).toBe('snapshot-command');
    expect(failed.version).not.toBe(st.version);
    expect((await s.get('/readyz')).status).toBe(200);
    expect(readFileSync(join(ROOT, 'test/fixtures/interop/kubectl-state.json'), 'utf8').length).toBeGreaterThan(0);
  });
});
