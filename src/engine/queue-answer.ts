/**
 * A what-if answer with the queues at the snapshot time (SEMANTICS 8, "Queues at one
 * instant"): the job is answered on the state the queued jobs ahead of it leave
 * (queue-serve.ts), and the answer carries its true place (`queue`: position and
 * strategy), the queued jobs taken as started before it, and the job that holds it when
 * its queue's strategy does not let it pass one that cannot run — then the answer is
 * `wait` (invariant 11: never `admit` for a job its queue would hold), naming that job
 * and its own reasons. Queued jobs are named as the asker may see them (SEMANTICS 10,
 * visibility.ts). A snapshot with no queued job costs one check.
 */
import type { JobSpec, QueuedJob, QueueStrategy } from '../model/policy.js';
import { formatGpu } from '../model/resources.js';
import type { EngineContext } from './answer-context.js';
import type { Answer, QueueAnswer, QueuedJobAnswer, QueuedStartAnswer } from './answer.js';
import { because, REASON_CODES, type Reason } from './reason-codes.js';
import { queuePlace, servedFor, type Served, type StartedQueued } from './queue-serve.js';
import type { Snapshot } from './snapshot.js';
import { hiddenLabel, priorityBand, type Viewer } from './visibility.js';
import { answerWhatIf } from './whatif.js';

/** The decision and why, asked with the snapshot's queues; `snapshot` is the state it was answered on (notes and redaction read it). */
export async function answerInQueue(engine: EngineContext, query: string, job: JobSpec): Promise<{ answer: Answer; snapshot: Snapshot }> {
  const snap = engine.snapshot;
  const place = snap.cluster.queue?.length ? queuePlace(snap.policy, job) : undefined;
  if (!place) return { answer: await answerWhatIf(engine, query, job), snapshot: snap };
  const served = await servedFor(engine, place);
  const on: EngineContext = { snapshot: served.engine.snapshot, tables: engine.tables, viewer: engine.viewer };
  const own = await answerWhatIf(on, query, job);
  const viewer = engine.viewer;
  const started = served.started.map((s) => startedView(s, viewer));
  const first = served.started.length ? [because('queue/served-first', servedSentence(served, viewer))] : [];
  // A job that could never run is rejected whatever its queue does.
  if (!served.held || own.decision === 'reject') {
    const queue: QueueAnswer = { position: place.position, strategy: place.strategy, started, heldBy: null };
    return { answer: { ...own, reasons: [...first, ...own.reasons], queue }, snapshot: on.snapshot };
  }
  // The holder's reasons as the asker may read them: its answer again, with the viewer, on the same state.
  const held = served.held;
  const heldAnswer = viewer ? await answerWhatIf({ ...on, snapshot: served.engine.snapshot }, 'queue', held.job) : held.answer;
  const heldBy = { ...jobView(held.job, viewer), reasons: reasonsOf(held.job, heldAnswer.reasons, viewer) };
  const queue: QueueAnswer = { position: place.position, strategy: place.strategy, started, heldBy };
  const reasons = [
    ...first,
    because('queue/held', heldSentence(job, place.strategy, held.job, heldBy.reasons, own, viewer)),
    // Its own reasons too when it could not run at the head of its queue either.
    ...(own.decision === 'wait' ? own.reasons : []),
  ];
  const { victimOrder: _order, ...rest } = own;
  return { answer: { ...rest, decision: 'wait', standing: null, placement: [], victims: [], lostGpuHours: 0, reasons, queue }, snapshot: on.snapshot };
}

/** A queued job as `viewer` may see it: in full, or anonymous usage (workspace, quota, priority band, GPUs). */
function jobView(job: QueuedJob, viewer: Viewer | undefined): QueuedJobAnswer {
  const gpus = job.pods * job.resources.gpu;
  const submittedAt = new Date(job.submittedAt).toISOString();
  if (!viewer || viewer.canSee(job)) return { job: job.name, quota: job.quota, priority: job.priority, gpus, submittedAt };
  return { job: hiddenLabel(job), hidden: true, workspace: job.workspace, quota: job.quota, priorityBand: priorityBand(job.priority), gpus, submittedAt };
}

/** A started queued job as `viewer` may see it, its victims named only as far as they may be seen. */
function startedView(s: StartedQueued, viewer: Viewer | undefined): QueuedStartAnswer {
  return { ...jobView(s.job, viewer), decision: s.decision, standing: s.standing, victims: s.victims.map((v) => (!viewer || viewer.canSee(v) ? v.name : hiddenLabel(v))) };
}

/** A holder's reasons: its own sentences when the asker may see it, else each code once with its meaning (no sentence about a hidden job). */
function reasonsOf(job: QueuedJob, reasons: readonly Reason[], viewer: Viewer | undefined): Reason[] {
  if (!viewer || viewer.canSee(job)) return [...reasons];
  return [...new Set(reasons.map((r) => r.code))].map((code) => because(code, REASON_CODES[code]));
}

/** How a queued job is named in a sentence for `viewer`. */
function label(job: QueuedJob, viewer: Viewer | undefined): string {
  const gpus = `${formatGpu(job.pods * job.resources.gpu)} GPUs`;
  if (!viewer || viewer.canSee(job)) return `${job.name} (${job.quota}, priority ${job.priority}, ${gpus}, submitted ${new Date(job.submittedAt).toISOString()})`;
  return `a job of ${job.workspace} (${job.quota}, ${priorityBand(job.priority)} priority, ${gpus})`;
}

/** The queued jobs served first, as one sentence. */
function servedSentence(served: Served, viewer: Viewer | undefined): string {
  const each = served.started.map((s) => `${label(s.job, viewer)} ${s.decision === 'admit' ? 'admitted' : `preempting ${s.victims.length} job(s)`}, runs ${s.standing}`);
  return `${served.started.length} queued job(s) submitted before this one were served first and taken as started; the answer is on what they leave: ${each.join('; ')}`;
}

/** Why the job waits behind its queue's holder. */
function heldSentence(job: JobSpec, strategy: QueueStrategy, holder: QueuedJob, reasons: readonly Reason[], own: Answer, viewer: Viewer | undefined): string {
  // round-robin lets a job pass every blocked one: it never holds.
  const which: Record<QueueStrategy, string> = {
    fifo: 'the head of the queue, which under fifo blocks every job behind it',
    'round-robin': 'a job ahead of it',
    balance: "the last job of balance's window at the snapshot time, which blocks the jobs behind it",
    intelligent: "a job of intelligent's FIFO class (priority at or above its intelligentFifoFrom), which blocks every job behind it",
  };
  const why = reasons.map((r) => r.message).join('; ');
  const itself = own.decision === 'admit' || own.decision === 'preempt' ? `; first in its queue, the job would ${own.decision === 'admit' ? 'be admitted' : 'preempt'} now (${own.standing})` : '';
  return `${job.quota}'s queue is ${strategy}: the job waits behind ${label(holder, viewer)}, ${which[strategy]}; that job cannot run now: ${why}${itself}`;
}
