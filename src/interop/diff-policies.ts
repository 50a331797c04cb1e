/**
 * What a policy change does, as answers: the same questions asked under the old and the
 * new policy — every WhatIf either side has, every Promise, and a seeded sample of
 * generated submissions against the snapshot — and every answer that changed (decision,
 * standing, victims, lost work), with the rule and policy line behind each side.
 */
import fc from 'fast-check';
import type { Answer } from '../engine/answer.js';
import type { Session } from '../engine/session.js';
import { IDLE_MODES, type MODULES, type JobSpec, type Policy } from '../model/policy.js';
import type { InputFile } from '../policy/parse/source-doc.js';
import { MODES, pick, POD_SHAPES } from '../verify/fill-cluster.js';
import { checkPromise } from '../verify/check-promise.js';

/** One side of a comparison: an opened policy. */
export interface Side {
  label: string;
  session: Session;
  files: InputFile[];
}

/** What each side answered, in the few fields a change is judged on. */
export interface Outcome {
  decision: string;
  standing: string | null;
  victims: string[];
  lostGpuHours: number;
  /** The rules (and their policy lines) that decided it: victims' rules, else the first reason. */
  why: string;
}

/** One question whose answer changed. */
export interface Change {
  kind: 'whatif' | 'promise' | 'sample';
  question: string;
  /** The job asked, as `quota/workspace module prio N pods×gpu`. */
  job: string;
  /** Which of decision, standing, victims, lostGpuHours (or status, presence) changed. */
  changed: string[];
  old: Outcome | null;
  new: Outcome | null;
}

export interface DiffOptions {
  /** Generated submissions to ask (0 for none). */
  samples: number;
  seed: number;
  /** Runs per promise (each side gets the same seed). */
  promiseRuns: number;
}

export interface DiffResult {
  old: string;
  new: string;
  asked: { whatifs: number; promises: number; samples: number };
  changes: Change[];
}

/** Asks both sides every question; lists what changed. */
export async function diffPolicies(a: Side, b: Side, o: DiffOptions): Promise<DiffResult> {
  const changes: Change[] = [];
  const names = [...new Set([...a.session.policy.whatIfs.map((w) => w.name), ...b.session.policy.whatIfs.map((w) => w.name)])];
  for (const name of names) {
    const wa = a.session.policy.whatIfs.find((w) => w.name === name);
    const wb = b.session.policy.whatIfs.find((w) => w.name === name);
    const oa = wa ? outcome(await a.session.answerJob(name, wa.submit, { estimate: false })) : null;
    const ob = wb ? outcome(await b.session.answerJob(name, wb.submit, { estimate: false })) : null;
    const c = compare('whatif', name, describeJob((wb ?? wa)!.submit), oa, ob);
    if (c) changes.push(c);
  }
  const promiseNames = [...new Set([...a.session.policy.promises.map((p) => p.name), ...b.session.policy.promises.map((p) => p.name)])];
  for (const name of promiseNames) {
    const pa = a.session.policy.promises.find((p) => p.name === name);
    const pb = b.session.policy.promises.find((p) => p.name === name);
    const ra = pa && a.session.snapshot ? await checkPromise(a.session, a.files, pa, { runs: o.promiseRuns, seed: o.seed }) : undefined;
    const rb = pb && b.session.snapshot ? await checkPromise(b.session, b.files, pb, { runs: o.promiseRuns, seed: o.seed }) : undefined;
    const sa: Outcome | null = ra
      ? { decision: ra.status, standing: null, victims: [], lostGpuHours: 0, why: ra.counterexample ? `${ra.counterexample.broken.join('; ')} (${ra.source})` : ra.source }
      : null;
    const sb: Outcome | null = rb
      ? { decision: rb.status, standing: null, victims: [], lostGpuHours: 0, why: rb.counterexample ? `${rb.counterexample.broken.join('; ')} (${rb.source})` : rb.source }
      : null;
    if (!sa || !sb) changes.push({ kind: 'promise', question: name, job: '', changed: ['presence'], old: sa, new: sb });
    else if (sa.decision !== sb.decision) changes.push({ kind: 'promise', question: name, job: '', changed: ['status'], old: sa, new: sb });
  }
  const samples = sampleJobs(a.session.policy, b.session.policy, o.samples, o.seed);
  if (a.session.snapshot && b.session.snapshot) {
    for (const [i, job] of samples.entries()) {
      const question = `sample-${i + 1}`;
      const c = compare(
        'sample',
        question,
        describeJob(job),
        outcome(await a.session.answerJob(question, job, { estimate: false })),
        outcome(await b.session.answerJob(question, job, { estimate: false })),
      );
      if (c) changes.push(c);
    }
  }
  return { old: a.label, new: b.label, asked: { whatifs: names.length, promises: promiseNames.length, samples: a.session.snapshot && b.session.snapshot ? samples.length : 0 }, changes };
}

