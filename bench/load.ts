/**
 * bench:load — is every reader linear? (issue 18 item 3.) Each reader of user input is
 * timed on inputs of 1, 4 and 16 MB in each of its styles, and its time per MB at the
 * largest size is compared with the smallest: within 1.5× is "linear". A reader that
 * searched to the end of the text once per scalar (subset-yaml.ts's `quotedEnd`, fixed)
 * made 7.5 MB of double-quoted scalars take 78 s to check; this is the guard against
 * the next such search.
 *
 * Readers (the compiled dist/, as the CLI runs them; bench/compiled.ts says why):
 *
 *   subset      policy/parse/subset-yaml.ts readSubset, the first way in for a policy file
 *   js-yaml     policy/parse/fast-parse.ts fastParse, when the subset reader declines
 *   positioned  the yaml library's parse with positions (source-doc.ts), made when a
 *               finding or an answer needs a line: the lazy document's first use
 *   check       policy/load-policy.ts loadPolicy: parse, validate and build, as `check`
 *   trace jobs  simulate/read-jobs.ts readJobs on a CSV trace
 *   openb       simulate/openb-trace.ts readOpenb on an openb pod list
 *   kubectl     interop/located-json.ts readLocated on a kubectl List (JSON)
 *
 * Policy styles: scalars plain or double-quoted × collections block or flow, and one
 * mapping of many keys (`wide-map`; for check `wide-findings`, a finding at every key)
 * (bench/load-inputs.ts); CSV styles: cells plain or quoted; kubectl: JSON as kubectl
 * prints it (bench/kubectl-state.ts). Figures are CPU time of this process (user +
 * system), the minimum of the repeats: the machines are shared, and a reader's own cost
 * is what the curve is about. A full GC runs before each sample, and a sample lasts at
 * least 100 ms (a fast reader on a small input runs several times in one).
 *
 * Then `quotient import kubectl` end to end, as a user runs it, in a child process per
 * size (wall and CPU time, peak RSS): 2,000, 20,000 and 100,000 pods of a realistic
 * `kubectl get nodes,pods -A -o json` (GPU nodes, gangs with owners, priorities,
 * namespaces, daemons). Targets: 20,000 pods ≤ 5 s and ≤ 500 MiB, 100,000 pods ≤ 25 s.
 *
 *   npm run bench:load                                   # 1, 4, 16 MB; 2,000 / 20,000 / 100,000 pods (minutes)
 *   npm run bench:load -- --quick                        # 1 and 4 MB (slow readers 0.125 and 0.5, kubectl 2 and 8), two policy styles; 1,000 / 5,000 pods
 *   npm run -s bench:load -- --json
 *   npm run bench:load -- --sizes 1,4 --readers subset,check --pods 20000
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as LocatedJson from '../src/interop/located-json.js';
import type * as FastParse from '../src/policy/parse/fast-parse.js';
import type * as LoadPolicy from '../src/policy/load-policy.js';
import type * as SourceDocModule from '../src/policy/parse/source-doc.js';
import type * as SubsetYaml from '../src/policy/parse/subset-yaml.js';
import type * as OpenbTrace from '../src/simulate/openb-trace.js';
import type * as ReadJobs from '../src/simulate/read-jobs.js';
import { compiled } from './compiled.js';
import { kubectlState } from './kubectl-state.js';
import { CSV_STYLES, jobsCsv, openbCsv, policyInput, POLICY_STYLES, treeOnly, wideInput } from './load-inputs.js';
import { collectGarbage, printRows } from './timing.js';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const json = args.includes('--json');
const quick = args.includes('--quick');
const SIZES_MB = (flag('sizes') ?? (quick ? '1,4' : '1,4,16')).split(',').map(Number);
/**
 * --quick times the slow readers (0.15-1.5 s per MB: the positioned parse, check with a
 * finding at every key, the CSV readers) over the same 4× span at an eighth of the size,
 * 0.125 → 0.5 MB, so that `npm run bench -- --quick` stays under a minute. The fast ones
 * stay at 1 → 4 MB: below 1 MB their time per MB is the young generation's, rising up to
 * 2.5× from 0.25 to 1 MB, a false "not linear". The slow ones' curves only fall below 1 MB
 * (fixed costs), and each quadratic bug this guards against is already several times a
 * linear read at 0.5 MB (the quoted-scalar search: ~0.35 s against ~40 ms; 10,000 keys in
 * the yaml composer's uniqueKeys: ~4.5 s against ~0.3 s).
 */
