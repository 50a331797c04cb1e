/**
 * Metamorphic properties: change the input in a way whose effect on the answer is known,
 * and check the answer moves (or stays) accordingly. Each works on the generated
 * scenario's documents, so a failure prints both runnable YAML files.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Answer } from '../../src/engine/answer.js';
import { findCandidates } from '../../src/engine/preemption-problem.js';
import { overruns, totalRequest } from '../../src/engine/usage.js';
import { printable, scenarioArbitrary, scenarioYaml, type Doc, type Scenario } from '../../src/testing/index.js';
import { openSession } from '../helpers/session.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 150);

async function answer(s: Scenario): Promise<Answer> {
  const session = openSession([{ path: 'scenario.yaml', text: scenarioYaml(s) }]);
  const w = session.policy.whatIfs[0]!;
  return session.answerJob(w.name, w.submit);
}

/** A deep copy of the scenario with `edit` applied to its Cluster (or WhatIf) spec. */
function edited(s: Scenario, edit: (cluster: Doc, submit: Doc) => void): Scenario {
  const docs = structuredClone(s.docs);
  const cluster = docs.find((d) => d.kind === 'Cluster')!.spec as Doc;
  const submit = (docs.find((d) => d.kind === 'WhatIf')!.spec as Doc).submit as Doc;
  edit(cluster, submit);
  return printable({ docs, query: s.query });
}

describe('metamorphic properties', () => {
  it('never turns admit into wait when a free node is added', async () => {
    let admitted = 0;
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary(), fc.constantFrom(1, 2, 4, 8), async (s, gpus) => {
        const before = await answer(s);
        if (before.decision !== 'admit') return;
        admitted++;
        const after = await answer(edited(s, (c) => (c.nodes as Doc[]).push({ name: 'extra-node', gpus, pool: 'pool' })));
        expect(after.decision).toBe('admit');
      }),
      { numRuns: RUNS },
    );
    // Not vacuous: measured 26-44 of 150 runs admit before the node is added.
    expect(admitted).toBeGreaterThanOrEqual(Math.ceil(RUNS / 8));
  });

  it("never shrinks the eligible victims when the preemptor's priority rises (highPriority ranges reaching 9)", async () => {
    const runs = Math.ceil(RUNS / 3);
    let compared = 0;
    let grew = 0;
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary({ flavours: ['full', 'plain', 'preemptible', 'preemptible'] }), async (s) => {
        const session = openSession([{ path: 's.yaml', text: scenarioYaml(s) }]);
        // A highPriority range that stops below 9 excludes the most urgent jobs on purpose
        // (the linter warns, policy/high-priority-gap); monotonicity is promised otherwise.
        if (session.policy.quotas.some((q) => q.selfPreemption && q.selfPreemption.highPriority.hi < 9)) return;
        compared++;
        const job = session.policy.whatIfs[0]!.submit;
        const snap = session.snapshot!;
        const q = snap.tree.indexOf(job.quota);
        const eligible = async (priority: number) => {
          const over = overruns(snap.tree, snap.usage, q, totalRequest(job), 'in-quota');
          const table = await session.tables.tableFor(q, priority);
          return new Set(findCandidates(snap, table, snap.poolIndexOf(job.quota), over).candidates.map((c) => c.job));
        };
        let changes = false;
        for (let p = 1; p < 9; p++) {
          const low = await eligible(p);
          const high = await eligible(p + 1);
          for (const j of low) expect(high.has(j), `job ${snap.job(j).name} eligible at priority ${p} but not ${p + 1}`).toBe(true);
          if (high.size > low.size) changes = true;
        }
        if (changes) grew++;
      }),
      { numRuns: runs },
    );
    // Not vacuous: measured 33-41 of 50 runs compared, and in 15-18 of them a higher
    // priority made more jobs eligible (the case where a shrink could show).
    expect(compared).toBeGreaterThanOrEqual(Math.ceil(runs / 2));
    expect(grew).toBeGreaterThanOrEqual(Math.ceil(runs / 8));
  });

  it('never makes an in-quota job wait because an idle job was removed', async () => {
    let removed = 0;
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary({ flavours: ['all-idle', 'full', 'plain', 'idle-fills'] }), fc.nat(), async (s, pick) => {
        const before = await answer(s);
        if (before.standing !== 'in-quota') return;
        const jobs = ((s.docs.find((d) => d.kind === 'Cluster')!.spec as Doc).jobs as Doc[]) ?? [];
        const idle = jobs.filter((j) => j.idleResources === 'only' || j.standing === 'idle');
        if (idle.length === 0) return;
        removed++;
        const gone = idle[pick % idle.length]!.name;
        const after = await answer(edited(s, (c) => (c.jobs = (c.jobs as Doc[]).filter((j) => j.name !== gone))));
        expect(after.decision).not.toBe('wait');
        expect(after.standing).toBe('in-quota');
      }),
      { numRuns: RUNS },
    );
    // Not vacuous: measured 47-50 of 150 runs answer in quota with an idle job to remove.
    expect(removed).toBeGreaterThanOrEqual(Math.ceil(RUNS / 5));
  });

  it('gives the same decision and victims when nodes are renamed and reordered and jobs reordered and renamed in order', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary(), async (s) => {
        const before = await answer(s);
        const nodeName = (n: string) => `renamed-${n.split('').reverse().join('')}`;
        const after = await answer(
          edited(s, (c) => {
            c.nodes = (c.nodes as Doc[]).map((n) => ({ ...n, name: nodeName(n.name as string) })).reverse();
            // Prefixing keeps the names' sort order, which is the last tie-break of SEMANTICS 5.3.
            c.jobs = ((c.jobs as Doc[]) ?? [])
              .map((j) => ({ ...j, name: `r-${j.name as string}`, placement: (j.placement as Doc[]).map((p) => ({ ...p, node: nodeName(p.node as string) })) }))
              .reverse();
          }),
        );
        expect({ decision: after.decision, standing: after.standing, victims: after.victims.map((v) => v.job) }).toEqual({
          decision: before.decision,
          standing: before.standing,
          victims: before.victims.map((v) => `r-${v.job}`),
        });
      }),
      { numRuns: RUNS },
    );
  });
});
