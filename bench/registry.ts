/**
 * The benchmarks `bench/run.ts` knows: each one's script, its arguments for `--quick`
 * (small sizes, the whole set under a minute) and for a full run, and how to read its
 * headline figures, beside their anchors (BENCHMARKS.md) and targets (issue 11), out of
 * its `--json` answer. A figure a benchmark did not report reads "n/a", never a guess.
 */
import { formatUs } from './timing.js';

/** One headline figure: what, our value, and what it is compared with. */
export interface Figure {
  figure: string;
  ours: string;
  anchor: string;
}

/** A benchmark the harness runs in a child process. */
export interface Benchmark {
  id: string;
  title: string;
  script: string;
  quickArgs: string[];
  fullArgs: string[];
  figures(result: unknown): Figure[];
}

/** The value at a dotted path of a JSON answer, or undefined. */
function at(value: unknown, path: string): unknown {
  let v: unknown = value;
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** A number at `path`, or undefined. */
function num(value: unknown, path: string): number | undefined {
  const v = at(value, path);
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** "median (min-max)" of a {medianUs,minUs,maxUs} summary at `path`. */
function spread(value: unknown, path: string): string {
  const median = num(value, `${path}.medianUs`);
  const min = num(value, `${path}.minUs`);
  const max = num(value, `${path}.maxUs`);
  if (median === undefined) return 'n/a';
  return min === undefined || max === undefined ? formatUs(median) : `${formatUs(median)} (${formatUs(min)}-${formatUs(max)})`;
}

const fixed = (x: number | undefined, digits: number, unit = ''): string => (x === undefined ? 'n/a' : `${x.toFixed(digits)}${unit}`);

/** B2's rows: { case, nodes, kernel, twin, ratio }. */
function b2Row(result: unknown, name: string, nodes: number): unknown {
  const rows = at(result, 'rows');
  return Array.isArray(rows) ? rows.find((r) => at(r, 'case') === name && at(r, 'nodes') === nodes) : undefined;
}

function b2Figures(result: unknown): Figure[] {
  const figures: Figure[] = [];
  const sizes = at(result, 'sizes');
  const largest = Array.isArray(sizes) ? sizes : [10_000];
  for (const [shape, target] of [
    ['1x8', '≤ 1 µs (target); SIMD bitmap scan ~1.2 µs; native ~0.1-0.3 µs'],
    ['64x1', '≤ 5 µs (target); plain JS scan ~20 µs'],
  ] as const) {
    const row = b2Row(result, `place ${shape}`, 10_000);
    figures.push({ figure: `place ${shape}, 10,000 nodes, kernel median (min-max)`, ours: spread(row, 'kernel'), anchor: target });
    figures.push({ figure: `place ${shape}, twin/kernel (same run)`, ours: fixed(num(row, 'ratio'), 1, '×'), anchor: 'kernel faster than the twin' });
  }
  const scale = largest
    .map((n) => [n, num(b2Row(result, 'place 1x8', n as number), 'kernel.medianUs')] as const)
    .filter(([, us]) => us !== undefined)
    .map(([n, us]) => `${(n as number).toLocaleString('en-US')}: ${formatUs(us!)}`);
  figures.push({ figure: 'place 1x8 median by node count', ours: scale.join(', ') || 'n/a', anchor: 'independent of the node count (target)' });
  return figures;
}

function b3Figures(result: unknown): Figure[] {
  const median = num(result, 'wasm.warm.all.medianUs');
  const p99 = num(result, 'wasm.warm.all.p99Us');
  const nodes = num(result, 'cluster.nodes');
  return [
    {
      figure: `warm what-if, ${nodes?.toLocaleString('en-US') ?? '?'} nodes, median / p99`,
      ours: median === undefined ? 'n/a' : `${formatUs(median)} / ${formatUs(p99 ?? NaN)}`,
      anchor: '≤ 0.5 ms / ≤ 2 ms (target); kube-scheduler PreemptionAsync 1.75 ms',
    },
    {
      figure: 'warm what-if, CPU time per answer, median / p99',
      ours: num(result, 'wasm.warmCpu.medianUs') === undefined ? 'n/a' : `${formatUs(num(result, 'wasm.warmCpu.medianUs')!)} / ${formatUs(num(result, 'wasm.warmCpu.p99Us') ?? NaN)}`,
      anchor: '≤ 0.5 ms / ≤ 2 ms (target)',
    },
    { figure: 'Session.open (wasm)', ours: fixed(num(result, 'oneTime.openWasmMs'), 0, ' ms'), anchor: '≤ 1.5 s CPU at 10,000 nodes (target, issue 11 item 2)' },
    { figure: 'warm answer, reference/wasm (same run)', ours: fixed(num(result, 'ratio.all'), 2, '×'), anchor: '-' },
  ];
}

/** B3d's shapes: { shape, distinct: { cpu, kernelShare }, repeated: { cpu }, b3Repeated?, hashMatches? }. */
function b3dFigures(result: unknown): Figure[] {
  const shapes = at(result, 'shapes');
  const list = Array.isArray(shapes) ? (shapes as unknown[]) : [];
  if (list.length === 0) return [{ figure: 'distinct what-if', ours: 'n/a', anchor: '≤ 0.3 ms / ≤ 1.5 ms' }];
  const pair = (v: unknown, path: string): string => (num(v, `${path}.medianUs`) === undefined ? 'n/a' : `${formatUs(num(v, `${path}.medianUs`)!)} / ${formatUs(num(v, `${path}.p99Us`) ?? NaN)}`);
  const figures: Figure[] = [];
  for (const s of list) {
    const name = `${String(at(s, 'shape'))}, ${num(s, 'nodes')?.toLocaleString('en-US') ?? '?'} nodes, ${num(s, 'whatIfs') ?? '?'} WhatIfs`;
    figures.push({
      figure: `[${name}] distinct, each once: CPU per answer median / p99 (kernel share ${fixed((num(s, 'distinct.kernelShare') ?? NaN) * 100, 0, ' %')})`,
      ours: pair(s, 'distinct.cpu'),
      anchor: '≤ 0.3 ms / ≤ 1.5 ms (target); B3 repeated 0.21 ms',
    });
    figures.push({ figure: `[${name}] the same asked again: CPU median / p99`, ours: pair(s, 'repeated.cpu'), anchor: '-' });
    if (at(s, 'b3Repeated') !== undefined)
      figures.push({ figure: `[${name}] B3's 60 WhatIfs repeated (B3's figure): CPU median / p99`, ours: pair(s, 'b3Repeated.cpu'), anchor: '≤ 0.5 ms / ≤ 2 ms (B3 target)' });
    const matches = at(s, 'hashMatches');
    figures.push({ figure: `[${name}] answers' hash vs recorded (bench/b3d-hashes.json)`, ours: matches === undefined ? 'not recorded' : matches ? 'same' : 'CHANGED', anchor: 'same' });
  }
  return figures;
}

function cliFigures(result: unknown): Figure[] {
  const extra = num(result, 'extraAnswerCpuMs.median');
  return [
    {
      figure: `quotient whatif, one more WhatIf (${num(result, 'nodes')?.toLocaleString('en-US') ?? '?'} nodes), CPU median (min-max)`,
      ours: extra === undefined ? 'n/a' : `${extra.toFixed(2)} ms (${fixed(num(result, 'extraAnswerCpuMs.min'), 2)}-${fixed(num(result, 'extraAnswerCpuMs.max'), 2)} ms)`,
      anchor: 'little more than one answer in-process (target); was ~16 ms at 10,000 nodes',
    },
    { figure: 'CLI per extra answer / in-process per answer (same run)', ours: fixed(num(result, 'cliOverInProcess'), 2, '×'), anchor: '~1× (target); was ~5×' },
  ];
}

/** The compiled-policy cache's answer (bench/cache.ts): B3 cold and warm opens, `check policies/` cold and warm, CPU ms. */
function cacheFigures(result: unknown): Figure[] {
  const ms = (path: string): string => `${fixed(num(result, `${path}.medianMs`), 0, ' ms')} (${fixed(num(result, `${path}.minMs`), 0, '')}-${fixed(num(result, `${path}.maxMs`), 0, '')})`;
  const nodes = num(result, 'b3.nodes');
  return [
    {
      figure: `re-open B3 (${nodes === undefined ? '?' : nodes.toLocaleString('en-US')} nodes) from the cache, CPU median (min-max)`,
      ours: ms('b3.warm'),
      anchor: `≤ 250 ms at 10,000 nodes (target); cold ${ms('b3.cold')}`,
    },
    { figure: 're-open B3 warm / cold', ours: fixed(num(result, 'b3.ratio'), 2, '×'), anchor: '≤ 0.2× (target)' },
    { figure: 'quotient check policies/ warm, whole process CPU', ours: ms('check.warm'), anchor: `≤ 250 ms (target); cold ${ms('check.cold')}, node -e 0 ${ms('check.nodeE0')}` },
  ];
}

/** Start-up's rows: { command, cpuMs: {min, median}, targetMs }. */
function startFigures(result: unknown): Figure[] {
  const rows = at(result, 'rows');
  if (!Array.isArray(rows)) return [{ figure: 'start-up', ours: 'n/a', anchor: '' }];
  const bare = rows.find((r) => at(r, 'command') === 'node -e 0');
  return rows
    .filter((r) => r !== bare)
    .map((r) => {
      const target = num(r, 'targetMs');
      return {
        figure: `${String(at(r, 'command'))}, whole process CPU median (min)`,
        ours: `${fixed(num(r, 'cpuMs.median'), 0, ' ms')} (${fixed(num(r, 'cpuMs.min'), 0, ' ms')})`,
        anchor: `${target === undefined ? '' : `≤ ${target} ms (target); `}node -e 0: ${fixed(num(bare, 'cpuMs.median'), 0, ' ms')}`,
      };
    });
}

function b4Figures(result: unknown): Figure[] {
  // b4-victim-quality.ts --json: { all: { cases, optimalPct, worseOnCriterion: [c1..c5], ... }, small, large }.
  const worse = at(result, 'all.worseOnCriterion');
  const first = Array.isArray(worse) && typeof worse[0] === 'number' ? worse[0] : undefined;
  return [
    { figure: 'victim sets optimal on all criteria', ours: fixed(num(result, 'all.optimalPct'), 1, ' %'), anchor: '≥ 99 % (target); Kueue / kube-scheduler: greedy, no claim' },
    { figure: 'cases worse than the optimum on criterion 1', ours: fixed(first, 0), anchor: '0' },
    { figure: 'cases', ours: fixed(num(result, 'all.cases'), 0), anchor: '-' },
  ];
}

function b5Figures(result: unknown): Figure[] {
  const variants = at(result, 'variants');
  const figures: Figure[] = [];
  for (const v of Array.isArray(variants) ? variants : []) {
    const cells = at(v, 'cells');
    const variant = at(v, 'variant');
    const name = typeof variant === 'string' ? variant : '?';
    // With the answer memo (B5's mix: a few hundred distinct requests, renamed) and without it (all computed).
    for (const mode of ['memo', 'no-memo'] as const) {
      const cell = Array.isArray(cells) ? cells.find((c) => at(c, 'mode') === mode && at(c, 'workers') === 2 && at(c, 'batch') === 1000) : undefined;
      const hits = num(cell, 'hitRate');
      const label = mode === 'memo' ? `with the answer memo${hits === undefined ? '' : `, ${(hits * 100).toFixed(1)} % hits`}` : 'without the memo';
      figures.push({ figure: `[${name}] 2 workers, batch 1,000, ${label}`, ours: fixed(num(cell, 'qps'), 0, ' q/s'), anchor: '≥ 100,000 q/s (target); Piscina 26-29k tiny tasks/s' });
      figures.push({
        figure: `[${name}] 1 → 2 workers at batch 1,000, ${mode === 'memo' ? 'with' : 'without'} the memo`,
        ours: fixed(num(v, `scaling.${mode}.1000`), 2, '×'),
        anchor: `≥ 1.7× (target); machine's 2-thread ceiling ${fixed(num(result, 'parallelCeiling.before'), 2, '×')}`,
      });
    }
  }
  return figures.length > 0 ? figures : [{ figure: 'throughput', ours: 'n/a', anchor: '≥ 100,000 q/s' }];
}

/** B6's rows: the PAI-shaped month first, then the openb replay. */
function b6Figures(result: unknown): Figure[] {
  const rows = at(result, 'rows');
  const list = Array.isArray(rows) ? rows : [];
  const month = list[0] as unknown;
  const openb = list.find((r) => String(at(r, 'run')).startsWith('openb')) as unknown;
  const wall = (r: unknown) => {
    const median = num(r, 'wallSeconds');
    return median === undefined ? 'n/a' : `${median} s (${fixed(num(r, 'wallMinSeconds'), 1)}-${fixed(num(r, 'wallMaxSeconds'), 1)} s)`;
  };
  const days = num(month, 'simulatedDays');
  const jobs = num(month, 'jobs');
  return [
    {
      figure: `PAI-shaped month, ${jobs?.toLocaleString('en-US') ?? '?'} jobs / ${days ?? '?'} simulated days, wall median (min-max)`,
      ours: wall(month),
      anchor: '< 60 s for 30 days (target); Kueue: 15,000 workloads on 30 queues in ~351 s',
    },
    {
      figure: 'CPU seconds of the month (median) / load average at the end',
      ours: `${fixed(num(month, 'cpuSeconds'), 1)} / ${fixed(num(month, 'loadAverage'), 1)}`,
      anchor: 'wall ≈ CPU when the 2 cores are free',
    },
    {
      figure: 'simulated days per wall-second / jobs per second',
      ours: `${fixed(num(month, 'simulatedDaysPerWallSecond'), 2)} / ${fixed(num(month, 'jobsPerSecond'), 0)}`,
      anchor: 'Kueue ~43 workloads/s',
    },
    { figure: 'peak RSS of the month (MiB)', ours: fixed(num(month, 'peakRssMiB'), 0), anchor: '< 1,024 MiB (target)' },
    { figure: 'openb replay (8,152 pods, 1,213 nodes), wall median (min-max)', ours: wall(openb), anchor: '-' },
  ];
}

/** B1's row for one trace and strategy. */
function b1Row(result: unknown, trace: string, strategy: string): unknown {
  const rows = at(result, 'results');
  return Array.isArray(rows) ? rows.find((r) => at(r, 'trace') === trace && at(r, 'strategy') === strategy) : undefined;
}

function b1Figures(result: unknown): Figure[] {
  const figures: Figure[] = [];
  for (const trace of ['default', 'multigpu50']) {
    const paper = (policy: string, key: string): string => fixed(num(result, `anchors.${trace}.${policy}.${key}`), 2, '%');
    const fit = b1Row(result, trace, 'bestfit-sim');
    const ours = b1Row(result, trace, 'binpack');
    figures.push({
      figure: `[${trace}] GPUs allocated at 130 %, BestFit reproduced (faithfulness)`,
      ours: fixed(num(fit, 'allocatedPct'), 2, '%'),
      anchor: `BestFit ${paper('05-BestFit', 'allocatedPct')} (within 0.5 points)`,
    });
    figures.push({
      figure: `[${trace}] GPUs allocated at 130 %, kernel binpack`,
      ours: fixed(num(ours, 'allocatedPct'), 2, '%'),
      anchor: `FGD ${paper('06-FGD', 'allocatedPct')}`,
    });
    figures.push({
      figure: `[${trace}] fragmentation at 90 %, kernel binpack`,
      ours: fixed(num(ours, 'fragAt90Pct'), 2, '%'),
      anchor: `BestFit ${paper('05-BestFit', 'fragAt90Pct')}, FGD ${paper('06-FGD', 'fragAt90Pct')}`,
    });
    // The fragmentation strategy runs in the full B1 only (its two traces take ~8 s of CPU, mostly the bench's JS for cpu-only pods).
    const frag = b1Row(result, trace, 'fragmentation');
    if (frag === undefined) continue;
    // CPU time of the place calls (the wall time's ratio moves with the machine's load).
    const fragUs = num(frag, 'placeCpuUsMean');
    const binpackUs = num(ours, 'placeCpuUsMean');
    figures.push({
      figure: `[${trace}] GPUs allocated at 130 %, kernel fragmentation, mean / worst seed (frag at 90 % ${fixed(num(frag, 'fragAt90Pct'), 2, '%')})`,
      ours: `${fixed(num(frag, 'allocatedPct'), 2, '%')} / ${fixed(num(frag, 'allocatedMin'), 2, '%')}`,
      anchor: `FGD ${paper('06-FGD', 'allocatedPct')}; target ≥ ${trace === 'default' ? '95.6' : '97.4'}% in every seed`,
    });
    figures.push({
      figure: `[${trace}] place CPU time fragmentation / binpack, same run`,
      ours: fixed(fragUs !== undefined && binpackUs ? fragUs / binpackUs : undefined, 2, '×'),
      anchor: 'target ≤ 2×',
    });
  }
  return figures;
}

function b7Figures(result: unknown): Figure[] {
  const median = num(result, 'ms.total.median');
  const min = num(result, 'ms.total.min');
  const max = num(result, 'ms.total.max');
  return [
    {
      figure: 'load + validate + compile + tabulate, median (min-max)',
      ours: median === undefined ? 'n/a' : `${median.toFixed(0)} ms (${fixed(min, 0)}-${fixed(max, 0)} ms)`,
      anchor: '≤ 300 ms (target); json-rules-engine 0.7 ms per 10-rule run',
    },
  ];
}

/** The scale curve's points: { nodes, jobs, openCpuMs, peakRssMiB, warmCpu: { medianUs, p99Us } }. */
function scaleFigures(result: unknown): Figure[] {
  const points = at(result, 'points');
  const list = Array.isArray(points) ? (points as unknown[]) : [];
  if (list.length === 0) return [{ figure: 'scale curve', ours: 'n/a', anchor: '-' }];
  return list.map((p) => {
    const nodes = num(p, 'nodes') ?? 0;
    const target = nodes === 10_000 ? '≤ 1.5 s CPU, ≤ 400 MiB (target)' : nodes === 50_000 ? '≤ 10 s, ≤ 1.5 GiB (target)' : nodes === 100_000 ? '≤ 15 s, ≤ 1.5 GiB, distinct ≤ 2 ms (target)' : '-';
    const us = (path: string) => (num(p, path) === undefined ? 'n/a' : formatUs(num(p, path)!));
    return {
      figure: `${nodes.toLocaleString('en-US')} nodes, ${num(p, 'jobs')?.toLocaleString('en-US') ?? '?'} jobs: open CPU / peak RSS / answer CPU median, warm / distinct`,
      ours: `${fixed((num(p, 'openCpuMs') ?? NaN) / 1000, 2, ' s')} / ${fixed(num(p, 'peakRssMiB'), 0, ' MiB')} / ${us('warmCpu.medianUs')} / ${us('distinctCpu.medianUs')}`,
      anchor: target,
    };
  });
}

/** bench:load's curves ({ reader, style, ratio, linear }) and `import kubectl` runs ({ pods, cpuSeconds, wallSeconds, peakRssMiB }). */
function loadFigures(result: unknown): Figure[] {
  const curves = at(result, 'curves');
  const list = Array.isArray(curves) ? (curves as unknown[]) : [];
  const sizes = at(result, 'sizesMB');
  // A curve's own sizes where it has them (--quick times the slow readers at smaller sizes).
  const spanOf = (c: unknown): string => {
    const own = at(c, 'sizesMB');
    const s = Array.isArray(own) ? own : sizes;
    return Array.isArray(s) && s.length >= 2 ? `${String(s[0])} → ${String(s.at(-1))} MB` : '';
  };
  const figures: Figure[] = [];
  for (const reader of [...new Set(list.map((c) => String(at(c, 'reader'))))]) {
    const mine = list.filter((c) => at(c, 'reader') === reader);
    const failed = mine.find((c) => at(c, 'error') !== undefined);
    const worst = mine.reduce<unknown>((w, c) => ((num(c, 'ratio') ?? 0) > (num(w, 'ratio') ?? -1) ? c : w), undefined);
    figures.push({
      figure: `${reader}: time per MB ${[...new Set(mine.map(spanOf))].join(' / ')}, worst of ${mine.length} style(s)`,
      ours: failed
        ? `FAILED (${String(at(failed, 'style'))})`
        : `${fixed(num(worst, 'ratio'), 2, '×')} (${String(at(worst, 'style'))}), ${mine.every((c) => at(c, 'linear') === true) ? 'linear' : 'NOT linear'}`,
      anchor: 'within 1.5× (linear, target)',
    });
  }
  const imports = at(result, 'importKubectl');
  for (const r of Array.isArray(imports) ? (imports as unknown[]) : []) {
    const pods = num(r, 'pods') ?? 0;
    figures.push({
      figure: `import kubectl, ${pods.toLocaleString('en-US')} pods (${fixed((num(r, 'bytes') ?? NaN) / 1e6, 0, ' MB')}): CPU / wall / peak RSS`,
      ours: `${fixed(num(r, 'cpuSeconds'), 2, ' s')} / ${fixed(num(r, 'wallSeconds'), 1, ' s')} / ${fixed(num(r, 'peakRssMiB'), 0, ' MiB')}`,
      anchor: pods >= 100_000 ? '≤ 25 s (target)' : pods >= 20_000 ? '≤ 5 s, ≤ 500 MiB (target); was 202 s, 1.1-1.35 GB' : '-',
    });
  }
  return figures.length > 0 ? figures : [{ figure: 'readers', ours: 'n/a', anchor: 'linear' }];
}

/** Every benchmark, in the order `npm run bench` runs them. */
export const BENCHMARKS: Benchmark[] = [
  { id: 'b1', title: 'B1 placement quality (openb)', script: 'bench/b1-placement-quality.ts', quickArgs: ['--seeds', '1', '--strategies', 'bestfit-sim,binpack'], fullArgs: [], figures: b1Figures },
  { id: 'b2', title: 'B2 placement latency', script: 'bench/b2-placement-latency.ts', quickArgs: ['--quick'], fullArgs: [], figures: b2Figures },
  { id: 'b3', title: 'B3 what-if with preemption', script: 'bench/b3-whatif-preemption.ts', quickArgs: ['--nodes', '1000', '--rounds', '1'], fullArgs: [], figures: b3Figures },
  { id: 'b3d', title: 'B3d distinct what-ifs', script: 'bench/b3d-distinct.ts', quickArgs: ['--nodes', '1000', '--whatifs', '200'], fullArgs: [], figures: b3dFigures },
  { id: 'scale', title: 'B3 scale curve', script: 'bench/b3-scale.ts', quickArgs: ['--sizes', '100,1000'], fullArgs: [], figures: scaleFigures },
  { id: 'cli', title: 'CLI what-if, many WhatIfs', script: 'bench/cli-whatif.ts', quickArgs: ['--nodes', '1000', '--many', '1001', '--repeats', '1'], fullArgs: [], figures: cliFigures },
  { id: 'b4', title: 'B4 victim-set quality', script: 'bench/b4-victim-quality.ts', quickArgs: ['--cases', '20'], fullArgs: [], figures: b4Figures },
  {
    id: 'b5',
    title: 'B5 batch throughput',
    script: 'bench/b5-batch-throughput.ts',
    quickArgs: ['--only', 'small', '--queries', '4000', '--small-queries', '2000', '--small-budget', '1', '--quick'],
    fullArgs: [],
    figures: b5Figures,
  },
  { id: 'b6', title: 'B6 trace replay', script: 'bench/b6-trace-replay.ts', quickArgs: ['--jobs', '20000', '--days', '1', '--repeat', '1'], fullArgs: [], figures: b6Figures },
  { id: 'b7', title: 'B7 policy compile', script: 'bench/b7-policy-compile.ts', quickArgs: ['--rounds', '1'], fullArgs: [], figures: b7Figures },
  { id: 'load', title: 'Reading input: linear in size', script: 'bench/load.ts', quickArgs: ['--quick'], fullArgs: [], figures: loadFigures },
  { id: 'start', title: 'Start-up: whole processes', script: 'bench/start.ts', quickArgs: ['--runs', '3'], fullArgs: [], figures: startFigures },
  { id: 'cache', title: 'Compiled-policy cache: cold and warm opens', script: 'bench/cache.ts', quickArgs: ['--nodes', '1000', '--runs', '1'], fullArgs: [], figures: cacheFigures },
];