const QUICK_SLOW_SIZES_MB = [0.125, 0.5];
/** --quick reads kubectl's JSON (~10 ms per MB) at 2 → 8 MB: from 1 to 4 MB its time per MB moves 0.5-1.9× between runs (the young generation again); above, it is flat. */
const QUICK_KUBECTL_SIZES_MB = [2, 8];
const slowReader = (r: Reader, style: string): boolean => r === 'positioned' || r === 'trace jobs' || r === 'openb' || (r === 'check' && style === 'wide-findings');
/** The sizes a curve is timed at. */
const sizesOf = (r: Reader, style: string): number[] => {
  if (!quick || flag('sizes') !== undefined) return SIZES_MB;
  return slowReader(r, style) ? QUICK_SLOW_SIZES_MB : r === 'kubectl' ? QUICK_KUBECTL_SIZES_MB : SIZES_MB;
};
const PODS = (flag('pods') ?? (quick ? '1000,5000' : '2000,20000,100000'))
  .split(',')
  .filter((x) => x !== '' && x !== '0')
  .map(Number);
const READERS = ['subset', 'js-yaml', 'positioned', 'check', 'trace jobs', 'openb', 'kubectl'] as const;
type Reader = (typeof READERS)[number];
const only = flag('readers')?.split(',') as Reader[] | undefined;
if (SIZES_MB.some((s) => !(s > 0)) || PODS.some((p) => !(p > 0)) || only?.some((r) => !READERS.includes(r))) {
  process.stderr.write(`bench:load: --sizes takes MB (e.g. 1,4,16), --pods counts, --readers some of ${READERS.join(', ')}\n`);
  process.exit(2);
}
/** A curve is linear when its time per MB at the largest size is within this factor of the smallest's. */
const LINEAR = 1.5;
/** A sample lasts at least this long (CPU ms): a faster reader runs several times in one. */
const SAMPLE_MS = 100;
/** --quick: CPU ms of samples after which a size has enough (given at least two). */
const QUICK_BUDGET_MS = 300;

const { readSubset } = await compiled<typeof SubsetYaml>('policy/parse/subset-yaml');
const { fastParse } = await compiled<typeof FastParse>('policy/parse/fast-parse');
const { parseFiles } = await compiled<typeof SourceDocModule>('policy/parse/source-doc');
const { loadPolicy } = await compiled<typeof LoadPolicy>('policy/load-policy');
const { readJobs } = await compiled<typeof ReadJobs>('simulate/read-jobs');
const { readOpenb, DEFAULT_QOS } = await compiled<typeof OpenbTrace>('simulate/openb-trace');
const { readLocated } = await compiled<typeof LocatedJson>('interop/located-json');

const LIMITS = { maxDepth: 100, maxEntries: 2_000_000 };
const tree = loadPolicy(treeOnly(), { now: 0 }).policy!;
const teams = Array.from({ length: 10 }, (_, t) => ({ quota: `team-${t}`, workspace: `ws-${t}`, weight: 1, module: 'DLC' as const }));

/** One input: its text (and files for `check`), and what runs the reader on it; throws when the reader refuses or declines. */
interface Case {
  bytes: number;
  run: () => void;
}

