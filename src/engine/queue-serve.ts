/**
 * Queues at one instant (SEMANTICS 8): before a what-if's job J is answered, the jobs the
 * snapshot lists as waiting are served. J enters its quota's queue as the strategy orders
 * it (by priority, then submission time; J is submitted at the snapshot time, after every
 * queued job). Passes over every queue (queue-order.ts `servePass`, the simulator's pass)
 * try the jobs ahead of J in the strategy's order, the heads of different queues by
 * submission time, so every other quota's jobs come before J; each that can run (`admit`
 * or `preempt`, as the pipeline answers it) is taken as started — its victims
 * preempted, the job placed where the answer put it — and passes repeat while one starts
 * or leaves (a `reject` leaves its queue). J's turn comes, or its queue's pass ends at a
 * blocking job that cannot run (fifo's head, balance's window's last, intelligent's FIFO
 * class): that job holds J.
 *
 * The state after serving depends only on J's quota and its place in the strategy's
 * order (everything ahead of it is fixed by those), so it is made once per snapshot state
 * and kept (a few of them, `SERVED_KEPT`). Until a queued job starts, it is the snapshot
 * itself; the first start forks it: one Snapshot.build of the running jobs on a kernel of
 * its own (engine/live-snapshot.ts then starts and preempts job by job), never the
 * session's, which no answer changes.
 */
import { createKernel } from '../kernel/create-kernel.js';
import type { PodPlacement } from '../kernel/types.js';
import type { Cluster, JobSpec, Policy, QueuedJob, QueueStrategy, RunningJob, Standing } from '../model/policy.js';
import { requestKey } from './answer-memo.js';
import type { EngineContext } from './answer-context.js';
import type { Answer } from './answer.js';
import { DenseKernel } from './dense-kernel.js';
import { LiveSnapshot } from './live-snapshot.js';
import { JobQueue, servePass, type QueueEntry } from './queue-order.js';
import { podsGpus, Snapshot } from './snapshot.js';
import { answerWhatIf } from './whatif.js';

/** A job waiting at the instant: one of the snapshot's queued jobs, or the asked job (`queued` undefined). */
interface Waiting extends QueueEntry {
  job: JobSpec;
  queued?: QueuedJob;
}

/** The asked job's place at the snapshot time. */
export interface QueuePlace {
  /** Its quota's index (the policy's quota order, the quota tree's). */
  quota: number;
  /** 1 + the queued jobs of its quota the strategy orders before it. */
  position: number;
  strategy: QueueStrategy;
  /** Every quota's queue with its queued jobs, the asked job's with it too. */
  queues: Array<JobQueue<Waiting> | undefined>;
  asked: Waiting;
}

/** A queued job taken as started before the asked job. */
export interface StartedQueued {
  job: QueuedJob;
  decision: 'admit' | 'preempt';
  standing: Standing;
  gpus: number;
  /** The running jobs it preempted (as the snapshot had them). */
  victims: RunningJob[];
}

/** The state the asked job is answered on, and how it came about. */
export interface Served {
  /** The snapshot itself when no queued job started, else the state after those that did (no viewer). */
  engine: EngineContext;
  started: StartedQueued[];
  /** The job ahead that holds the asked one, with its answer (no viewer) on `engine`'s state. */
  held?: { job: QueuedJob; answer: Answer };
}

/** A job's last tie-break in a queue: name order among the queued jobs; the asked job comes after all of them. */
const ASKED_ORDER = Number.MAX_SAFE_INTEGER;

/** How many served states one snapshot state keeps (each may hold a fork of the cluster). */
const SERVED_KEPT = 8;

/**
 * Where `job`, submitted at the snapshot time, enters the queues of `policy`'s snapshot;
 * undefined when the snapshot lists no queued job (then nothing is served before it).
 */
export function queuePlace(policy: Policy, job: JobSpec): QueuePlace | undefined {
  const cluster = policy.cluster;
  if (!cluster?.queue?.length) return undefined;
  const index = new Map(policy.quotas.map((q, i) => [q.name, i]));
  const names = cluster.queue.map((j) => j.name).sort();
  const order = new Map(names.map((n, i) => [n, i]));
  const queues: Array<JobQueue<Waiting> | undefined> = policy.quotas.map(() => undefined);
  const queueOf = (quota: string): JobQueue<Waiting> => {
    const i = index.get(quota)!; // the policy checked every queued job's quota, and the request the asked one's
    const q = policy.quotas[i]!;
    return (queues[i] ??= new JobQueue<Waiting>(q.queueStrategy, q.queue));
  };
  for (const queued of cluster.queue)
    queueOf(queued.quota).add({ job: queued, queued, priority: queued.priority, submit: queued.submittedAt, order: order.get(queued.name)!, enqueuedAt: queued.submittedAt });
  const asked: Waiting = { job, priority: job.priority, submit: cluster.at, order: ASKED_ORDER, enqueuedAt: cluster.at };
  const own = queueOf(job.quota);
  own.add(asked);
  return { quota: index.get(job.quota)!, position: own.position(asked, cluster.at) + 1, strategy: own.strategy, queues, asked };
}

/** Served states per snapshot state, by the asked job's quota and position. */
const servedStates = new WeakMap<Snapshot, { version: number; byPlace: Map<string, Promise<Served>> }>();

