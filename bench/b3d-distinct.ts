/**
 * B3d distinct what-ifs (BENCHMARKS.md; bench/README.md; issue 22 item 1). B3 times the
 * same 60 WhatIfs again and again with the snapshot's memos warm; a user asks questions
 * that differ. Here, over B3's snapshot (bench/b3-policy.ts) and over a second shape (a
 * flat tree of many small quotas, ~4 one-line jobs per node: bench/b3d-policy.ts), 1,000
 * WhatIfs drawn at random (seeded) — quota, priority 1-9, module, 1-4 pods × 1-8 GPUs,
 * idleResources — no two alike, are each asked ONCE through the one answer pipeline
 * (`Session.answerJob`, engine/pipeline.ts) with the answer memo off. Per complete answer
 * (admission, eligibility tables built on first use, kernel, explanation): wall and CPU
 * median and p99, and the share spent inside the kernel (place + selectVictims). Beside
 * them, in the same run: the same 1,000 asked again (repeated: tables and snapshot memos
 * warm), and for B3 its own 60 priority-9 WhatIfs repeated (today's B3 figure).
 *
 * The answers are hashed (sha-256 of their JSON, in order) and checked against
 * bench/b3d-hashes.json: a change that makes the engine faster must not change an answer.
 * `--record` writes the hashes of this run's sizes there (only when an answer is meant to change).
 *
 *   npm run build && npm run bench:b3d                     # 10,000 nodes, 1,000 WhatIfs, both shapes
 *   npm run -s bench:b3d -- --nodes 1000 --whatifs 200 --json
 *   npm run bench:b3d -- --shapes flat                     # one shape
 *   node --cpu-prof --import tsx bench/b3d-distinct.ts --shapes flat   # a CPU profile of it
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as SessionModule from '../src/engine/session.js';
import { b3Policy } from './b3-policy.js';
import { b3Askable, distinctWhatIfs, flatPolicy, whatIfText } from './b3d-policy.js';
import { compiled } from './compiled.js';
import { distribution, formatUs, printRows, sinceUs, timeKernelCalls, type Distribution } from './timing.js';

const { Session } = await compiled<typeof SessionModule>('engine/session');

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const record = argv.includes('--record');
const arg = (name: string, fallback: string): string => {
  const i = argv.indexOf(name);
  return i >= 0 ? (argv[i + 1] ?? fallback) : fallback;
};
const NODES = Number(arg('--nodes', '10000'));
const WHATIFS = Number(arg('--whatifs', '1000'));
const SHAPES = arg('--shapes', 'b3,flat').split(',') as Array<'b3' | 'flat'>;
const HASHES = join(dirname(fileURLToPath(import.meta.url)), 'b3d-hashes.json');
if (!Number.isInteger(NODES) || NODES < 1000 || !Number.isInteger(WHATIFS) || WHATIFS < 1 || SHAPES.some((s) => s !== 'b3' && s !== 'flat')) {
  process.stderr.write('usage: bench:b3d -- [--nodes N>=1000] [--whatifs N] [--shapes b3,flat] [--json] [--record]\n');
  process.exit(2);
}

/** One pass over WhatIfs: per answer wall and CPU, the kernel's share, and the answers' hash. */
interface Pass {
  wall: Distribution;
  cpu: Distribution;
  /** Share of the summed wall time spent inside the kernel. */
  kernelShare: number;
  kernelCallsPerAnswer: number;
  hash: string;
  decisions: Record<string, number>;
}

async function pass(session: SessionModule.Session, names: ReadonlySet<string>, kernelTime: { us: number; calls: number }): Promise<Pass> {
  const whatIfs = session.policy.whatIfs.filter((w) => names.has(w.name));
  const wall: number[] = [];
  const cpu: number[] = [];
  const hash = createHash('sha256');
  const decisions: Record<string, number> = {};
  kernelTime.us = 0;
  kernelTime.calls = 0;
  for (const w of whatIfs) {
    const c = process.cpuUsage();
    const start = process.hrtime.bigint();
    const a = await session.answerJob(w.name, w.submit);
    wall.push(sinceUs(start));
    const u = process.cpuUsage(c);
    cpu.push(u.user + u.system);
    hash.update(JSON.stringify(a));
    hash.update('\n');
    const k = a.decision;
    decisions[k] = (decisions[k] ?? 0) + 1;
  }
  const total = wall.reduce((s, x) => s + x, 0);
  return { wall: distribution(wall), cpu: distribution(cpu), kernelShare: kernelTime.us / total, kernelCallsPerAnswer: kernelTime.calls / whatIfs.length, hash: hash.digest('hex'), decisions };
}

interface ShapeRun {
  shape: 'b3' | 'flat';
  nodes: number;
  quotas: number;
  jobs: number;
  megabytes: number;
  whatIfs: number;
  openCpuMs: number;
  /** Each WhatIf asked once: the figure. */
  distinct: Pass;
  /** The same WhatIfs asked again (tables and snapshot memos warm). */
  repeated: Pass;
  /** B3's own 60 priority-9 WhatIfs, 3 rounds warm (B3's figure), for the b3 shape. */
  b3Repeated?: { wall: Distribution; cpu: Distribution };
  hashKey: string;
  hashRecorded?: string;
  hashMatches?: boolean;
}

