/**
 * Every renderer, fed text whose every string holds hostile characters (C0 with ESC,
 * NUL, CR and LF, C1, bidi overrides and isolates, line separators, zero-width ones),
 * prints none of them raw and breaks no line (issue 18 item 4). The inputs are real
 * answers and reports of the shipped policies with every string field made hostile, so
 * a field a renderer prints raw fails whatever its name: the renderers are tested on
 * their own, whatever the readers refuse upstream (a trace name with a control
 * character, for one, is refused when the trace is read).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderTable, renderMarkdown } from '../../src/cli/diff.js';
import { mappingTable } from '../../src/cli/export.js';
import { fitTable } from '../../src/cli/fit-table.js';
import { renderAnswer } from '../../src/cli/render-answer.js';
import { renderFindings } from '../../src/cli/render-findings.js';
import { renderHtml } from '../../src/cli/render-html.js';
import { renderReport } from '../../src/cli/render-report.js';
import { renderScale } from '../../src/cli/render-scale.js';
import { renderSweep } from '../../src/simulate/report-document.js';
import { junitReport, tapReport } from '../../src/cli/test-report.js';
import { renderMarketAnswer } from '../../src/cli/whatif-market.js';
import type { Answer } from '../../src/engine/answer.js';
import type { ScaleAnswer } from '../../src/engine/scale.js';
import type { Finding } from '../../src/errors.js';
import type { DiffResult } from '../../src/interop/diff-policies.js';
import { exportKueue } from '../../src/interop/kueue.js';
import { treeOfPolicy } from '../../src/interop/tree-quota.js';
import { display, escapeDisplay, type Display } from '../../src/model/display-text.js';
import { loadPolicy } from '../../src/policy/load-policy.js';
import { readBundles } from '../../src/policy/parse/read-files.js';
import { answerMarketEvent, parseMarketEvent, type MarketAnswer, type MarketEvent } from '../../src/simulate/market-event.js';
import type { Report } from '../../src/simulate/report.js';
import { simulate } from '../../src/simulate/simulator.js';
import type { PromiseResult } from '../../src/verify/check-promise.js';
import { answerAll, openSession } from '../helpers/session.js';
import { spotExample } from '../helpers/spot-example.js';
import { dirtOf, hostileName } from '../helpers/hostile-text.js';

/** Fields whose value a renderer looks up rather than prints (an enum key): kept as they are. */
const LOOKED_UP = new Set(['decision']);

