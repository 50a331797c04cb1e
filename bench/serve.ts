/**
 * `npm run bench:serve`: `quotient serve` under load, over B3's snapshot (bench/b3-policy.ts:
 * 10,000 nodes × 8 GPUs, 1,011 quotas, ~39,000 running jobs), on loopback only.
 *
 * The server runs as its own process (`node dist/cli/main.js serve DIR --listen
 * 127.0.0.1:0 --auth header:X-Remote-User --admin bench-admin`), the load comes from
 * autocannon in this process. Each B3 workspace gets one member (`dev-divN`, a developer):
 * by default every request is asked as the member of the asked quota's workspace (a team
 * member, what the server exists for: the answer is that member's view, SEMANTICS 10),
 * and the distinct runs are repeated as the administrator beside them. Figures:
 * - answers per second and latency p50 / p99 of `POST /v1/whatif` at 1, 16 and 64
 *   connections, for **distinct** questions (every request a new one to the answer memo:
 *   B3's 60 WhatIfs' quotas × priority × gang shape × module × idle mode × maxRuntime, in a
 *   seeded order, none asked twice) and **repeated** ones (B3's 60 WhatIfs, over and
 *   over: the response cache answers);
 * - the server's CPU time per answer (its process's user + system time over the run,
 *   /proc/PID/stat, divided by the answers: the load generator's own CPU is not in it),
 *   team member beside administrator (issue 32: within 1.2x);
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
 *   npm run bench:serve -- --callers admin      # administrators only (the figures before issue 32)
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

const HELP = `npm run bench:serve -- [options]
  --nodes N           B3's size (default 10000)
  --duration S        seconds per timed run (default 10)
  --rss-requests N    distinct requests of the memory run (default 100000)
  --callers WHO       member (every request as the asked quota's team member), admin, or
                      both (default: team members, the distinct runs as administrators beside)
  --json              the figures as JSON on stdout`;
if (process.argv.includes('--help')) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}
const json = process.argv.includes('--json');
const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const NODES = arg('--nodes', 10_000);
const DURATION = arg('--duration', 10);
const RSS_REQUESTS = arg('--rss-requests', 100_000);
const CALLERS = ((): Array<'member' | 'admin'> => {
  const i = process.argv.indexOf('--callers');
  const v = i >= 0 ? process.argv[i + 1] : 'both';
  if (v === 'member' || v === 'admin') return [v];
  if (v === 'both') return ['member', 'admin'];
  process.stderr.write(`--callers ${v} is not member, admin or both\n${HELP}\n`);
  process.exit(2);
})();
/** The administrator of the bench's server (`--admin`). */
const ADMIN = 'bench-admin';
const CONNECTIONS = [1, 16, 64];
const TARGETS = { distinct: 2000, repeated: 20_000, p99Ms: 50, rssMiB: 600, memberRatio: 1.2 };
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

/** The team member the bench gives workspace `ws-divN`: `dev-divN`. */
function memberOf(quota: string): string {
  return `dev-${quota.split('-')[0]}`;
}

/** B3's quota file with one developer in each workspace (B3 itself lists no members: every question there is an administrator's). */
function withMembers(quotasYaml: string): string {
  return quotasYaml.replace(/metadata: \{ name: ws-(div\d+) \}\nspec:\n/g, (m: string, div: string) => `${m}  members: [{ user: dev-${div}, role: developer }]\n`);
}

/** Who asks a request with this body: the team member of its quota, or the administrator. */
function callerOf(body: string, who: 'member' | 'admin'): string {
  if (who === 'admin') return ADMIN;
  const m = /"quota":"([^"]+)"/.exec(body);
  return m ? memberOf(m[1]!) : ADMIN;
}

