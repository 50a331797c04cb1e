/**
 * Start estimates against the simulator and against arithmetic done without it
 * (issue 9 item 7; simulate/start-estimate.ts). On random small snapshots of the spot
 * example's tree (TeamA: selfPreemption 7-9 over 1-3 [DLC], intelligent queue; TeamB:
 * round-robin; 4 nodes x 8 GPUs) whose running jobs mostly give an expected end, for a
 * job the engine answers `wait`:
 *
 *   - the estimate equals the start the simulator gives the job when it is submitted at
 *     the snapshot time with no other arrivals and run to the end (no --until, its own
 *     running time): by construction, since the estimate is that run, stopped at the
 *     last expected end — which checks that stopping there loses no start;
 *   - oracles that do not use the simulator: the start is a running job's expected end
 *     (nothing else changes the cluster before the job starts); at that time, the GPUs of
 *     the pool that the snapshot's jobs still running leave free, plus the victims' GPUs,
 *     cover the job; in quota, its quota's in-quota usage then (without the victims) plus
 *     the job fits the guarantee; no estimate only when some running job gives no end.
 *
 * QUOTIENT_PROPERTY_RUNS sets the number of snapshots (default 200; only the `wait` cases, about one in six, are checked).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Snapshot } from '../../src/engine/snapshot.js';
import { answerWhatIf } from '../../src/engine/whatif.js';
import { createKernel } from '../../src/kernel/create-kernel.js';
import type { Cluster, JobSpec, Policy, RunningJob } from '../../src/model/policy.js';
import { QuotaTree } from '../../src/model/quota-tree.js';
import { loadPolicy } from '../../src/policy/load-policy.js';
import { compileRules } from '../../src/rules/compile-rules.js';
import { EligibilityTables } from '../../src/rules/eligibility-table.js';
import { simulate } from '../../src/simulate/simulator.js';
import { runningAtStart } from '../../src/simulate/snapshot-start.js';
import { estimateStart } from '../../src/simulate/start-estimate.js';
import { spotRunningJob } from '../helpers/spot-example.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 200);
const HOUR = 3_600_000;
const AT = Date.parse('2026-11-20T12:00:00Z');
const src = { file: 'gen', line: 1, column: 1, path: '' };

const base = loadPolicy([{ path: 'quotas.yaml', text: readFileSync('policies/spot-market/quotas.yaml', 'utf8') }], { now: AT }).policy!;
const nodes = Array.from({ length: 4 }, (_, i) => ({ name: `lj-${i}`, gpus: 8, pool: 'lingjun-pool', src }));

/** One running job: GPUs on its node, priority, idle (the other team's `only` job), end in half hours (or none), age. */
const jobArb = fc.record({
  gpu: fc.constantFrom(2, 4, 8),
  priority: fc.integer({ min: 1, max: 9 }),
  idle: fc.boolean(),
  endHalfHours: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined, freq: 4 }),
  ageMin: fc.integer({ min: 0, max: 240 }),
});
const submitArb = fc.record({ teamA: fc.boolean(), priority: fc.integer({ min: 1, max: 9 }), pods: fc.integer({ min: 1, max: 2 }), gpu: fc.constantFrom(2, 4, 8) });
type JobRow = typeof jobArb extends fc.Arbitrary<infer T> ? T : never;
type SubmitRow = typeof submitArb extends fc.Arbitrary<infer T> ? T : never;

/** Jobs packed onto the nodes in order, GPUs from index 0; nodes 0-1 are TeamA's, 2-3 TeamB's (within each 16-GPU guarantee). */
function toCluster(perNode: JobRow[][]): Cluster {
  const jobs: RunningJob[] = [];
  perNode.forEach((list, n) => {
    let used = 0;
    list.forEach((r, k) => {
      if (used + r.gpu > 8) return;
      const ownA = n < 2;
      const a = r.idle ? !ownA : ownA;
      const job = spotRunningJob({ name: `r${n}-${k}`, teamA: a, priority: r.priority, gpu: r.gpu, idle: r.idle, startedAt: AT - r.ageMin * 60_000, node: n, firstGpu: used });
      if (r.endHalfHours !== undefined) job.expectedEnd = AT + (r.endHalfHours * HOUR) / 2;
      used += r.gpu;
      jobs.push(job);
    });
  });
  return { name: 'gen', at: AT, nodes, jobs, src };
}

