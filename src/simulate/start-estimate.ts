/**
 * "When will it start?" (issue 9 item 7, docs/cli.md "Start estimates"): for a job the
 * engine answers `wait`, the simulator (simulator.ts — the same run `quotient simulate`
 * makes, never a copy of its logic) is started from the Cluster snapshot with the job
 * submitted at the snapshot time and no other arrivals. Running jobs end at their expected
 * end (`expectedEnd`, or `startedAt + duration`); a job that gives none runs on. The first
 * time the simulator starts the job is the estimate; its place in its quota's queue at
 * the snapshot time is the queue position. Every decision on the way is the engine call
 * the what-if makes, on the cluster as it is then.
 *
 * Before the job starts nothing else can change the cluster but those ends (nothing else
 * arrives, and no other job waits), so a job not started once the last expected end has
 * passed never starts: the run stops there and the answer is "no estimate", naming the
 * jobs assumed to run on.
 */
import type { StartEstimate } from '../engine/estimate.js';
import type { JobSpec, Policy, QueueStrategy, RunningJob } from '../model/policy.js';
import { hiddenLabel, type Viewer } from '../engine/visibility.js';
import { r4 } from './report.js';
import { simulate, type SimStart } from './simulator.js';
import { runningAtStart } from './snapshot-start.js';

const HOUR = 3_600_000;

/**
 * Simulates forward from the snapshot with `job` submitted at its time and nothing else
 * arriving; the estimate of when it starts. `viewer` names the jobs the asker may not see
 * only by their workspace (SEMANTICS 10).
 */
export async function estimateStart(policy: Policy, job: JobSpec, options: { backend: 'wasm' | 'reference'; viewer?: Viewer }): Promise<StartEstimate> {
  const cluster = policy.cluster;
  if (!cluster) throw new Error('estimateStart: the policy has no Cluster snapshot');
  const running = runningAtStart(cluster);
  const lastEnd = running.reduce((m, j) => Math.max(m, j.expectedEnd ?? 0), 0);
  const byName = new Map(cluster.jobs.map((j) => [j.name, j]));
  const label = (name: string): string => {
    const j = byName.get(name);
    return j && options.viewer && !options.viewer.canSee(j) ? hiddenLabel(j) : name;
  };
  // The job may carry the name of a running job its asker may not see (engine/request.ts
  // lets it): in the run it goes by a name no running job has, so the two are never confused.
  let runName = job.name;
  while (byName.has(runName)) runName = `${runName}#whatif`;
  const asked = runName === job.name ? job : { ...job, name: runName };
  let started: SimStart | undefined;
  let position = -1;
  await simulate(
    {
      policy,
      label: 'whatif',
      nodes: cluster.nodes,
      // The job's own running time does not matter to when it starts; the run stops at the last expected end.
      workload: { source: 'whatif', synthetic: false, jobs: [{ spec: asked, submit: 0, duration: 1 }], rejected: [], notes: [] },
      market: [],
      running,
    },
    {
      seed: 1,
      backend: options.backend,
      until: lastEnd,
      sampleEvery: Math.max(HOUR, lastEnd),
      onStart: (s) => {
        if (s.job === runName && !started) started = s;
      },
      onStep: (view) => {
        // At the snapshot time, after the first pass: where the job waits in its queue.
        if (view.t === 0) position = view.queuePosition(runName);
      },
    },
  );
  const quota = policy.quotas.find((q) => q.name === job.quota);
  const strategy = quota?.queueStrategy ?? 'fifo';
  const forever = cluster.jobs.filter((j) => j.expectedEnd === undefined);
  const withoutExpectedEnd = forever.map((j) => label(j.name));
  const assumptions = assume(cluster.jobs, forever, withoutExpectedEnd, job.quota, strategy);
  const base = { queuePosition: position < 0 ? 1 : position + 1, queueStrategy: strategy, withoutExpectedEnd, assumptions };
  if (started) {
    return {
      start: new Date(cluster.at + started.t).toISOString(),
      inHours: r4(started.t / HOUR),
      ...base,
      standing: started.standing,
      victims: started.victims.map(label),
      reason: null,
    };
  }
  const reason =
    forever.length > 0
      ? `the job does not start once the running jobs with an expected end have ended, and ${forever.length} running job(s) give none (${listed(withoutExpectedEnd)}): they are assumed to run on, so nothing frees the room it waits for`
      : 'the job does not start even once every running job has ended at its expected end';
  return { start: null, inHours: null, ...base, standing: null, victims: [], reason };
}

/** The estimate's assumptions, in the order they matter. */
function assume(jobs: RunningJob[], forever: RunningJob[], foreverLabels: string[], quota: string, strategy: QueueStrategy): string[] {
  const ending = jobs.length - forever.length;
  return [
    'no other job is submitted after this one (no new arrivals)',
    `running jobs end at their expected end (expectedEnd, or startedAt + duration), not earlier: ${ending} of the ${jobs.length} running job(s) give one`,
    ...(forever.length > 0 ? [`the ${forever.length} running job(s) without an expected end run on: ${listed(foreverLabels)}`] : []),
    `${quota}'s queue strategy is ${strategy}; the snapshot lists running jobs only, so no job waits ahead of this one at the snapshot time`,
    "every decision on the way is the one this what-if makes (admission, preemption by the policy's rules, reclaim of idle capacity, placement), taken on the cluster as it is then (quotient simulate)",
  ];
}

/** At most five names, then how many more. */
function listed(names: string[]): string {
  return names.length <= 5 ? names.join(', ') : `${names.slice(0, 5).join(', ')} and ${names.length - 5} more`;
}
