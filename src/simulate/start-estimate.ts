/**
 * "When will it start?" (issue 9 item 7, docs/cli.md "Start estimates"): for a job the
 * engine answers `wait`, the simulator (simulator.ts — the same run `quotient simulate`
 * makes, never a copy of its logic) is started from the Cluster snapshot with the job
 * submitted at the snapshot time and no other arrivals. Running jobs end at their expected
 * end (`expectedEnd`, or `startedAt + duration`); a job that gives none runs on. The
 * snapshot's queued jobs wait from the start (SEMANTICS 8: the queue is replayed
 * forward): the jobs ahead start first when they can, and a queued job that started ends
 * after its `duration`. The first time the simulator starts the job is the estimate; its
 * place in its quota's queue at the snapshot time (engine/queue-serve.ts, as the answer
 * gives it) is the queue position. Every decision on the way is the engine call the
 * what-if makes, on the cluster as it is then.
 *
 * Before the job starts nothing else can change the cluster but those ends and the
 * queued jobs' starts (nothing else arrives), so a job not started once the last of them
 * can have happened — the last expected end, plus every queued job's duration — never
 * starts: the run stops there and the answer is "no estimate", naming the jobs assumed
 * to run on.
 */
import { endOf, type StartEstimate } from '../engine/estimate.js';
import type { JobSpec, Policy, QueuedJob, QueueStrategy, RunningJob } from '../model/policy.js';
import { queuePlace } from '../engine/queue-serve.js';
import { hiddenLabel, type Viewer } from '../engine/visibility.js';
import { r4 } from './report.js';
import { simulate, type SimStart } from './simulator.js';
import { queuedAtStart, runningAtStart } from './snapshot-start.js';

const HOUR = 3_600_000;

/**
 * Simulates forward from the snapshot with `job` submitted at its time and nothing else
 * arriving; the estimate of when it starts. `viewer` names the jobs the asker may not see
 * only by their workspace (SEMANTICS 10).
 */
export async function estimateStart(policy: Policy, job: JobSpec, options: { backend: 'wasm' | 'reference'; viewer?: Viewer }): Promise<StartEstimate> {
  const cluster = policy.cluster;
  if (!cluster) throw new Error('estimateStart: the policy has no Cluster snapshot');
  // A job without an expected end ends by its quota's runtimeDefault when one applies (assumed, and said so).
  const assumed: StartEstimate['assumedEnds'] = [];
  const withEnds = cluster.jobs.map((j) => {
    const e = endOf(policy, j);
    if (!e?.assumed) return j;
    assumed.push({ job: j.name, quota: j.quota, end: new Date(e.end).toISOString(), runtimeDefault: `${e.assumed.quota}'s ${formatHours(e.assumed.ms)}` });
    return { ...j, expectedEnd: e.end };
  });
  const running = runningAtStart({ ...cluster, jobs: withEnds });
  const queued = queuedAtStart(cluster);
  // Every end happens by then: the last running job's, then each queued job's, one after another at worst.
  const lastEnd = running.reduce((m, j) => Math.max(m, j.expectedEnd ?? 0), 0) + queued.reduce((s, j) => s + (Number.isFinite(j.duration) ? j.duration : 0), 0);
  const byName = new Map<string, { name: string; workspace: string; quota: string }>([...cluster.jobs, ...(cluster.queue ?? [])].map((j) => [j.name, j]));
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
  await simulate(
    {
      policy,
      label: 'whatif',
      nodes: cluster.nodes,
      // The job's own running time does not matter to when it starts; the run stops at the last expected end.
      workload: { source: 'whatif', synthetic: false, jobs: [{ spec: asked, submit: 0, duration: 1 }], rejected: [], notes: [] },
      market: [],
      running,
      ...(queued.length ? { queued } : {}),
    },
    {
      seed: 1,
      backend: options.backend,
      until: lastEnd,
      sampleEvery: Math.max(HOUR, lastEnd),
      onStart: (s) => {
        if (s.job === runName && !started) started = s;
      },
    },
  );
  // Its place at the snapshot time, as the answer gives it (SEMANTICS 8): the engine's one home of it.
  const place = queuePlace(policy, job);
  const strategy = place?.strategy ?? policy.quotas.find((q) => q.name === job.quota)?.queueStrategy ?? 'fifo';
  const forever = withEnds.filter((j) => j.expectedEnd === undefined);
  const withoutExpectedEnd = forever.map((j) => label(j.name));
  const assumedEnds = assumed.map((a) => ({ ...a, job: label(a.job) }));
  const assumptions = assume(cluster.jobs, forever, withoutExpectedEnd, job.quota, strategy, cluster.queue ?? [], place?.position ?? 1, assumedEnds);
  const base = { queuePosition: place?.position ?? 1, queueStrategy: strategy, withoutExpectedEnd, assumedEnds, assumptions };
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
  const ended = queued.length ? 'the running jobs with an expected end (and the queued ones with a duration) have ended' : 'the running jobs with an expected end have ended';
  const reason =
    forever.length > 0
      ? `the job does not start once ${ended}, and ${forever.length} running job(s) give none (${listed(withoutExpectedEnd)}): they are assumed to run on, so nothing frees the room it waits for`
      : `the job does not start even once ${queued.length ? 'every running job has ended at its expected end and every queued job that starts has run its duration' : 'every running job has ended at its expected end'}${assumed.length ? ` (${assumed.length} of those ends assumed by runtimeDefault)` : ''}`;
  return { start: null, inHours: null, ...base, standing: null, victims: [], reason };
}

