/**
 * B6 — trace replay: `quotient simulate`'s engine over a synthetic PAI-shaped month on
 * the PAI-2020 machine list (1,814 GPU machines, 6,742 GPUs) with the seeds' three
 * teams scaled to it (bench/policies/pai-three-teams), idle and spot jobs and checkpoints;
 * then the full openb replay (8,152 pods on 1,213 GPU nodes). Reports wall time,
 * simulated days per wall-second, jobs per second, peak RSS, and the run's utilisation,
 * lost GPU-hours and queue wait per team. The workload is synthetic (the PAI job tables
 * are not shipped) and says so.
 *
 * The month runs `--repeat` times (default 3) in one process: wall time is the median
 * with min and max, and the rates are computed from the median.
 *
 *   npm run bench:b6 [-- --jobs 500000 --days 30 --seed 1 --cycle 30 --repeat 3 --data ../shared/data --json]
 */
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { loadPolicy } from '../src/policy/load-policy.js';
import { readBundles } from '../src/policy/parse/read-files.js';
import { loadCluster } from '../src/simulate/cluster-loaders.js';
import { marketSeries } from '../src/simulate/market.js';
import { defaultTeams, DEFAULT_QOS, readOpenb } from '../src/simulate/openb-trace.js';
import { generatePai, type GenTeam } from '../src/simulate/pai-generator.js';
import type { Report } from '../src/simulate/report.js';
import { simulate } from '../src/simulate/simulator.js';
import type { Workload } from '../src/simulate/workload.js';
import { printRows } from './timing.js';
import { traceDataDir } from './trace-data.js';

const args = process.argv.slice(2);
const flag = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : def;
};
const json = args.includes('--json');
const jobs = Number(flag('jobs', '500000'));
const days = Number(flag('days', '30'));
const seed = Number(flag('seed', '1'));
/** The traces' directory: --data, else $QUOTIENT_DATA, else where bench/trace-data.ts finds them. */
const data = traceDataDir(args.includes('--data') ? flag('data', '') : undefined, 'pai-2020');
const skipOpenb = args.includes('--no-openb');
const repeat = Math.max(1, Number(flag('repeat', '3')));
/** The scheduler's cycle in seconds (docs/simulate.md `--cycle`); 0 = after every event. */
const cycle = Number(flag('cycle', '30'));

const POLICY = 'bench/policies/pai-three-teams';

interface Figures {
  run: string;
  jobs: number;
  simulatedDays: number;
  /** Median wall seconds of the repeats. */
  wallSeconds: number;
  wallMinSeconds: number;
  wallMaxSeconds: number;
  /** Median CPU seconds of the process (user + system) per run: what the run costs when other work shares the cores. */
  cpuSeconds: number;
  /** The 1-minute load average when the run ended: above the core count, wall time waits for other processes. */
  loadAverage: number;
  repeats: number;
  simulatedDaysPerWallSecond: number;
  jobsPerSecond: number;
  peakRssMiB: number;
  utilisation: number;
  lostGpuHours: number;
  preemptions: number;
  waitP95ByTeam: Record<string, number>;
}

/** Runs the simulation `times` times; wall time as median, min and max. */
async function run(name: string, nodesFile: string, format: 'pai' | 'openb', workload: Workload, times: number): Promise<Figures> {
  const runs: Figures[] = [];
  for (let i = 0; i < times; i++) runs.push(await runOnce(name, nodesFile, format, workload));
  const walls = runs.map((r) => r.wallSeconds).sort((a, b) => a - b);
  const cpus = runs.map((r) => r.cpuSeconds).sort((a, b) => a - b);
  const median = walls[Math.floor(walls.length / 2)]!;
  const first = runs[0]!;
  const simDays = first.simulatedDays;
  return {
    ...first,
    wallSeconds: median,
    wallMinSeconds: walls[0]!,
    wallMaxSeconds: walls[walls.length - 1]!,
    repeats: times,
    cpuSeconds: cpus[Math.floor(cpus.length / 2)]!,
    loadAverage: Math.max(...runs.map((r) => r.loadAverage)),
    simulatedDaysPerWallSecond: Math.round((simDays / median) * 1000) / 1000,
    jobsPerSecond: Math.round(workload.jobs.length / median),
    peakRssMiB: Math.max(...runs.map((r) => r.peakRssMiB)),
  };
}

