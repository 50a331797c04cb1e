/**
 * The CLI what-if path (issue 11 item 4): `quotient whatif` over B3's policy with few
 * and with many WhatIf documents, as a user runs it (the built CLI in a child process,
 * JSON to a discarded stdout). The figure is the CPU cost of one extra answer:
 *
 *   (CPU of the run with `many` WhatIfs − CPU of the run with `few`) / (many − few)
 *
 * CPU time (user + system of the child, all its threads), not wall time: the machines
 * here are shared. Each size runs `--repeats` times; figures are medians with min and
 * max. The same queries answered in this process through `Session.answer` (each once,
 * as the CLI does) give the in-process cost per answer beside it, measured in the same run.
 * Both sides run with the answer memo off (QUOTIENT_ANSWER_MEMO=0, engine/answer-memo.ts):
 * the generated WhatIfs repeat some (quota, shape) pairs under other names, and the figure
 * is the cost of a complete answer, not of a memo hit.
 *
 *   npm run build                                   # the CLI runs from dist/
 *   npm run bench:cli -- [--nodes 10000] [--many 501] [--few 3] [--repeats 3] [--json]
 *   npm run bench:cli -- --distinct --shape flat --many 500   # B3d's CLI figure: 500 distinct WhatIfs
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as SessionModule from '../src/engine/session.js';
import { b3Policy } from './b3-policy.js';
import { b3Askable, distinctWhatIfs, flatPolicy, whatIfText } from './b3d-policy.js';
import { compiled } from './compiled.js';

// The in-process side runs the compiled engine (dist/), as the CLI it is compared with
// does: through tsx it ran several times slower (bench/compiled.ts), and the CLI's extra
// answer came out cheaper than the in-process one (0.39x in a quick run).
const { Session } = await compiled<typeof SessionModule>('engine/session');

const json = process.argv.includes('--json');
const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const NODES = arg('--nodes', 10_000);
const MANY = arg('--many', 501);
const FEW = arg('--few', 3);
const REPEATS = arg('--repeats', 3);
/** B3d's CLI figure: WhatIfs drawn distinct (bench/b3d-policy.ts) instead of B3's priority-9 ones, over `--shape` b3 or flat. */
const DISTINCT = process.argv.includes('--distinct');
const SHAPE = process.argv.includes('--shape') ? (process.argv[process.argv.indexOf('--shape') + 1] ?? '') : 'b3';
if (SHAPE !== 'b3' && SHAPE !== 'flat') {
  process.stderr.write('bench:cli: --shape takes b3 or flat\n');
  process.exit(2);
}
if (SHAPE === 'flat' && !DISTINCT) {
  process.stderr.write('bench:cli: --shape flat asks distinct WhatIfs only: add --distinct\n');
  process.exit(2);
}
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');

/** A probe preloaded into the CLI child: its CPU time and peak RSS at exit, to a file. */
const PROBE = `import { writeFileSync } from 'node:fs';
process.on('exit', () => { const u = process.resourceUsage(); writeFileSync(process.env.QUOTIENT_BENCH_USAGE, JSON.stringify({ cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, maxRssKiB: u.maxRSS })); });
`;

interface Run {
  cpuMs: number;
  wallMs: number;
  maxRssMiB: number;
}

/** The policy's files with about `count` WhatIfs: B3's (a multiple of 3), or `count` distinct ones. */
function policyFiles(count: number): { files: Array<{ path: string; text: string }>; queries: number } {
  if (!DISTINCT) {
    const p = b3Policy({ nodes: NODES, queriesPerShape: Math.ceil(count / 3) });
    return { files: p.files, queries: p.queries.length };
  }
  const base = SHAPE === 'flat' ? flatPolicy({ nodes: NODES }) : b3Policy({ nodes: NODES, queriesPerShape: 0 });
  const askable = SHAPE === 'flat' ? (base as ReturnType<typeof flatPolicy>).askable : b3Askable(base.files[0]!.text);
  const files = base.files.filter((f) => !f.path.endsWith('/whatif.yaml'));
  return { files: [...files, { path: `${SHAPE}/distinct.yaml`, text: whatIfText(distinctWhatIfs(askable, count)) }], queries: count };
}

function writePolicy(dir: string, count: number): number {
  const p = policyFiles(count);
  for (const f of p.files) {
    const path = join(dir, f.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.text);
  }
  return p.queries;
}