interface Run {
  kind: 'distinct' | 'repeated';
  /** Who asked: the team member of each question's quota, or the administrator. */
  caller: 'member' | 'admin';
  connections: number;
  /** The server process's CPU time (user + system) per answer over the run, ms. */
  serverCpuMsPerAnswer: number;
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/** The CPU time (user + system) process `pid` has used, ms (all its threads). */
function cpuMs(pid: number): number {
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

/** Loads the server with `bodies`, taken in turn from `cursor` on (never one twice when `distinct`), each asked as `caller`. */
async function load(
  url: string,
  pid: number,
  kind: Run['kind'],
  caller: Run['caller'],
  connections: number,
  bodies: string[],
  cursor: { at: number },
  opts: { duration?: number; amount?: number },
): Promise<Run> {
  const cpuBefore = cpuMs(pid);
  const result = await autocannon({
    url: `${url}/v1/whatif`,
    connections,
    ...(opts.amount ? { amount: opts.amount } : { duration: opts.duration ?? DURATION }),
    timeout: 30,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req: autocannon.Request) => {
          const body = bodies[cursor.at++ % bodies.length]!;
          return { ...req, headers: { ...req.headers, 'x-remote-user': callerOf(body, caller) }, body };
        },
      },
    ],
  });
  // Requests still in the engine thread's queue when the run ends are answered after it:
  // the run ends when they are (so the next run starts on an idle server), and their CPU
  // counts over every request sent.
  await drained(url);
  const sent = (result.requests as { sent?: number }).sent ?? result.requests.total;
  return {
    kind,
    caller,
    connections,
    serverCpuMsPerAnswer: (cpuMs(pid) - cpuBefore) / Math.max(1, sent),
    requests: result.requests.total,
    perSecond: result.requests.total / (result.duration || 1),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** Resolves once the engine thread has answered every request before this one: a status request queues behind them. */
async function drained(url: string): Promise<void> {
  // A status not answered within the server's answer timeout is a 500: ask again until one is.
  for (let i = 0; i < 100; i++) {
    const r = await fetch(`${url}/v1/status`, { headers: { 'x-remote-user': ADMIN }, signal: AbortSignal.timeout(600_000) });
    if (r.ok) return;
  }
}

/** The server's resident memory, MiB (threads included). */
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function startServer(dir: string, log: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['dist/cli/main.js', 'serve', dir, '--listen', '127.0.0.1:0', '--auth', 'header:X-Remote-User', '--admin', ADMIN, '--log-level', 'info'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
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
    const r = await fetch(`${url}/readyz`, { headers: { 'x-remote-user': ADMIN } }).catch(() => undefined);
    if (r?.status === 200) return { child, url };
    await new Promise((r2) => setTimeout(r2, 200));
  }
  throw new Error('the server did not become ready');
}

/** The in-process figure: Session.ask over the last 1,000 distinct questions (the bodies the server gets), one after another, after each class was asked once; as the quota's team member when `caller` is one. */
async function inProcessFigure(folder: string, distinct: string[], classes: string[], caller: Run['caller']): Promise<{ perSecond: number; medianMs: number }> {
  say('in-process: opening the Session ...');
  const session = Session.open(readBundles([folder])[0]!.files).session!;
  const requestOf = (body: string, i: number): AnswerRequest => {
    const s = (JSON.parse(body) as { submit: Record<string, unknown> }).submit;
    return { submit: { ...s, name: `in-${i}` }, ...(caller === 'member' ? { as: memberOf(s.quota as string) } : {}) };
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
  for (const f of policy.files) writeFileSync(join(folder, f.path.split('/').pop()!), f.path.endsWith('quotas.yaml') ? withMembers(f.text) : f.text);
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
  const inProcess: Partial<Record<Run['caller'], { perSecond: number; medianMs: number }>> = {};
  for (const caller of CALLERS) {
    const f = await inProcessFigure(folder, distinct, classes, caller);
    inProcess[caller] = f;
    say(`in-process, as ${caller === 'member' ? 'team members' : 'the administrator'}: ${Math.round(f.perSecond)} distinct answers/s on one thread (median ${f.medianMs.toFixed(2)} ms)`);
  }
  const inProcessPerSecond = inProcess[CALLERS[0]!]!.perSecond;

  say('starting quotient serve ...');
  const log = join(dir, 'serve.log');
  const opened = performance.now();
  const { child, url } = await startServer(folder, log);
  say(`serving at ${url}, ready after ${((performance.now() - opened) / 1000).toFixed(1)} s`);
  const pid = child.pid!;
  try {
    const cursor = { at: 0 };
    const primary = CALLERS[0]!;
    // Every (quota, priority) class once, as each caller: its eligibility tables are built here, not in the timed runs.
    const warm = classes.map((c) => firstOf(distinct, c));
    for (const caller of CALLERS) await load(url, pid, 'distinct', caller, 4, warm, { at: 0 }, { amount: warm.length });
    cursor.at = 0;
    const measured = distinct.filter((b) => !warm.includes(b));
    await load(url, pid, 'repeated', primary, 16, repeated, { at: 0 }, { amount: 2000 });
    const runs: Run[] = [];
    // The primary caller's distinct and repeated runs; then the distinct runs as the other caller, beside them.
    const plan: Array<[Run['kind'], Run['caller']]> = [['distinct', primary], ['repeated', primary], ...CALLERS.slice(1).map((c): [Run['kind'], Run['caller']] => ['distinct', c])];
    for (const [kind, caller] of plan) {
      for (const connections of CONNECTIONS) {
        const r = await load(url, pid, kind, caller, connections, kind === 'distinct' ? measured : repeated, kind === 'distinct' ? cursor : { at: 0 }, {});
        runs.push(r);
        say(
          `${kind.padEnd(8)} as ${caller.padEnd(6)} ${String(connections).padStart(2)} connections: ${Math.round(r.perSecond).toLocaleString('en-US').padStart(7)} answers/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, server CPU ${r.serverCpuMsPerAnswer.toFixed(3)} ms/answer (${r.requests.toLocaleString('en-US')} requests, ${r.non2xx} not 200, ${r.errors} errors)`,
        );
      }
    }
    if (cursor.at > measured.length) say(`note: the distinct runs asked ${cursor.at} questions of ${measured.length}: some were asked twice`);
    // RSS over RSS_REQUESTS distinct requests at 64 connections, sampled every 500 ms.
    const samples: number[] = [rssMiB(pid)];
    const timer = setInterval(() => samples.push(rssMiB(pid)), 500);
    const rssRun = await load(url, pid, 'distinct', primary, 64, measured, cursor, { amount: RSS_REQUESTS });
    clearInterval(timer);
    samples.push(rssMiB(pid));
    const rss = { startMiB: samples[0]!, peakMiB: Math.max(...samples), endMiB: samples.at(-1)!, requests: rssRun.requests, non2xx: rssRun.non2xx };
    say(
      `RSS over ${rss.requests.toLocaleString('en-US')} distinct requests: ${rss.startMiB.toFixed(0)} MiB at the start, ${rss.peakMiB.toFixed(0)} MiB at the peak, ${rss.endMiB.toFixed(0)} MiB at the end`,
    );

    const at64 = (kind: Run['kind'], caller: Run['caller'] = primary): Run | undefined => runs.find((r) => r.kind === kind && r.caller === caller && r.connections === 64);
    const worstP99 = Math.max(...runs.filter((r) => r.connections === 64 && r.caller === primary).map((r) => r.p99Ms));
    const who = primary === 'member' ? 'as team members' : 'as the administrator';
    const member = at64('distinct', 'member');
    const admin = at64('distinct', 'admin');
    const ratio = member && admin ? member.serverCpuMsPerAnswer / admin.serverCpuMsPerAnswer : undefined;
    const checks = [
      { figure: `distinct answers/s at 64 connections, ${who}`, ours: Math.round(at64('distinct')!.perSecond), target: `>= ${TARGETS.distinct}`, met: at64('distinct')!.perSecond >= TARGETS.distinct },
      { figure: `repeated answers/s at 64 connections, ${who}`, ours: Math.round(at64('repeated')!.perSecond), target: `>= ${TARGETS.repeated}`, met: at64('repeated')!.perSecond >= TARGETS.repeated },
      { figure: `p99 at 64 connections (worst of distinct, repeated), ${who}, ms`, ours: worstP99, target: `<= ${TARGETS.p99Ms}`, met: worstP99 <= TARGETS.p99Ms },
      ...(ratio !== undefined
        ? [
            { figure: 'distinct answers/s at 64 connections, as the administrator', ours: Math.round(admin!.perSecond), target: 'beside', met: true },
            { figure: 'server CPU per distinct answer, team member / administrator', ours: Number(ratio.toFixed(2)), target: `<= ${TARGETS.memberRatio}`, met: ratio <= TARGETS.memberRatio },
          ]
        : []),
      { figure: 'peak RSS over the RSS run, MiB', ours: Math.round(rss.peakMiB), target: `<= ${TARGETS.rssMiB}`, met: rss.peakMiB <= TARGETS.rssMiB },
      { figure: `in-process distinct answers/s (one thread, Session.ask), ${who}`, ours: Math.round(inProcessPerSecond), target: 'beside', met: true },
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
      callers: CALLERS,
      inProcess,
      checks,
      failedRequests: failed,
    };
    if (json) process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    else {
      say('');
      say(`quotient serve, B3 (${policy.stats.nodes.toLocaleString('en-US')} nodes), node ${process.version}, load ${doc.load.join(' ')}`);
      for (const c of checks) say(`  ${c.figure.padEnd(72)} ${String(c.ours).padStart(8)}  target ${c.target.padEnd(8)} ${c.target === 'beside' ? '' : c.met ? 'met' : 'NOT met'}`);
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
