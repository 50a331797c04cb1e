/**
 * `npm run bench:serve`: `quotient serve` under load, over B3's snapshot (bench/b3-policy.ts:
 * 10,000 nodes × 8 GPUs, 1,011 quotas, ~39,000 running jobs), on loopback only.
 *
 * The server runs as its own process (`node dist/cli/main.js serve DIR --listen
 * 127.0.0.1:0 --auth none`), the load comes from autocannon in this process. Figures:
 * - answers per second and latency p50 / p99 of `POST /v1/whatif` at 1, 16 and 64
 *   connections, for **distinct** questions (every request a new one to the answer memo:
 *   B3's 60 WhatIfs' quotas × priority × gang shape × module × idle mode × maxRuntime, in a
 *   seeded order, none asked twice) and **repeated** ones (B3's 60 WhatIfs, over and
 *   over: the response cache answers);
 * - the server's resident memory (VmRSS of its process, threads included) sampled every
 *   500 ms over 100,000 distinct requests at 64 connections: at the start, the peak and the
 *   end (flat when the bounded caches hold);
 * - beside them, the in-process figure: the same distinct questions answered one after
 *   another by `Session.answer` in this process (B3's warm answer), as answers per second.
 * The targets (issue 20) are printed beside each figure: >= 2,000 distinct and >= 20,000
 * repeated answers/s at 64 connections, p99 <= 50 ms, RSS <= 600 MiB.
 *
 * Every (quota, priority) class is asked once before timing (each builds its eligibility
 * tables: tens of ms the first time). Every response must be 200; a sample is compared
 * with the in-process answer.
 *
 *   npm run build && npm run bench:serve
 *   npm run -s bench:serve -- --json
 *   npm run bench:serve -- --nodes 1000 --duration 3 --rss-requests 10000   # a quick look
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Session } from '../src/engine/session.js';
import { readBundles } from '../src/policy/parse/read-files.js';
import type { AnswerRequest } from '../src/engine/request.js';
import { b3Policy } from './b3-policy.js';
import { seededRandom } from './synthetic-cluster.js';

const json = process.argv.includes('--json');
const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const NODES = arg('--nodes', 10_000);
const DURATION = arg('--duration', 10);
const RSS_REQUESTS = arg('--rss-requests', 100_000);
const CONNECTIONS = [1, 16, 64];
const TARGETS = { distinct: 2000, repeated: 20_000, p99Ms: 50, rssMiB: 600 };
const say = (line: string): void => {
  if (!json) process.stderr.write(`${line}\n`);
};

/** One submit of the distinct set: a B3 query's quota with one combination of the varied fields. */
function distinctBodies(queries: Array<{ quota: string }>, seed: number): string[] {
  const quotas = [...new Set(queries.map((q) => q.quota))];
  const out: string[] = [];
  for (const quota of quotas)
    for (const priority of [7, 8, 9])
      for (const [pods, gpu] of [
        [1, 1],
        [1, 2],
        [1, 4],
        [1, 8],
        [2, 8],
        [4, 8],
      ] as const)
        for (const module of ['DLC', 'DSW', 'EAS'])
          for (const idleResources of ['none', 'acceptable'])
            for (const hours of [0, 1, 2, 3, 4, 6, 8, 12, 24])
              out.push(JSON.stringify({ submit: { workspace: workspaceOf(quota), quota, module, priority, pods, resources: { gpu }, idleResources, ...(hours ? { maxRuntime: `${hours}h` } : {}) } }));
  const random = seededRandom(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** B3's workspaces are one per division (`ws-div3` holds div3 and everything below it). */
function workspaceOf(quota: string): string {
  return `ws-${quota.split('-')[0]}`;
}

interface Run {
  kind: 'distinct' | 'repeated';
  connections: number;
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/** Loads the server with `bodies`, taken in turn from `cursor` on (never one twice when `distinct`). */
async function load(url: string, kind: Run['kind'], connections: number, bodies: string[], cursor: { at: number }, opts: { duration?: number; amount?: number }): Promise<Run> {
  const result = await autocannon({
    url: `${url}/v1/whatif`,
    connections,
    ...(opts.amount ? { amount: opts.amount } : { duration: opts.duration ?? DURATION }),
    timeout: 30,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req: autocannon.Request) => ({ ...req, body: bodies[cursor.at++ % bodies.length]! }),
      },
    ],
  });
  return {
    kind,
    connections,
    requests: result.requests.total,
    perSecond: result.requests.total / (result.duration || 1),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** The server's resident memory, MiB (threads included). */
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function startServer(dir: string, log: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['dist/cli/main.js', 'serve', dir, '--listen', '127.0.0.1:0', '--auth', 'none', '--log-level', 'info'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => {
    // The URL line first; the request log then goes to a file, not to this process's memory.
    if (err.length < 1_000_000) err += d.toString();
  });
  child.stderr.pipe((await import('node:fs')).createWriteStream(log));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = / at (http:\/\/\S+)\n/.exec(err);
      if (m) {
        clearInterval(timer);
        resolve(m[1]!);
      }
    }, 50);
    child.on('exit', (code) => reject(new Error(`quotient serve exited ${code}: ${err}`)));
  });
  const deadline = Date.now() + 600_000;
  while (Date.now() < deadline) {
    const r = await fetch(`${url}/readyz`).catch(() => undefined);
    if (r?.status === 200) return { child, url };
    await new Promise((r2) => setTimeout(r2, 200));
  }
  throw new Error('the server did not become ready');
}