/** The input of `reader` in `style` at about `mb` MB. */
function makeCase(reader: Reader, style: string, mb: number): Case {
  const bytes = Math.round(mb * 1_000_000);
  if (reader === 'trace jobs' || reader === 'openb') {
    const csv = reader === 'openb' ? openbCsv(bytes, style as 'plain') : jobsCsv(bytes, style as 'plain');
    return {
      bytes: csv.text.length,
      run: () => {
        const w = reader === 'openb' ? readOpenb('pods.csv', csv.text, { qos: DEFAULT_QOS, teams }) : readJobs('jobs.csv', csv.text, { policy: tree, instanceTypes: new Map() });
        if (w.rejected.length > 0 || w.jobs.length !== csv.rows) throw new Error(`${reader} read ${w.jobs.length} of ${csv.rows} rows: ${w.rejected[0]?.message}`);
      },
    };
  }
  if (reader === 'kubectl') {
    // ~2.4 KB per pod with its share of nodes (bench/kubectl-state.ts).
    const state = kubectlState(Math.max(10, Math.round(bytes / 2400)));
    return {
      bytes: state.text.length,
      run: () => {
        const r = readLocated({ path: 'state.json', text: state.text }, { json: true });
        if (r.findings.length > 0 || r.docs.length !== 1) throw new Error(`kubectl: ${r.findings[0]?.message}`);
      },
    };
  }
  if (style === 'wide-findings') {
    // `check` of one mapping with a finding at every key: each finding is located in it.
    const wide = wideInput(bytes, style);
    const files = [...treeOnly().slice(0, 1), { path: 'wide.yaml', text: wide.text }];
    return {
      bytes: wide.text.length,
      run: () => {
        const r = loadPolicy(files, { now: 0 });
        if (r.findings.filter((f) => f.code === 'policy/control-character').length !== wide.entries) throw new Error(`check found ${r.findings.length} findings, not one per key`);
      },
    };
  }
  const input = style === 'wide-map' ? { files: [{ path: 'wide.yaml', text: wideInput(bytes, style).text }] } : policyInput(bytes, style as 'plain-block');
  const cluster = input.files[input.files.length - 1]!;
  const text = cluster.text;
  switch (reader) {
    case 'subset':
      return {
        bytes: text.length,
        run: () => {
          if (!readSubset(text, LIMITS)) throw new Error('the subset reader declined');
        },
      };
    case 'js-yaml':
      return {
        bytes: text.length,
        run: () => {
          const r = fastParse(text, LIMITS);
          if (!r.ok) throw new Error(`js-yaml declined: ${r.why}`);
        },
      };
    case 'positioned': {
      return {
        bytes: text.length,
        run: () => {
          // The fast path first (untimed it is not: its share is the subset row), then the positions it defers.
          const parsed = parseFiles([cluster]);
          if (parsed.docs.length !== 1) throw new Error('no document');
          if (parsed.docs[0]!.doc.errors.length > 0) throw new Error('the positioned parse found errors');
        },
      };
    }
    default:
      return {
        bytes: text.length,
        run: () => {
          const r = loadPolicy(input.files, { now: 0 });
          if (!r.policy) throw new Error(`check found ${r.findings[0]?.code}: ${r.findings[0]?.message}`);
        },
      };
  }
}

/** CPU milliseconds (user + system) of one call, after a full GC. */
function cpuMs(run: () => void): { cpu: number; wall: number } {
  collectGarbage();
  const wall0 = performance.now();
  const cpu0 = process.cpuUsage();
  run();
  const cpu = process.cpuUsage(cpu0);
  return { cpu: (cpu.user + cpu.system) / 1000, wall: performance.now() - wall0 };
}

interface Point {
  mb: number;
  bytes: number;
  /** CPU ms of the fastest repeat, and its wall ms. */
  cpuMs: number;
  wallMs: number;
  cpuMsPerMB: number;
}

interface Curve {
  reader: Reader;
  style: string;
  /** The sizes it was timed at (--quick: slow readers at an eighth of the others'). */
  sizesMB: number[];
  points: Point[];
  /** Time per MB at the largest size over the smallest's. */
  ratio: number;
  linear: boolean;
  error?: string;
}

/** The styles each reader is timed in; --quick keeps the two that were quadratic (double quotes, a wide mapping) to stay near a minute. */
const styles = (r: Reader): readonly string[] => {
  if (r === 'trace jobs' || r === 'openb') return CSV_STYLES;
  if (r === 'kubectl') return ['json'];
  const wide = r === 'check' ? 'wide-findings' : 'wide-map';
  return quick ? ['quoted-block', wide] : [...POLICY_STYLES, wide];
};

