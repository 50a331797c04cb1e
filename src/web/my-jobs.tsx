/**
 * "My jobs": the caller's running jobs (GET /v1/jobs?mine=true), each with its standing,
 * why it has it, and what could preempt it (GET /v1/jobs/NAME/explain): the rules that
 * reach it, with their policy lines, and which submissions they let do it. The first
 * EAGER jobs are explained at once; the rest when asked, so a team with hundreds of jobs
 * does not send hundreds of requests.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, fetchExplanation } from './api.js';
import type { JobEntry, JobExplanation, JobView } from './api-types.js';
import { count, gpus, time } from './format.js';
import { STANDING_LABELS } from './palette.js';

const EAGER = 20;

type Explained = JobExplanation | ApiError | 'loading';

function Explanation({ e }: { e: Explained }) {
  if (e === 'loading') return <p class="muted">Reading what could preempt it…</p>;
  if (e instanceof ApiError)
    return (
      <p class="error-text">
        Could not explain it: {e.message} (<code>{e.code}</code>)
      </p>
    );
  return (
    <div class="explanation">
      <p>
        <span class="muted">Standing: </span>
        {e.standing.reason}
      </p>
      {e.path.length > 0 ? (
        <p class="muted small">
          {e.path.map((p, i) => (
            <span key={p.quota}>
              {i > 0 ? ' → ' : ''}
              {p.quota} uses {gpus(p.used)} of {gpus(p.min)} guaranteed{p.max !== null ? `, max ${gpus(p.max)}` : ''}
            </span>
          ))}
        </p>
      ) : null}
      {e.preemptibleBy.length === 0 ? (
        <p class="safe">Nothing can preempt it: no rule of the policy reaches it.</p>
      ) : (
        <>
          <p>Could be preempted under:</p>
          <ul class="preemptible-by">
            {e.preemptibleBy.map((r) => (
              <li key={r.rule}>
                <code class="rule">{r.rule}</code> <code class="source">{r.source}</code>
                <div>{r.summary}</div>
                <div class="muted">{r.reason}</div>
                {r.preemptors.length > 0 ? (
                  <div>
                    by jobs submitted{' '}
                    {r.preemptors
                      .map(
                        (p) =>
                          `${p.anyQuotaOf ? `to any quota of ${p.anyQuotaOf}` : `to ${p.quotas.join(', ')}`} at priority ${p.priorities} (running ${STANDING_LABELS[p.standing as keyof typeof STANDING_LABELS] ?? p.standing})`,
                      )
                      .join('; ')}
                  </div>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function JobCard({ job, explained, onExplain }: { job: JobEntry; explained: Explained | undefined; onExplain: () => void }) {
  return (
    <li class="job-card">
      <h3 class="job-title">
        <span class="job-name">{job.job}</span> <span class={`standing standing-${job.standing}`}>{STANDING_LABELS[job.standing] ?? job.standing}</span>
      </h3>
      <p class="muted small">
        {job.quota} · {job.workspace} · {job.priority !== undefined ? `priority ${job.priority}` : job.priorityBand}
        {job.module ? ` · ${job.module}` : ''} · {job.pods} × {count(job.gpusPerPod, 'GPU')} = {count(job.gpus, 'GPU')}
        {job.startedAt ? ` · started ${time(job.startedAt)}` : ''}
        {job.expectedEnd ? ` · ends ${time(job.expectedEnd)}` : ''}
        {job.nodes.length > 0 ? ` · on ${job.nodes.slice(0, 6).join(', ')}${job.nodes.length > 6 ? ` and ${job.nodes.length - 6} more` : ''}` : ''}
      </p>
      {explained ? (
        <Explanation e={explained} />
      ) : (
        <button type="button" onClick={onExplain}>
          What could preempt {job.job}?
        </button>
      )}
    </li>
  );
}

/** The caller's jobs. */
export function MyJobs({ view, user }: { view: JobView; user: string | undefined }) {
  // Keyed by version and name: an explanation that comes back after the policy changed is not shown beside the new listing.
  const [explained, setExplained] = useState<ReadonlyMap<string, Explained>>(new Map());
  const key = (name: string): string => `${view.version}/${name}`;
  const explain = (name: string): void => {
    const k = key(name);
    setExplained((m) => new Map(m).set(k, 'loading'));
    fetchExplanation(name).then(
      (e) => setExplained((m) => new Map(m).set(k, e)),
      (err: unknown) => setExplained((m) => new Map(m).set(k, err instanceof ApiError ? err : new ApiError(0, 'web/failed', String(err)))),
    );
  };
  useEffect(() => {
    setExplained(new Map());
    for (const j of view.running.slice(0, EAGER)) if (!j.hidden) explain(j.job);
    // A new listing (another policy version) explains its jobs again.
  }, [view]);
  const jobs = view.running.filter((j) => !j.hidden);
  const waiting = view.queued.filter((j) => !j.hidden);
  return (
    <>
      {jobs.length === 0 ? (
        <p class="muted">{user ? `${user} has no running jobs in this snapshot.` : 'You have no running jobs in this snapshot.'}</p>
      ) : (
        <ul class="job-cards">
          {jobs.map((j) => (
            <JobCard key={j.job} job={j} explained={explained.get(key(j.job))} onExplain={() => explain(j.job)} />
          ))}
        </ul>
      )}
      {waiting.length > 0 && (
        <section aria-label="Queued jobs">
          <h3>Waiting in the queue</h3>
          <ul class="queued-jobs">
            {waiting.map((j) => (
              <li key={j.job}>
                <strong>{j.job}</strong>: position {j.position} in {j.quota} ({j.strategy}), {j.pods} × {j.gpusPerPod} GPUs, priority {j.priority ?? j.priorityBand}, submitted {j.submittedAt}
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