/**
 * The state `place`'s job is answered on: the snapshot after serving every queued job
 * ahead of it (made once per snapshot state and place; never changes the snapshot).
 */
export function servedFor(engine: EngineContext, place: QueuePlace): Promise<Served> {
  const snap = engine.snapshot;
  let kept = servedStates.get(snap);
  if (!kept || kept.version !== snap.version) {
    kept = { version: snap.version, byPlace: new Map() };
    servedStates.set(snap, kept);
  }
  const key = `${place.quota}:${place.position}`;
  let served = kept.byPlace.get(key);
  if (!served) {
    if (kept.byPlace.size >= SERVED_KEPT) kept.byPlace.delete(kept.byPlace.keys().next().value!);
    served = serve({ snapshot: snap, tables: engine.tables }, place);
    kept.byPlace.set(key, served);
  }
  return served;
}

/** Leaves out of a queued job's answer key what decides nothing about it now (answer-memo.ts `requestKey`). */
const NOT_DECIDING: ReadonlySet<string> = new Set(['name', 'src', 'submittedAt', 'duration']);

/** Serves the queues up to the asked job (SEMANTICS 8); the module comment says how. */
async function serve(base: EngineContext, place: QueuePlace): Promise<Served> {
  const snap = base.snapshot;
  const at = snap.cluster.at;
  let fork: LiveSnapshot | undefined;
  let ctx = base;
  const started: StartedQueued[] = [];
  // Jobs of one shape get one answer on one state (the simulator's rule): keyed by the job's deciding fields and the starts so far.
  const answers = new Map<string, Answer>();
  const last = new Map<Waiting, Answer>();
  for (;;) {
    let changed = false;
    let reached = false;
    const pass = await servePass(place.queues, at, async (entry, q) => {
      if (entry === place.asked) {
        reached = true;
        return 'stop';
      }
      const key = `${started.length};${requestKey(entry.job, '', NOT_DECIDING) ?? entry.job.name}`;
      let answer = answers.get(key);
      if (!answer) {
        answer = await answerWhatIf(ctx, 'queue', entry.job);
        answers.set(key, answer);
      }
      if (answer.decision === 'admit' || answer.decision === 'preempt') {
        fork ??= forkOf(base);
        ctx = { snapshot: fork.snap, tables: base.tables };
        started.push(takeAsStarted(fork, entry.queued!, answer, at));
        place.queues[q]!.remove(entry);
        changed = true;
        return 'started';
      }
      if (answer.decision === 'reject') {
        place.queues[q]!.remove(entry);
        changed = true;
        return 'left';
      }
      last.set(entry, answer);
      return 'waits';
    });
    if (reached || pass.stopped) return { engine: ctx, started };
    // Each pass that changed nothing ends J's queue at the job that holds it (a pass that did
    // change something removed a job, so passes end).
    if (!changed) {
      const holder = pass.blocked.get(place.quota);
      return holder?.queued ? { engine: ctx, started, held: { job: holder.queued, answer: last.get(holder)! } } : { engine: ctx, started };
    }
  }
}

/**
 * The snapshot's running jobs on a kernel of their own, to start queued jobs on: one
 * Snapshot.build (every job is placed already) on a kernel of the session's backend,
 * followed job by job (DenseKernel: one addJob or removeJob per change).
 */
function forkOf(base: EngineContext): LiveSnapshot {
  const snap = base.snapshot;
  const cluster: Cluster = { name: snap.cluster.name, at: snap.cluster.at, nodes: snap.cluster.nodes, jobs: snap.jobs.slice(), src: snap.cluster.src };
  const queued = (snap.cluster.queue ?? []).map((j) => j.name);
  const built = Snapshot.build(snap.policy, cluster, new DenseKernel(createKernel(snap.kernel.backend)), snap.tree, queued);
  // The running jobs were placed when the session opened: building them again cannot fail.
  if (!built.snapshot) throw new Error(`queue: the snapshot's running jobs could not be built again (${built.findings.map((f) => f.code).join(', ')})`);
  return new LiveSnapshot(built.snapshot);
}

/** Carries out a queued job's answer on the fork: its victims preempted, then the job started where the answer placed it. */
function takeAsStarted(live: LiveSnapshot, queued: QueuedJob, answer: Answer, at: number): StartedQueued {
  const snap = live.snap;
  const victims: RunningJob[] = [];
  for (const v of answer.victims) {
    const i = snap.jobIndex.get(v.job)!; // a victim is a running job of this state
    victims.push(snap.job(i));
    live.remove(i);
  }
  const pods: PodPlacement[] = answer.placement.map((p) => ({ node: snap.nodeIndex.get(p.node)!, mask: p.gpus.reduce((m, g) => m | (1 << g), 0) >>> 0 }));
  const { submittedAt: _submitted, duration, ...spec } = queued;
  const standing = answer.standing!; // admit and preempt say how the job runs
  const job: RunningJob = Object.assign({}, spec, { standing, startedAt: at, placement: [], placedByEngine: false }, duration === undefined ? {} : { expectedEnd: at + duration });
  const index = live.start(job, pods, snap.orderOf(queued.name)!);
  return { job: queued, decision: answer.decision as StartedQueued['decision'], standing, gpus: podsGpus(snap.state.jobs[index]!.pods), victims };
}