async function answer(policy: Policy, job: JobSpec) {
  const tree = new QuotaTree(policy.quotas);
  const { snapshot } = Snapshot.build(policy, policy.cluster!, createKernel('wasm'), tree);
  return answerWhatIf({ snapshot: snapshot!, tables: new EligibilityTables(compileRules(policy), tree) }, 'q', job);
}

/** A case with no estimate, run first: every GPU held by jobs that give no expected end, and a job that must wait for them. */
const noEnd: [JobRow[][], SubmitRow] = [Array.from({ length: 4 }, () => [{ gpu: 8, priority: 9, idle: false, endHalfHours: undefined, ageMin: 10 }]), { teamA: true, priority: 1, pods: 1, gpu: 8 }];

describe('start estimates', () => {
  it('equal the simulator run to the end, and agree with arithmetic done without it', async () => {
    let estimated = 0;
    let none = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(jobArb, { minLength: 1, maxLength: 3 }), { minLength: 4, maxLength: 4 }), submitArb, async (perNode, s) => {
        const cluster = toCluster(perNode);
        const policy: Policy = { ...base, cluster };
        const job: JobSpec = {
          name: 'asked',
          workspace: s.teamA ? 'team-a' : 'team-b',
          quota: s.teamA ? 'TeamA' : 'TeamB',
          module: 'DLC',
          priority: s.priority,
          pods: s.pods,
          resources: { gpu: s.gpu },
          idleResources: 'none',
          src,
        };
        if ((await answer(policy, job)).decision !== 'wait') return;
        const est = await estimateStart(policy, job, { backend: 'wasm' });

        // The simulator, run to the end with the job's own running time.
        let direct: { t: number; victims: string[] } | undefined;
        await simulate(
          {
            policy,
            label: 'direct',
            nodes,
            workload: { source: 'direct', synthetic: false, jobs: [{ spec: job, submit: 0, duration: 2 * HOUR }], rejected: [], notes: [] },
            market: [],
            running: runningAtStart(cluster),
          },
          { seed: 1, backend: 'wasm', onStart: (x) => void (x.job === 'asked' && !direct && (direct = x)) },
        );
        expect(est.inHours).toBe(direct === undefined ? null : Math.round((direct.t / HOUR) * 1e4) / 1e4);
        expect(est.queuePosition).toBe(1);
        if (est.start === null) {
          none++;
          expect(est.withoutExpectedEnd.length).toBeGreaterThan(0);
          return;
        }
        estimated++;
        const t = Date.parse(est.start);
        expect(t).toBeGreaterThan(AT);
        expect(cluster.jobs.some((j) => j.expectedEnd === t)).toBe(true);
        // Before the job starts only the snapshot's ends change the cluster.
        const still = cluster.jobs.filter((j) => j.expectedEnd === undefined || j.expectedEnd > t);
        const victims = new Set(est.victims);
        expect([...victims].every((v) => still.some((j) => j.name === v))).toBe(true);
        const need = job.pods * job.resources.gpu;
        const held = still.filter((j) => !victims.has(j.name)).reduce((x, j) => x + j.resources.gpu, 0);
        expect(32 - held).toBeGreaterThanOrEqual(need);
        if (est.standing === 'in-quota') {
          const inQuota = still.filter((j) => !victims.has(j.name) && j.quota === job.quota && j.standing === 'in-quota').reduce((x, j) => x + j.resources.gpu, 0);
          expect(inQuota + need).toBeLessThanOrEqual(16);
        }
      }),
      { numRuns: RUNS, examples: [noEnd] },
    );
    // Not vacuous: only the `wait` cases reach the checks (measured 28-41 of 200 runs); both
    // outcomes occur (22-34 estimates, 6-7 without one, and the example above has none).
    expect(estimated + none).toBeGreaterThanOrEqual(Math.ceil(RUNS / 10));
    expect(estimated).toBeGreaterThanOrEqual(Math.ceil(RUNS / 20));
    expect(none).toBeGreaterThanOrEqual(1);
  }, 300_000);
});