const curves: Curve[] = [];
for (const reader of only ?? READERS) {
  for (const style of styles(reader)) {
    const points: Point[] = [];
    let error: string | undefined;
    try {
      // JIT and caches settle on a small input first.
      makeCase(reader, style, 0.05).run();
      for (const mb of sizesOf(reader, style)) {
        const c = makeCase(reader, style, mb);
        // More repeats where a run is short (its minimum is the figure). --quick takes samples
        // until it has 2 and has spent QUICK_BUDGET_MS on them, at most 4: a slow reader gets
        // 2, a fast one (whose minimum moves most with the neighbours' load) 3 or 4.
        const repeats = quick ? 4 : mb <= 1 ? 7 : mb <= 4 ? 3 : 2;
        const enough = (k: number, spent: number): boolean => quick && k >= 2 && spent >= QUICK_BUDGET_MS;
        // A sample of a fast reader on a small input lasts a few ms, where one scavenge or a
        // scheduler slice is a large share: such a sample runs the reader several times.
        const first = cpuMs(c.run);
        const calls = Math.min(50, Math.max(1, Math.ceil(SAMPLE_MS / Math.max(first.cpu, 0.1))));
        const run = (): void => {
          for (let k = 0; k < calls; k++) c.run();
        };
        // A reader slow enough to be sampled one call at a time: that first call is a sample too.
        let best = calls === 1 ? first : { cpu: Infinity, wall: Infinity };
        let spent = calls === 1 ? first.cpu : 0;
        for (let k = calls === 1 ? 1 : 0; k < repeats && !enough(k, spent); k++) {
          const t = cpuMs(run);
          spent += t.cpu;
          if (t.cpu / calls < best.cpu) best = { cpu: t.cpu / calls, wall: t.wall / calls };
        }
        points.push({ mb, bytes: c.bytes, cpuMs: round(best.cpu), wallMs: round(best.wall), cpuMsPerMB: round(best.cpu / (c.bytes / 1e6)) });
        if (!json) process.stderr.write(`  ${reader} ${style} ${mb} MB: ${best.cpu.toFixed(0)} ms CPU\n`);
      }
    } catch (e) {
      error = (e as Error).message;
    }
    const ratio = points.length >= 2 ? round(points.at(-1)!.cpuMsPerMB / points[0]!.cpuMsPerMB) : NaN;
    curves.push({ reader, style, sizesMB: sizesOf(reader, style), points, ratio, linear: ratio <= LINEAR, ...(error ? { error } : {}) });
  }
}

/** `quotient import kubectl` in a child process: wall and CPU seconds, peak RSS. */
interface ImportRun {
  pods: number;
  nodes: number;
  bytes: number;
  wallSeconds: number;
  cpuSeconds: number;
  peakRssMiB: number;
  jobs: number;
  exitCode: number | null;
}