/** The in-process figure: Session.ask over the last 1,000 distinct questions (the bodies the server gets), one after another, after each class was asked once. */
async function inProcessFigure(folder: string, distinct: string[], classes: string[]): Promise<{ perSecond: number; medianMs: number }> {
  say('in-process: opening the Session ...');
  const session = Session.open(readBundles([folder])[0]!.files).session!;
  const requestOf = (body: string, i: number): AnswerRequest => {
    const s = (JSON.parse(body) as { submit: Record<string, unknown> }).submit;
    return { submit: { ...s, name: `in-${i}` } };
  };
  for (const [i, c] of classes.entries()) await session.ask(requestOf(firstOf(distinct, c), i));
  const times: number[] = [];
  const sample = distinct.slice(-1000);
  const started = performance.now();
  for (const [i, body] of sample.entries()) {
    const t = performance.now();
    await session.ask(requestOf(body, i));
    times.push(performance.now() - t);
  }
  const perSecond = sample.length / ((performance.now() - started) / 1000);
  times.sort((a, b) => a - b);
  return { perSecond, medianMs: times[times.length >> 1]! };
}

/** The first distinct question of a (quota, priority) class `quota/priority`. */
function firstOf(distinct: string[], c: string): string {
  const [quota, priority] = c.split('/');
  return distinct.find((b) => b.includes(`"quota":"${quota}"`) && b.includes(`"priority":${priority}`))!;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'quotient-bench-serve-'));
  const policy = b3Policy({ nodes: NODES });
  const folder = join(dir, 'b3');
  (await import('node:fs')).mkdirSync(folder);
  for (const f of policy.files) writeFileSync(join(folder, f.path.split('/').pop()!), f.text);
  say(
    `B3 policy: ${policy.stats.nodes.toLocaleString('en-US')} nodes, ${policy.stats.quotas.toLocaleString('en-US')} quotas, ${policy.stats.jobs.toLocaleString('en-US')} jobs, ${(policy.stats.bytes / 1e6).toFixed(1)} MB of YAML`,
  );
  const distinct = distinctBodies(policy.queries, 7);
  const classes = [
    ...new Set(
      distinct.map((b) => {
        const s = (JSON.parse(b) as { submit: { quota: string; priority: number } }).submit;
        return `${s.quota}/${s.priority}`;
      }),
    ),
  ];
  const repeated = policy.queries.map((q) =>
    JSON.stringify({ submit: { name: q.name, workspace: workspaceOf(q.quota), quota: q.quota, module: 'DLC', priority: 9, pods: q.pods, resources: { gpu: q.gpu } } }),
  );

  // In process first (no server competing): the same distinct questions through Session.answer, one after another.
  const { perSecond: inProcessPerSecond, medianMs: inProcessMedianMs } = await inProcessFigure(folder, distinct, classes);
  say(`in-process: ${Math.round(inProcessPerSecond)} distinct answers/s on one thread (median ${inProcessMedianMs.toFixed(2)} ms)`);

  say('starting quotient serve ...');
  const log = join(dir, 'serve.log');
  const opened = performance.now();
  const { child, url } = await startServer(folder, log);
  say(`serving at ${url}, ready after ${((performance.now() - opened) / 1000).toFixed(1)} s`);
  const pid = child.pid!;
  try {
    const cursor = { at: 0 };
    // Every (quota, priority) class once: its eligibility tables are built here, not in the timed runs.
    const warm = classes.map((c) => firstOf(distinct, c));
    await load(url, 'distinct', 4, warm, { at: 0 }, { amount: warm.length });
    cursor.at = 0;
    const measured = distinct.filter((b) => !warm.includes(b));
    await load(url, 'repeated', 16, repeated, { at: 0 }, { amount: 2000 });
    const runs: Run[] = [];
    for (const kind of ['distinct', 'repeated'] as const) {
      for (const connections of CONNECTIONS) {
        const r = await load(url, kind, connections, kind === 'distinct' ? measured : repeated, kind === 'distinct' ? cursor : { at: 0 }, {});
        runs.push(r);
        say(
          `${kind.padEnd(8)} ${String(connections).padStart(2)} connections: ${Math.round(r.perSecond).toLocaleString('en-US').padStart(7)} answers/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms (${r.requests.toLocaleString('en-US')} requests, ${r.non2xx} not 200, ${r.errors} errors)`,
        );
      }
    }
    if (cursor.at > measured.length) say(`note: the distinct runs asked ${cursor.at} questions of ${measured.length}: some were asked twice`);
    // RSS over RSS_REQUESTS distinct requests at 64 connections, sampled every 500 ms.
    const samples: number[] = [rssMiB(pid)];
    const timer = setInterval(() => samples.push(rssMiB(pid)), 500);
    const rssRun = await load(url, 'distinct', 64, measured, cursor, { amount: RSS_REQUESTS });
    clearInterval(timer);
    samples.push(rssMiB(pid));
    const rss = { startMiB: samples[0]!, peakMiB: Math.max(...samples), endMiB: samples.at(-1)!, requests: rssRun.requests, non2xx: rssRun.non2xx };
    say(
      `RSS over ${rss.requests.toLocaleString('en-US')} distinct requests: ${rss.startMiB.toFixed(0)} MiB at the start, ${rss.peakMiB.toFixed(0)} MiB at the peak, ${rss.endMiB.toFixed(0)} MiB at the end`,
    );

    const at64 = (kind: Run['kind']): Run => runs.find((r) => r.kind === kind && r.connections === 64)!;
    const worstP99 = Math.max(...runs.filter((r) => r.connections === 64).map((r) => r.p99Ms));
    const checks = [
      { figure: 'distinct answers/s at 64 connections', ours: Math.round(at64('distinct').perSecond), target: `>= ${TARGETS.distinct}`, met: at64('distinct').perSecond >= TARGETS.distinct },
      { figure: 'repeated answers/s at 64 connections', ours: Math.round(at64('repeated').perSecond), target: `>= ${TARGETS.repeated}`, met: at64('repeated').perSecond >= TARGETS.repeated },
      { figure: 'p99 at 64 connections (worst of distinct, repeated), ms', ours: worstP99, target: `<= ${TARGETS.p99Ms}`, met: worstP99 <= TARGETS.p99Ms },
      { figure: 'peak RSS over the RSS run, MiB', ours: Math.round(rss.peakMiB), target: `<= ${TARGETS.rssMiB}`, met: rss.peakMiB <= TARGETS.rssMiB },
      { figure: 'in-process distinct answers/s (one thread, Session.answer)', ours: Math.round(inProcessPerSecond), target: 'beside', met: true },
    ];
    const failed = runs.reduce((n, r) => n + r.non2xx + r.errors, rssRun.non2xx + rssRun.errors);
    const doc = {
      nodes: policy.stats.nodes,
      quotas: policy.stats.quotas,
      jobs: policy.stats.jobs,
      load: loadavg().map((x) => Number(x.toFixed(2))),
      durationSeconds: DURATION,
      runs,
      rss,
      inProcess: { perSecond: Math.round(inProcessPerSecond), medianMs: inProcessMedianMs },
      checks,
      failedRequests: failed,
    };
    if (json) process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    else {
      say('');
      say(`quotient serve, B3 (${policy.stats.nodes.toLocaleString('en-US')} nodes), node ${process.version}, load ${doc.load.join(' ')}`);
      for (const c of checks) say(`  ${c.figure.padEnd(62)} ${String(c.ours).padStart(8)}  target ${c.target.padEnd(8)} ${c.target === 'beside' ? '' : c.met ? 'met' : 'NOT met'}`);
      say(`  requests that were not 200 or failed: ${failed}`);
    }
    if (failed > 0) process.exitCode = 1;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.on('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