/** `value` with `h` put into every string (at the start, the middle or the end, by `where`), keys kept. */
function poison<T>(value: T, h: string, where = 0): T {
  const put = (s: string): string => (where % 3 === 0 ? `${h}${s}` : where % 3 === 1 ? `${s.slice(0, s.length >> 1)}${h}${s.slice(s.length >> 1)}` : `${s}${h}`);
  const walk = (v: unknown, key: string): unknown => {
    if (typeof v === 'string') return LOOKED_UP.has(key) ? v : put(v);
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(value, '') as T;
}

let report: Report;
let answers: Answer[];
let scale: ScaleAnswer;
let findings: Finding[];
let market: MarketAnswer;
let mapping: ReturnType<typeof exportKueue>['rows'];

beforeAll(async () => {
  const { input } = spotExample();
  report = await simulate(input, { seed: 1, backend: 'reference' });
  // The engine's rejections and the workload's notes, which the shipped trace does not make.
  report = { ...report, rejections: [{ job: 'j', team: 't', quota: 'q', hour: 1, reason: 'no room' }], notes: ['a note'], workload: { ...report.workload, notes: ['a workload note'] } };
  const event = parseMarketEvent('lingjun.gu8-8gpu=inventory:0@30h') as MarketEvent;
  market = await answerMarketEvent(input, { seed: 1, backend: 'reference' }, event);
  answers = [...(await answerAll(openSession(readBundles(['policies/inference-preempts-training'])[0]!.files))).values()];
  const scaling = openSession(readBundles(['policies/quota-scaling'])[0]!.files);
  scale = scaling.scale(scaling.policy.scales[0]!);
  const broken = readFileSync('policies/self-level-preemption/quotas.yaml', 'utf8').replace('min:', 'mni:');
  findings = loadPolicy([{ path: 'q.yaml', text: broken }], { now: 0 }).findings;
  const policy = loadPolicy(readBundles(['policies/inference-preempts-training'])[0]!.files, { now: 0 }).policy!;
  mapping = exportKueue(treeOfPolicy(policy), { version: 'v1beta2', names: { gpu: 'nvidia.com/gpu' }, flavor: 'default-flavor' }).rows;
}, 120_000);

/** One piece of every kind each renderer prints, so a property run reaches them all. */
function exercised(): void {
  expect(report.preemptions.byRule.length + report.spot.byInstanceType.length + report.rejections.length).toBeGreaterThan(2);
  expect(answers.some((a) => a.victims.length > 0 && a.reasons.length > 0)).toBe(true);
  expect(scale.changes.length).toBeGreaterThan(0);
  expect(findings.length).toBeGreaterThan(0);
  expect(market.released.length + market.keepsRunning.length + market.protectedUntilHour.length).toBeGreaterThan(0);
  expect(mapping.length).toBeGreaterThan(0);
}

const DIFF: DiffResult = {
  old: 'old/',
  new: 'new/',
  asked: { whatifs: 1, promises: 1, samples: 0 },
  changes: [
    {
      kind: 'whatif',
      question: 'q',
      job: 'Q/ws DLC p5 1×8',
      changed: ['decision'],
      old: { decision: 'admit', standing: 'in-quota', victims: [], lostGpuHours: 0, why: 'fits' },
      new: { decision: 'preempt', standing: 'borrowing', victims: ['v1'], lostGpuHours: 2, why: 'Q/reclaim at q.yaml:3:5' },
    },
  ],
};

const PROMISE: PromiseResult = {
  promise: 'p',
  description: 'a promise',
  source: 'p.yaml:1:1',
  status: 'broken',
  runs: 3,
  seed: 1,
  path: '0:1',
  counterexample: { broken: ['job j was preempted'], yaml: 'kind: WhatIf\nmetadata: { name: q }\n', query: 'q', replayed: true } as PromiseResult['counterexample'],
  coverage: { states: 3, distinctStates: 3, decisions: {}, rules: [] },
};

/** Every renderer of the CLI on poisoned input, each by its name. */
function renderAll(h: string, where: number): Array<[string, Display]> {
  const p = <T>(v: T): T => poison(v, h, where);
  const answer = p(answers.find((a) => a.victims.length > 0)!);
  const hidden = { ...answer, victims: [{ ...answer.victims[0]!, hidden: true, priorityBand: p('1-3') }] } as unknown as Answer;
  const estimate = p({
    start: null,
    inHours: null,
    queuePosition: 2,
    queueStrategy: 'StrictFIFO',
    standing: null,
    victims: ['v'],
    withoutExpectedEnd: [],
    assumedEnds: [{ job: 'j', quota: 'Q', end: '2026-11-20T13:00:00.000Z', runtimeDefault: "Q's 3 h runtimeDefault" }],
    assumptions: ['an assumption'],
    reason: 'no end',
  });
  const snapshot = p({ name: 'imported', at: '2026-11-20T12:00:00.000Z', files: ['cluster.yaml'], replaced: ['p/cluster.yaml'] });
  const r = p(report);
  return [
    ['renderAnswer', renderAnswer({ ...answer, policy: p('policies/x'), snapshot, estimate } as Parameters<typeof renderAnswer>[0], 100)],
    ['renderAnswer (as a user, hidden victim)', renderAnswer({ ...hidden, as: p('bob') }, 60)],
    ['renderAnswer (records at 40 columns)', renderAnswer(answer, 40)],
    ['renderScale', renderScale({ ...p(scale), policy: p('policies/s') }, 100)],
    ['renderFindings', renderFindings(p(findings), () => p('spec:\n  quotas:\n    - { name: A, mni: { gpu: 8 } }\n'))],
    ['renderReport', renderReport(r)],
    ['renderSweep', renderSweep({ version: 1, kind: 'SimulationSweep', total: 1, runs: [{ index: 0, policy: p('policies/s'), seed: 1, report: r }] })],
    ['renderMarketAnswer', renderMarketAnswer(p(market))],
    ['diff renderTable', renderTable(p(DIFF), 80)],
    ['diff renderMarkdown', renderMarkdown(p(DIFF))],
    ['export mappingTable', mappingTable(p(mapping), 80)],
    ['junitReport', junitReport([{ policy: p('policies/p'), results: [p(PROMISE)] }])],
    ['tapReport', tapReport([{ policy: p('policies/p'), results: [p(PROMISE)] }])],
    [
      'fitTable',
      fitTable(
        [h, 'b'],
        [
          [h, 1],
          [`${h} ${h}`, h],
        ],
        40,
      ),
    ],
    ['display template', display`${h}: ${escapeDisplay(h)}`],
  ];
}

/** The first character of `h` that escaping changes. */
function firstHostile(h: string): string {
  return [...h].find((c) => escapeDisplay(c).text !== c) ?? '';
}

describe('renderers on hostile text', () => {
  it('print no character a terminal obeys or hides, and break no line, whatever field holds it', () => {
    exercised();
    let cases = 0;
    fc.assert(
      fc.property(hostileName(), fc.nat(2), (h, where) => {
        for (const [name, out] of renderAll(h, where)) {
          const dirt = dirtOf(out.text, true);
          if (dirt) throw new Error(`${name} with ${JSON.stringify(h)}: ${dirt}`);
          // The name reached the output, its first hostile character escaped: the property is not vacuous.
          if (!out.text.includes(escapeDisplay(firstHostile(h)).text)) throw new Error(`${name}: ${JSON.stringify(h)} never reached the output`);
        }
        cases++;
      }),
      { seed: 18, numRuns: 40 },
    );
    expect(cases).toBe(40);
  });

  it('the HTML report too, charts included (a bidi override would reverse a name in the page)', async () => {
    const h = 'team\u202Eevil\u001b[8m\nZQ\u0000';
    const html = await renderHtml(poison(report, h));
    expect(dirtOf(html)).toBeUndefined();
    expect(html).toContain('team\\u{202E}evil\\e[8m\\nZQ\\0');
  });

  it('the known bug: a rejected trace job named with a line feed and ESC[8m forges no line and conceals nothing', () => {
    const r = { ...report, rejections: [{ job: 'evil\nFORGED LINE \u001b[8mhidden', team: 'TeamA', quota: 'TeamA', hour: 2, reason: 'no room' }], totals: { ...report.totals, rejected: 1 } };
    const out = renderReport(r).text;
    expect(out).toContain('  evil\\nFORGED LINE \\e[8mhidden (TeamA) at hour 2: no room');
    expect(out.split('\n').some((l) => l.startsWith('FORGED'))).toBe(false);
  });
});
