/**
 * A what-if answer as a person reads it: the decision first, then where the job would run,
 * whom it would preempt (each victim with the rule that makes it eligible and the policy
 * line of that rule), why, and when a waiting job is estimated to start. Hidden victims
 * read as "a job of WORKSPACE": the API never sends their names. The heading takes the
 * focus when an answer arrives, so keyboard and screen-reader users land on it.
 */
import { useEffect, useRef } from 'preact/hooks';
import type { Reason, Victim, WhatIfAnswer, WhatIfReport } from './api-types.js';
import { FindingList } from './findings.js';
import { count, gpus, hours, ranges, time } from './format.js';
import { STANDING_LABELS } from './palette.js';

/** What each decision means, after the decision's word. */
const DECISIONS: Record<WhatIfAnswer['decision'], string> = {
  admit: 'it runs now',
  preempt: 'it runs now, after preempting the victims below',
  wait: 'it does not run now',
  reject: 'it can never run as asked',
};

function victimName(v: Victim): string {
  return v.hidden ? `a job of ${v.workspace ?? 'another team'}` : v.job;
}

function Victims({ victims }: { victims: readonly Victim[] }) {
  return (
    <>
      <h4 id="victims-title">{count(victims.length, 'victim')}: the jobs it would preempt</h4>
      <ul class="victims" aria-labelledby="victims-title">
        {victims.map((v, i) => (
          <li key={i} class="victim">
            <div>
              <strong class={v.hidden ? 'hidden-job' : 'job-name'}>{victimName(v)}</strong>{' '}
              <span class="muted">
                {v.quota} · {v.priority !== undefined ? `priority ${v.priority}` : (v.priorityBand ?? '')}
                {v.module ? ` · ${v.module}` : ''} · {STANDING_LABELS[v.standing] ?? v.standing} · {count(v.gpus, 'GPU')}
                {v.lostGpuHours !== undefined ? ` · ${gpus(v.lostGpuHours)} GPU-hours of work lost` : ''}
              </span>
            </div>
            <div>
              <span class="muted">rule </span>
              <code class="rule">{v.rule}</code> <span class="muted">at </span>
              <code class="source">{v.source}</code>
            </div>
            <div class="victim-reason">
              <span class="muted">why: </span>
              {v.reason}
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}

function EstimateView({ answer }: { answer: WhatIfAnswer }) {
  const e = answer.estimate;
  if (answer.decision !== 'wait') return null;
  if (!e)
    return (
      <p class="estimate">
        <strong>Estimated start:</strong> none: no running job in the snapshot says when it ends.
      </p>
    );
  return (
    <div class="estimate">
      {e.start ? (
        <p>
          <strong>Estimated start:</strong> {time(e.start)}
          {e.inHours !== null ? ` (in ${hours(e.inHours)})` : ''}, queue position {e.queuePosition} ({e.queueStrategy}){e.standing ? `, runs ${STANDING_LABELS[e.standing]}` : ''}
          {e.victims.length > 0 ? `, preempting ${e.victims.map((v) => (v.startsWith('(hidden: ') ? `a job of ${v.slice(9, -1)}` : v)).join(', ')}` : ''}
        </p>
      ) : (
        <p>
          <strong>Estimated start:</strong> none: {e.reason}
        </p>
      )}
      {e.assumptions.length > 0 ? (
        <details>
          <summary>What the estimate assumes</summary>
          <ul>
            {e.assumptions.map((a, i) => (
              <li key={i}>{a}</li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}

/** Reasons or notes, each with its code; nothing when there are none. */
function ReasonList({ title, reasons }: { title: string; reasons: readonly Reason[] }) {
  if (reasons.length === 0) return null;
  return (
    <>
      <h4>{title}</h4>
      <ul class="reasons">
        {reasons.map((r, i) => (
          <li key={i}>
            <code>{r.code}</code> {r.message}
          </li>
        ))}
      </ul>
    </>
  );
}

/** One answer. */
function Answer({ answer }: { answer: WhatIfAnswer }) {
  return (
    <div class={`answer decision-${answer.decision}`}>
      <p class="decision">
        <span class="decision-word">{answer.decision.toUpperCase()}</span> <span>{DECISIONS[answer.decision] ?? ''}</span>
      </p>
      <p>
        {answer.job} on {answer.quota}
        {answer.standing ? `, runs ${STANDING_LABELS[answer.standing]}` : ''}
        {answer.placement.length > 0 ? (
          <>
            {' '}
            on{' '}
            {answer.placement.map((p, i) => (
              <span key={i}>
                {i > 0 ? ', ' : ''}
                <span class="node-name">{p.node}</span> (GPUs {ranges(p.gpus)})
              </span>
            ))}
          </>
        ) : null}
      </p>
      {answer.victims.length > 0 ? <Victims victims={answer.victims} /> : null}
      <EstimateView answer={answer} />
      <ReasonList title="Why" reasons={answer.reasons} />
      <ReasonList title="Notes" reasons={answer.notes} />
    </div>
  );
}

/** The report of the last question: its answers, or the findings that say what to fix. */
export function WhatIfAnswerView({ report, version, asked }: { report: WhatIfReport; version: string | null; asked: number }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus({ preventScroll: false });
  }, [asked]);
  const errors = report.answers.length === 0;
  return (
    <section class="whatif-answer" aria-labelledby="answer-title">
      <h3 id="answer-title" tabIndex={-1} ref={heading}>
        {errors ? 'The job cannot be asked about as written' : 'Answer'}
        {version ? <span class="muted small"> · policy version {version}</span> : null}
      </h3>
      {report.findings.length > 0 ? <FindingList findings={report.findings} /> : null}
      {report.answers.map((a, i) => (
        <Answer key={i} answer={a} />
      ))}
    </section>
  );
}