function runCli(policyDir: string, probe: string, usageFile: string): Run {
  const start = performance.now();
  const r = spawnSync(process.execPath, ['--import', probe, CLI, 'whatif', policyDir, '--json'], {
    env: { ...process.env, QUOTIENT_BENCH_USAGE: usageFile, NO_COLOR: '1', QUOTIENT_ANSWER_MEMO: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 64 << 20,
  });
  const wallMs = performance.now() - start;
  if (r.status !== 0) throw new Error(`quotient whatif exited ${r.status}: ${r.stderr.toString().slice(0, 2000)}`);
  const u = JSON.parse(readFileSync(usageFile, 'utf8')) as { cpuMs: number; maxRssKiB: number };
  return { cpuMs: u.cpuMs, wallMs, maxRssMiB: u.maxRssKiB / 1024 };
}

const summary = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[s.length >> 1]!, min: s[0]!, max: s.at(-1)! };
};

async function inProcess(): Promise<{ openCpuMs: number; perAnswerCpuMs: number; answers: number }> {
  const p = policyFiles(MANY);
  let c = process.cpuUsage();
  const { session } = Session.open(p.files, { answerMemo: false });
  const open = process.cpuUsage(c);
  if (!session) throw new Error('B3 policy does not load');
  c = process.cpuUsage();
  for (const w of session.policy.whatIfs) await session.answerJob(w.name, w.submit);
  const d = process.cpuUsage(c);
  return { openCpuMs: (open.user + open.system) / 1000, perAnswerCpuMs: (d.user + d.system) / 1000 / session.policy.whatIfs.length, answers: session.policy.whatIfs.length };
}

async function run() {
  const tmp = mkdtempSync(join(tmpdir(), 'quotient-cli-bench-'));
  try {
    const probe = join(tmp, 'probe.mjs');
    writeFileSync(probe, PROBE);
    const fewDir = join(tmp, 'few');
    const manyDir = join(tmp, 'many');
    const nFew = writePolicy(fewDir, FEW);
    const nMany = writePolicy(manyDir, MANY);
    const few: Run[] = [];
    const many: Run[] = [];
    for (let r = 0; r < REPEATS; r++) {
      few.push(runCli(join(fewDir, SHAPE), probe, join(tmp, 'usage.json')));
      many.push(runCli(join(manyDir, SHAPE), probe, join(tmp, 'usage.json')));
    }
    const fewCpu = summary(few.map((x) => x.cpuMs));
    const manyCpu = summary(many.map((x) => x.cpuMs));
    // Paired per repeat: each repeat's many-run minus its few-run, per extra answer.
    const extra = summary(many.map((m, i) => (m.cpuMs - few[i]!.cpuMs) / (nMany - nFew)));
    const inproc = await inProcess();
    return {
      benchmark: 'CLI what-if: the cost of one more WhatIf document',
      node: process.version,
      nodes: NODES,
      shape: SHAPE,
      distinct: DISTINCT,
      queries: { few: nFew, many: nMany },
      repeats: REPEATS,
      cliCpuMs: { few: fewCpu, many: manyCpu },
      cliWallMs: { few: summary(few.map((x) => x.wallMs)), many: summary(many.map((x) => x.wallMs)) },
      peakRssMiB: { few: summary(few.map((x) => x.maxRssMiB)), many: summary(many.map((x) => x.maxRssMiB)) },
      /** CPU ms per extra answer through the CLI (median of the repeats, min-max). */
      extraAnswerCpuMs: extra,
      /** The same answers in this process, each once (tables built on first use, as in the CLI). */
      inProcess: inproc,
      /** CLI per extra answer over in-process per answer. */
      cliOverInProcess: extra.median / inproc.perAnswerCpuMs,
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const result = await run();
if (json) console.log(JSON.stringify(result, null, 2));
else {
  const r = result;
  const f = (s: { median: number; min: number; max: number }, d = 0) => `${s.median.toFixed(d)} (${s.min.toFixed(d)}-${s.max.toFixed(d)})`;
  console.log(
    `CLI what-if — node ${r.node}; ${r.shape === 'flat' ? 'the flat shape' : 'B3 policy'} at ${r.nodes.toLocaleString('en-US')} nodes, ${r.distinct ? 'distinct WhatIfs (B3d)' : "B3's WhatIfs"}; ${r.repeats} repeat(s); CPU ms median (min-max); load average ${loadavg()[0]!.toFixed(2)}`,
  );
  console.log(`quotient whatif with ${r.queries.few} WhatIfs: ${f(r.cliCpuMs.few)} ms CPU, peak ${f(r.peakRssMiB.few)} MiB`);
  console.log(`quotient whatif with ${r.queries.many} WhatIfs: ${f(r.cliCpuMs.many)} ms CPU, peak ${f(r.peakRssMiB.many)} MiB`);
  console.log(`one extra answer through the CLI: ${f(r.extraAnswerCpuMs, 2)} ms CPU`);
  console.log(
    `in this process (Session.open ${r.inProcess.openCpuMs.toFixed(0)} ms CPU), each of the ${r.inProcess.answers} answered once: ${r.inProcess.perAnswerCpuMs.toFixed(2)} ms CPU per answer; CLI/in-process ${r.cliOverInProcess.toFixed(2)}×`,
  );
}