const root = fileURLToPath(new URL('..', import.meta.url));
const imports: ImportRun[] = [];
if (PODS.length > 0) {
  const dir = mkdtempSync(join(tmpdir(), 'quotient-bench-load-'));
  try {
    for (const pods of PODS) {
      const state = kubectlState(pods);
      const file = join(dir, `state-${pods}.json`);
      writeFileSync(file, state.text);
      const usage = join(dir, `usage-${pods}.json`);
      const started = performance.now();
      const child = spawnSync(
        process.execPath,
        ['--import', new URL('./usage-probe.mjs', import.meta.url).href, join(root, 'dist/cli/main.js'), 'import', 'kubectl', file, '--at', '2026-11-24T00:00:00Z'],
        {
          encoding: 'utf8',
          maxBuffer: 1024 * 1024 * 1024,
          env: { ...process.env, QUOTIENT_BENCH_USAGE_FILE: usage, NO_COLOR: '1' },
        },
      );
      const wall = (performance.now() - started) / 1000;
      const u = JSON.parse(readFileSync(usage, 'utf8')) as { maxRSS: number; userCPUTime: number; systemCPUTime: number };
      imports.push({
        pods: state.pods,
        nodes: state.nodes,
        bytes: state.text.length,
        wallSeconds: round(wall),
        cpuSeconds: round((u.userCPUTime + u.systemCPUTime) / 1e6),
        peakRssMiB: Math.round(u.maxRSS / 1024),
        jobs: Number(/(\d+) job\(s\) from/.exec(child.stderr)?.[1] ?? NaN),
        exitCode: child.status,
      });
      if (child.status !== 0) process.stderr.write(`import kubectl of ${pods} pods exited ${child.status}:\n${child.stderr.split('\n').slice(-5).join('\n')}\n`);
      if (!json) process.stderr.write(`  import kubectl ${pods} pods: ${wall.toFixed(1)} s wall\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

const result = {
  benchmark: 'load',
  loadAverage1m: round(loadavg()[0] ?? 0),
  sizesMB: SIZES_MB,
  ...(quick && flag('sizes') === undefined ? { slowReadersSizesMB: QUICK_SLOW_SIZES_MB, kubectlSizesMB: QUICK_KUBECTL_SIZES_MB } : {}),
  linearWithin: LINEAR,
  curves,
  allLinear: curves.every((c) => c.linear && !c.error),
  importKubectl: imports,
  targets: { pods20000: { seconds: 5, rssMiB: 500 }, pods100000: { seconds: 25 } },
};
if (json) console.log(JSON.stringify(result, null, 2));
else {
  console.log(`bench:load — CPU ms per MB (fastest of the repeats), load average ${result.loadAverage1m}`);
  printRows(
    ['reader', 'style', ...SIZES_MB.map((s, i) => (result.slowReadersSizesMB ? `size ${i + 1}` : `${s} MB`)), 'ratio last/first', 'linear (≤ 1.5×)'],
    curves.map((c) => [
      c.reader,
      c.style,
      ...SIZES_MB.map((_, i) => (c.points[i] ? `${c.points[i].cpuMsPerMB.toFixed(1)} ms/MB${result.slowReadersSizesMB ? ` at ${c.points[i].mb} MB` : ''}` : '-')),
      Number.isNaN(c.ratio) ? '-' : `${c.ratio.toFixed(2)}×`,
      c.error ? `FAILED: ${c.error}` : c.linear ? 'yes' : 'NO',
    ]),
  );
  if (imports.length > 0) {
    console.log('\nquotient import kubectl, end to end (child process)');
    printRows(
      ['pods', 'nodes', 'MB', 'wall s', 'CPU s', 'peak RSS', 'CPU ms per 1,000 pods', 'target'],
      imports.map((r) => [
        r.pods.toLocaleString('en-US'),
        r.nodes.toLocaleString('en-US'),
        (r.bytes / 1e6).toFixed(1),
        r.wallSeconds.toFixed(1),
        r.cpuSeconds.toFixed(2),
        `${r.peakRssMiB} MiB`,
        ((r.cpuSeconds * 1000) / (r.pods / 1000)).toFixed(0),
        r.pods >= 100_000 ? '≤ 25 s' : r.pods >= 20_000 ? '≤ 5 s, ≤ 500 MiB' : '-',
      ]),
    );
  }
  console.log(
    `\n${result.allLinear ? 'every reader is linear' : 'NOT every reader is linear'} (time per MB within ${LINEAR}× from ${SIZES_MB[0]} to ${SIZES_MB.at(-1)} MB${result.slowReadersSizesMB ? `, slow readers ${QUICK_SLOW_SIZES_MB.join(' to ')} MB, kubectl ${QUICK_KUBECTL_SIZES_MB.join(' to ')} MB` : ''})`,
  );
}
// Exit 1 when a reader failed or an import did not run; a curve that is not linear is a figure, not a failure of the run.
process.exit(curves.every((c) => !c.error) && imports.every((r) => r.exitCode === 0) ? 0 : 1);