async function runOnce(name: string, nodesFile: string, format: 'pai' | 'openb', workload: Workload): Promise<Figures> {
  const policy = loadPolicy(readBundles([POLICY])[0]!.files, { now: 0 }).policy!;
  const nodes = loadCluster(format, nodesFile, readFileSync(nodesFile, 'utf8'), 'gpu-pool').nodes;
  const horizon = workload.jobs.reduce((m, j) => Math.max(m, j.submit + 4 * j.duration), 0) + 86_400_000;
  const market = marketSeries(policy.spotMarkets ?? [], { prices: new Map(), inventory: new Map() }, seed, horizon);
  let peak = process.memoryUsage().rss;
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  let lastLog = started;
  const report: Report = await simulate(
    { policy, label: POLICY, nodes, workload, market },
    {
      seed,
      backend: 'wasm',
      cycle: cycle * 1000,
      onProgress: (done, total) => {
        peak = Math.max(peak, process.memoryUsage().rss);
        if (!json && performance.now() - lastLog > 5000) {
          lastLog = performance.now();
          process.stderr.write(`  ${name}: ${done}/${total} arrived, ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
        }
      },
    },
  );
  const wall = (performance.now() - started) / 1000;
  const cpuUsed = process.cpuUsage(cpu0);
  peak = Math.max(peak, process.memoryUsage().rss);
  const simDays = report.hours / 24;
  return {
    run: name,
    jobs: workload.jobs.length,
    simulatedDays: Math.round(simDays * 100) / 100,
    wallSeconds: Math.round(wall * 10) / 10,
    wallMinSeconds: Math.round(wall * 10) / 10,
    wallMaxSeconds: Math.round(wall * 10) / 10,
    repeats: 1,
    cpuSeconds: Math.round((cpuUsed.user + cpuUsed.system) / 1e5) / 10,
    loadAverage: Math.round(loadavg()[0]! * 10) / 10,
    simulatedDaysPerWallSecond: Math.round((simDays / wall) * 1000) / 1000,
    jobsPerSecond: Math.round(workload.jobs.length / wall),
    peakRssMiB: Math.round(peak / 2 ** 20),
    utilisation: report.totals.utilisation,
    lostGpuHours: report.totals.lostGpuHours,
    preemptions: report.totals.preemptions,
    waitP95ByTeam: Object.fromEntries(report.teams.map((t) => [t.name, t.wait.p95])),
  };
}

async function main(): Promise<void> {
  if (!existsSync(join(data, 'pai-2020/pai_machine_spec.csv'))) {
    process.stderr.write(`B6 needs the public traces: ${join(data, 'pai-2020/pai_machine_spec.csv')} does not exist; give their directory with --data DIR (the one holding pai-2020/ and openb/)\n`);
    process.exit(2);
  }
  const policy = loadPolicy(readBundles([POLICY])[0]!.files, { now: 0 }).policy!;
  const teams: GenTeam[] = defaultTeams(policy).map((t) => (t.module === 'EAS' ? { ...t, priority: [7, 9], flexible: false } : { ...t, priority: [1, 6], flexible: true }));
  const rows: Figures[] = [];
  const pai = generatePai({ jobs, days, seed, teams, markets: policy.spotMarkets ?? [] });
  rows.push(await run(`PAI-shaped ${days}-day month (synthetic), ${jobs} jobs`, join(data, 'pai-2020/pai_machine_spec.csv'), 'pai', pai, repeat));
  if (!skipOpenb) {
    const file = join(data, 'openb/openb_pod_list_default.csv');
    const openb = readOpenb(file, readFileSync(file, 'utf8'), { qos: DEFAULT_QOS, teams: defaultTeams(policy) });
    rows.push(await run('openb replay (real trace)', join(data, 'openb/openb_node_list_gpu_node.csv'), 'openb', openb, repeat));
  }
  if (json) {
    console.log(
      JSON.stringify({ bench: 'B6', cycleSeconds: cycle, anchor: 'Kueue baseline: 15,000 workloads on 30 queues in ~351 s wall; target: a 30-day month in < 60 s, peak RSS < 1 GiB', rows }, null, 2),
    );
    return;
  }
  printRows(
    ['run', 'jobs', 'sim days', 'wall s median (min-max)', 'CPU s', 'load', 'sim days / wall s', 'jobs / s', 'peak RSS MiB', 'utilisation', 'lost GPU-h', 'preemptions', 'wait p95 h by team'],
    rows.map((r) => [
      r.run,
      String(r.jobs),
      String(r.simulatedDays),
      `${r.wallSeconds} (${r.wallMinSeconds}-${r.wallMaxSeconds}), ${r.repeats} runs`,
      String(r.cpuSeconds),
      String(r.loadAverage),
      String(r.simulatedDaysPerWallSecond),
      String(r.jobsPerSecond),
      String(r.peakRssMiB),
      `${(r.utilisation * 100).toFixed(1)}%`,
      String(r.lostGpuHours),
      String(r.preemptions),
      Object.entries(r.waitP95ByTeam)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    ]),
  );
  console.log("\nanchor: Kueue's baseline, 15,000 workloads on 30 queues in ~351 s of wall time; target: the month in < 60 s, peak RSS < 1 GiB");
}

await main();
