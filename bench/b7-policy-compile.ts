/**
 * B7 policy compile (BENCHMARKS.md): a generated 1,000-quota policy with 100 workspaces,
 * 600 members, resource policies and admission settings (bench/b7-policy.ts), taken from
 * text to a session ready to answer:
 *
 * - load: parse + validate + build (src/policy/load-policy.ts);
 * - compile: Session.open (load again + preemption rules) plus the admission rules;
 * - tabulate: the eligibility table of every preemptor class (every quota × priority
 *   1..9, in-quota target), the work a first answer of each class would do.
 *
 * Each round starts from the text with a fresh session; figures are medians with min and
 * max over the rounds. It times the compiled dist/ (`npm run build` first), as the CLI
 * runs it: under tsx the same steps cost ~1.5-2× more (bench/compiled.ts). Anchors: BENCHMARKS.md (json-rules-engine ~0.7 ms per run of 10
 * rules; the target for the whole is 300 ms).
 *
 *   npm run bench:b7              # table
 *   npm run -s bench:b7 -- --json # JSON only
 */
import type * as SessionModule from '../src/engine/session.js';
import type * as LoadModule from '../src/policy/load-policy.js';
import { b7Policy } from './b7-policy.js';
import { compiled } from './compiled.js';
import { distribution, formatUs, printRows, sinceUs, type Distribution } from './timing.js';

// The compiled modules (dist/), as `quotient` runs them: bench/compiled.ts says why.
const { Session } = await compiled<typeof SessionModule>('engine/session');
const { loadPolicy } = await compiled<typeof LoadModule>('policy/load-policy');

const json = process.argv.includes('--json');
const roundsAt = process.argv.indexOf('--rounds');
const ROUNDS = roundsAt >= 0 ? Number(process.argv[roundsAt + 1]) : 5;

const p = b7Policy();
/**
 * `ready` is open + admission: what a session costs before its first answer, since
 * sessions make tables on first use; `total` (the B7 figure) adds tabulating every class.
 */
const samples = { load: [] as number[], open: [] as number[], admission: [] as number[], ready: [] as number[], tabulate: [] as number[], total: [] as number[] };
/** CPU time (user + system, all threads) of the B7 figure's steps, in µs: less sensitive than wall time to a shared machine. */
const cpuTotal: number[] = [];
let tables = 0;
let fastTables = 0;
let shared = { rows: 0, cellArrays: 0 };
for (let r = 0; r < ROUNDS; r++) {
  let t = process.hrtime.bigint();
  const loaded = loadPolicy(p.files);
  samples.load.push(sinceUs(t));
  if (!loaded.policy) throw new Error(`B7 policy did not load: ${loaded.findings[0]?.code} ${loaded.findings[0]?.message}`);
  const start = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  t = start;
  const { session } = Session.open(p.files);
  if (!session) throw new Error('B7 session did not open');
  samples.open.push(sinceUs(t));
  t = process.hrtime.bigint();
  const admission = session.admissionRules.length;
  samples.admission.push(sinceUs(t));
  samples.ready.push(sinceUs(start));
  t = process.hrtime.bigint();
  tables = 0;
  for (let q = 0; q < session.tree.quotas.length; q++) {
    for (let prio = 1; prio <= 9; prio++) {
      await session.tables.tableFor(q, prio, 'in-quota');
      tables++;
    }
  }
  samples.tabulate.push(sinceUs(t));
  samples.total.push(sinceUs(start));
  const cpu = process.cpuUsage(cpuStart);
  cpuTotal.push(cpu.user + cpu.system);
  fastTables = session.tables.fastTables;
  shared = session.tables.shared;
  if (admission === 0) throw new Error('B7 policy compiled no admission rules');
}

const dist = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, distribution(v)])) as Record<keyof typeof samples, Distribution>;
const cpuDist = distribution(cpuTotal);
const result = {
  benchmark: 'B7',
  policy: p.stats,
  rounds: ROUNDS,
  tables,
  tablesWithoutEngineRuns: fastTables,
  /** Rows computed and distinct cell arrays made for the tables (the rest are shared): src/rules/eligibility-table.ts. */
  sharedRows: shared.rows,
  cellArrays: shared.cellArrays,
  ms: Object.fromEntries(Object.entries(dist).map(([k, d]) => [k, { median: d.medianUs / 1000, min: d.minUs / 1000, max: d.maxUs / 1000 }])),
  cpuMs: { median: cpuDist.medianUs / 1000, min: cpuDist.minUs / 1000, max: cpuDist.maxUs / 1000 },
  anchors: { targetTotalMs: 300, jsonRulesEngineMsPerRun: 0.7 },
};
if (json) console.log(JSON.stringify(result, null, 2));
else {
  console.log(
    `B7 policy compile: ${p.stats.quotas} quotas, ${p.stats.workspaces} workspaces, ${p.stats.members} members, ${p.stats.resourcePolicies} resource policies, ${(p.stats.bytes / 1024).toFixed(0)} KiB of YAML; ${ROUNDS} rounds`,
  );
  const row = (what: string, d: Distribution): string[] => [what, formatUs(d.medianUs), formatUs(d.minUs), formatUs(d.maxUs)];
  printRows(
    ['step', 'median', 'min', 'max'],
    [
      row('load (parse, validate, build)', dist.load),
      row('Session.open (load + rules + snapshot)', dist.open),
      row('admission rules', dist.admission),
      row('open + admission (tables made on first use)', dist.ready),
      row(`tabulate ${tables} preemptor classes`, dist.tabulate),
      row('open + admission + tabulate (the B7 figure)', dist.total),
      row('  the same, CPU time of the process', cpuDist),
    ],
  );
  console.log(
    `\n${fastTables} of ${tables} tables filled by the rules' own operators without an engine run, from ${shared.rows} distinct rows in ${shared.cellArrays} distinct cell arrays; target for the B7 figure: 300 ms`,
  );
}
