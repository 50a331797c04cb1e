/**
 * One request, one answer (docs/architecture.md): the same job gets the same answer
 * whichever way it reaches the engine. On generated scenarios, the scenario's WhatIf is
 * asked
 *   - as the CLI and the server ask it: `Session.ask({ submit })`, the job as plain values;
 *   - as the CLI asks a WhatIf document: `Session.ask({ query })`;
 *   - as `quotient test` asks a generated state: `answerJob` on a snapshot built apart
 *     (verify/check-promise.ts);
 *   - as the simulator asks it: the job submitted at the snapshot's time and run for an
 *     instant (simulate/simulator.ts), which starts it exactly when the answer admits or
 *     preempts, with the answer's standing and victims.
 * The three answers are deep-equal (but for the query's name), and the simulator agrees.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerJob } from '../../src/engine/pipeline.js';
import { Session } from '../../src/engine/session.js';
import { Snapshot } from '../../src/engine/snapshot.js';
import { createKernel } from '../../src/kernel/create-kernel.js';
import { jobSpecDoc } from '../../src/policy/write/to-docs.js';
import { simulate, type SimStart } from '../../src/simulate/simulator.js';
import { runningAtStart } from '../../src/simulate/snapshot-start.js';
import { scenarioArbitrary, scenarioYaml } from '../../src/testing/index.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 60);
const NOW = Date.parse('2026-11-20T12:00:00Z');

describe('one pipeline: the same request gets the same answer whoever asks', () => {
  it('ask by values = ask by WhatIf = a promise state = the simulator', async () => {
    const reached = { answered: 0, started: 0, waited: 0 };
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary(), async (s) => {
        const { session } = Session.open([{ path: 'scenario.yaml', text: scenarioYaml(s) }], { now: NOW });
        const w = session!.policy.whatIfs.find((x) => x.name === s.query)!;
        const byQuery = (await session!.ask({ query: w.name })).answer!;
        const byValues = await session!.ask({ submit: jobSpecDoc(w.submit) }, { query: w.name });
        expect(byValues.findings).toEqual([]);
        expect(byValues.answer).toStrictEqual(byQuery);

        const policy = session!.policy;
        const built = Snapshot.build(policy, policy.cluster!, createKernel('wasm'));
        const byPromise = await answerJob({ snapshot: built.snapshot!, tables: session!.tables }, w.name, w.submit);
        expect(byPromise).toStrictEqual(byQuery);
        reached.answered++;

        const starts: SimStart[] = [];
        await simulate(
          {
            policy,
            label: 'one-pipeline',
            nodes: policy.cluster!.nodes,
            workload: { source: 'one-pipeline', synthetic: false, jobs: [{ spec: w.submit, submit: 0, duration: 3_600_000 }], rejected: [], notes: [] },
            market: [],
            running: runningAtStart(policy.cluster!),
          },
          { seed: 1, backend: 'wasm', until: 1, onStart: (st) => starts.push(st) },
        );
        const started = starts.find((st) => st.job === w.submit.name && st.t === 0);
        if (byQuery.decision === 'admit' || byQuery.decision === 'preempt') {
          reached.started++;
          expect(started).toEqual({ job: w.submit.name, t: 0, standing: byQuery.standing, victims: byQuery.victims.map((v) => v.job) });
        } else {
          reached.waited++;
          expect(started).toBeUndefined();
        }
      }),
      { numRuns: RUNS },
    );
    // Both sides of the simulator's comparison were reached, each in a fair share of runs.
    expect(reached.answered).toBe(RUNS);
    expect(reached.started).toBeGreaterThanOrEqual(RUNS / 5);
    expect(reached.waited).toBeGreaterThanOrEqual(RUNS / 10);
  });
});