/** Reasons that name a quota's ceiling (SEMANTICS 3): cited first, so a change a `max` made shows the max. */
const CEILING_CODES: ReadonlySet<string> = new Set(['quota/over-max', 'quota/never-fits-max', 'preempt/over-max']);

function outcome(a: Answer): Outcome {
  const cited = a.victims.length
    ? [...new Set(a.victims.map((v) => `${v.rule} (${v.source})`))].join('; ')
    : ((a.reasons.find((r) => CEILING_CODES.has(r.code)) ?? a.reasons.find((r) => /:\d+:\d+/.test(r.message)) ?? a.reasons[0])?.message ?? '');
  return {
    decision: a.decision,
    standing: a.standing,
    victims: a.victims.map((v) => v.job).sort(),
    lostGpuHours: a.lostGpuHours,
    why: cited,
  };
}

function compare(kind: Change['kind'], question: string, job: string, a: Outcome | null, b: Outcome | null): Change | undefined {
  if (!a || !b) return { kind, question, job, changed: ['presence'], old: a, new: b };
  const changed: string[] = [];
  if (a.decision !== b.decision) changed.push('decision');
  if (a.standing !== b.standing) changed.push('standing');
  if (a.victims.join('\u0000') !== b.victims.join('\u0000')) changed.push('victims');
  if (a.lostGpuHours !== b.lostGpuHours) changed.push('lostGpuHours');
  return changed.length ? { kind, question, job, changed, old: a, new: b } : undefined;
}

function describeJob(j: JobSpec): string {
  return `${j.quota}/${j.workspace} ${j.module} p${j.priority} ${j.pods}×${j.resources.gpu}${j.idleResources === 'none' ? '' : ` idle:${j.idleResources}`}`;
}

/**
 * `count` submissions drawn with fast-check from `seed` over what both policies know:
 * a quota of both, a workspace associated with it on both sides, one of its modules,
 * any priority, the pod shapes and idle modes of the testing generators.
 */
export function sampleJobs(a: Policy, b: Policy, count: number, seed: number): JobSpec[] {
  const pairs: Array<{ quota: string; workspace: string; modules: readonly string[] }> = [];
  for (const wa of a.workspaces) {
    const wb = b.workspaces.find((w) => w.name === wa.name);
    if (!wb) continue;
    for (const q of wa.quotas) {
      if (!wb.quotas.includes(q)) continue;
      const modules = wa.modules.filter((m) => wb.modules.includes(m));
      if (modules.length) pairs.push({ quota: q, workspace: wa.name, modules });
    }
  }
  if (pairs.length === 0 || count <= 0) return [];
  const running = new Set([...(a.cluster?.jobs ?? []), ...(b.cluster?.jobs ?? [])].map((j) => j.name));
  const arb = fc.record({ pair: fc.nat(), module: fc.nat(), priority: fc.integer({ min: 1, max: 9 }), pods: fc.integer({ min: 1, max: 4 }), shape: fc.nat(), mode: fc.nat() });
  return fc.sample(arb, { seed, numRuns: count }).map((r, i) => {
    const p = pick(pairs, r.pair);
    let name = `sample-${i + 1}`;
    while (running.has(name)) name = `${name}'`;
    const mode = pick(MODES, r.mode);
    return {
      name,
      workspace: p.workspace,
      quota: p.quota,
      module: pick(p.modules, r.module) as (typeof MODULES)[number],
      priority: r.priority,
      pods: r.pods,
      resources: { gpu: pick(POD_SHAPES, r.shape) },
      idleResources: (IDLE_MODES as readonly string[]).includes(mode) ? mode : 'none',
      src: { file: '--sample', line: 0, column: 0, path: `sample ${i + 1} of seed ${seed}` },
    };
  });
}