/** The estimate's assumptions, in the order they matter. */
function assume(
  jobs: RunningJob[],
  forever: RunningJob[],
  foreverLabels: string[],
  quota: string,
  strategy: QueueStrategy,
  queue: readonly QueuedJob[],
  position: number,
  assumed: StartEstimate['assumedEnds'],
): string[] {
  const ending = jobs.length - forever.length - assumed.length;
  const waiting =
    queue.length === 0
      ? `${quota}'s queue strategy is ${strategy}; the snapshot lists running jobs only, so no job waits ahead of this one at the snapshot time`
      : `${quota}'s queue strategy is ${strategy}; ${queue.length} queued job(s) wait at the snapshot time, ${position - 1} of them ahead of this one in ${quota}'s queue: they are served first in their queues' order (the heads of different queues by submission time) and start when they can; a queued job that starts runs its duration (${queue.filter((j) => j.duration === undefined).length} give none and run on)`;
  return [
    'no other job is submitted after this one (no new arrivals)',
    `running jobs end at their expected end (expectedEnd, or startedAt + duration), not earlier: ${ending} of the ${jobs.length} running job(s) give one`,
    ...(assumed.length > 0
      ? [
          `ASSUMED: ${assumed.length} running job(s) give no expected end and are assumed to end by their quota's runtimeDefault (startedAt + the default, or the snapshot time when they have run longer): ${listed(assumed.map((a) => `${a.job} at ${a.end} (${a.runtimeDefault})`))}`,
        ]
      : []),
    ...(forever.length > 0 ? [`the ${forever.length} running job(s) without an expected end run on: ${listed(foreverLabels)}`] : []),
    waiting,
    "every decision on the way is the one this what-if makes (admission, preemption by the policy's rules, reclaim of idle capacity, placement), taken on the cluster as it is then (quotient simulate)",
  ];
}

/** A runtimeDefault as people read it: `8 h`, `1.5 h`. */
function formatHours(ms: number): string {
  return `${r4(ms / HOUR)} h runtimeDefault`;
}

/** At most five names, then how many more. */
function listed(names: string[]): string {
  return names.length <= 5 ? names.join(', ') : `${names.slice(0, 5).join(', ')} and ${names.length - 5} more`;
}