async function runShape(shape: 'b3' | 'flat', recorded: Record<string, string>): Promise<ShapeRun> {
  let files: Array<{ path: string; text: string }>;
  let stats: { nodes: number; quotas: number; jobs: number };
  let askable;
  if (shape === 'b3') {
    const g = b3Policy({ nodes: NODES });
    files = g.files;
    stats = g.stats;
    askable = b3Askable(g.files[0]!.text);
  } else {
    const g = flatPolicy({ nodes: NODES });
    files = g.files;
    stats = g.stats;
    askable = g.askable;
  }
  const whatIfs = distinctWhatIfs(askable, WHATIFS);
  files = [...files, { path: `${shape}/distinct.yaml`, text: whatIfText(whatIfs) }];
  const megabytes = files.reduce((s, f) => s + Buffer.byteLength(f.text), 0) / 1e6;
  const c = process.cpuUsage();
  const { session, findings } = Session.open(files, { answerMemo: false });
  const o = process.cpuUsage(c);
  if (!session) throw new Error(`B3d ${shape} policy does not load: ${JSON.stringify(findings.slice(0, 3))}`);
  const kernelTime = timeKernelCalls(session.snapshot!.kernel);
  const names = new Set(whatIfs.map((w) => w.name));
  const distinct = await pass(session, names, kernelTime);
  const repeated = await pass(session, names, kernelTime);
  if (repeated.hash !== distinct.hash) throw new Error(`B3d ${shape}: the repeated answers differ from the first ones`);
  let b3Repeated: ShapeRun['b3Repeated'];
  if (shape === 'b3') {
    const b3Names = new Set(session.policy.whatIfs.filter((w) => !names.has(w.name)).map((w) => w.name));
    await pass(session, b3Names, kernelTime); // tables of the priority-9 class built
    const rounds = [await pass(session, b3Names, kernelTime), await pass(session, b3Names, kernelTime), await pass(session, b3Names, kernelTime)];
    b3Repeated = { wall: merge(rounds.map((r) => r.wall)), cpu: merge(rounds.map((r) => r.cpu)) };
  }
  const hashKey = `${shape}:${NODES}:${WHATIFS}`;
  const hashRecorded = recorded[hashKey];
  return {
    shape,
    nodes: stats.nodes,
    quotas: stats.quotas,
    jobs: stats.jobs,
    megabytes,
    whatIfs: names.size,
    openCpuMs: (o.user + o.system) / 1000,
    distinct,
    repeated,
    ...(b3Repeated ? { b3Repeated } : {}),
    hashKey,
    ...(hashRecorded === undefined ? {} : { hashRecorded, hashMatches: hashRecorded === distinct.hash }),
  };
}

/** Medians of several rounds' distributions, approximated by the median round (each round is the same questions). */
function merge(ds: Distribution[]): Distribution {
  return [...ds].sort((a, b) => a.medianUs - b.medianUs)[ds.length >> 1]!;
}

async function run() {
  const recorded = existsSync(HASHES) ? (JSON.parse(readFileSync(HASHES, 'utf8')) as Record<string, string>) : {};
  const shapes: ShapeRun[] = [];
  for (const s of SHAPES) shapes.push(await runShape(s, recorded));
  if (record) {
    for (const s of shapes) recorded[s.hashKey] = s.distinct.hash;
    writeFileSync(HASHES, `${JSON.stringify(recorded, null, 2)}\n`);
  }
  return { benchmark: 'B3d distinct what-ifs', node: process.version, loadAverage1m: loadavg()[0] ?? 0, shapes, answersUnchanged: shapes.every((s) => s.hashMatches !== false) };
}

const result = await run();
if (json) console.log(JSON.stringify(result, null, 2));
else {
  const n = (x: number) => x.toLocaleString('en-US');
  console.log(`B3d distinct what-ifs — node ${result.node}, load average ${result.loadAverage1m.toFixed(2)} at the end`);
  const cell = (d: Distribution) => `${formatUs(d.medianUs)} / ${formatUs(d.p99Us)}`;
  printRows(
    ['shape', 'nodes / quotas / jobs', 'open CPU', 'distinct: CPU median / p99', 'distinct: wall median / p99', 'kernel share', 'repeated: CPU median / p99', 'B3 60 repeated: CPU median / p99'],
    result.shapes.map((s) => [
      s.shape,
      `${n(s.nodes)} / ${n(s.quotas)} / ${n(s.jobs)}`,
      `${(s.openCpuMs / 1000).toFixed(2)} s`,
      cell(s.distinct.cpu),
      cell(s.distinct.wall),
      `${(100 * s.distinct.kernelShare).toFixed(0)} %`,
      cell(s.repeated.cpu),
      s.b3Repeated ? cell(s.b3Repeated.cpu) : '-',
    ]),
  );
  for (const s of result.shapes) {
    console.log(
      `${s.shape}: ${s.whatIfs} distinct WhatIfs: ${Object.entries(s.distinct.decisions)
        .map(([k, v]) => `${v} ${k}`)
        .join(
          ', ',
        )}; answers sha-256 ${s.distinct.hash.slice(0, 16)}… ${s.hashMatches === undefined ? '(no recorded hash for this size)' : s.hashMatches ? '= recorded' : `≠ recorded ${s.hashRecorded!.slice(0, 16)}… (ANSWERS CHANGED)`}`,
    );
  }
  console.log('Targets (issue 22): distinct median ≤ 0.3 ms, p99 ≤ 1.5 ms on 2 cores; B3 repeated today 0.21 ms.');
}
if (!result.answersUnchanged) process.exitCode = 1;
