/**
 * The policy's findings (GET /v1/status) and, when the latest edit did not load, the
 * banner that says so: the last good version keeps answering, and the failed load's
 * findings are listed with their file:line:col so the author can fix them.
 */
import type { Finding, ServeStatus } from './api-types.js';
import { findingPlace, time } from './format.js';

/** A list of findings, errors first as the server sorts them. */
export function FindingList({ findings, empty }: { findings: readonly Finding[]; empty?: string }) {
  if (findings.length === 0) return empty ? <p class="muted">{empty}</p> : null;
  return (
    <ul class="findings">
      {findings.map((f, i) => (
        <li key={i} class={`finding finding-${f.severity}`}>
          <span class={`severity severity-${f.severity}`}>{f.severity}</span> <code>{f.code}</code> <span class="place">{findingPlace(f)}</span>
          <div>{f.message}</div>
          {f.hint ? <div class="hint">hint: {f.hint}</div> : null}
        </li>
      ))}
    </ul>
  );
}

/** The banner of a failed load: shown while the latest edit is broken, gone once a load succeeds. */
export function BrokenEditBanner({ status }: { status: ServeStatus }) {
  const last = status.lastLoad;
  if (!last || last.ok) return null;
  const errors = last.findings.filter((f) => f.severity === 'error').length;
  return (
    <section class="broken-edit" role="alert" aria-labelledby="broken-edit-title">
      <h2 id="broken-edit-title">The latest policy edit did not load</h2>
      <p>
        The edit read at {time(last.at)} has {errors === 1 ? '1 error' : `${errors} errors`}.{' '}
        {status.version ? (
          <>
            Version <code>{status.version}</code>, loaded at {time(status.loadedAt)}, keeps answering until the files load again.
          </>
        ) : (
          <>No version of the policy has loaded yet, so nothing is answered until the files load.</>
        )}
      </p>
      <FindingList findings={last.findings} />
    </section>
  );
}

/** The findings of the version being served. */
export function PolicyFindings({ status }: { status: ServeStatus }) {
  return (
    <section class="panel" aria-labelledby="findings-title">
      <h2 id="findings-title">Policy findings</h2>
      <FindingList findings={status.findings} empty={status.version ? 'The policy being served has no findings.' : 'No policy is loaded yet.'} />
    </section>
  );
}
