/**
 * The web app of `quotient serve`: one page with the what-if form and its answer, the GPU
 * heat map, the caller's jobs, the quota tree and the policy's findings. It asks the
 * server's status every POLL_MS; when the version being served changes it reads the views
 * again, and when the latest edit failed to load it says so above everything (the last
 * good version keeps answering). Every text from the API is rendered as text by Preact
 * (no innerHTML anywhere in the app).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, askWhatIf, fetchMyJobs, fetchNodes, fetchQuotas, fetchStatus, keepToken, signedInToken, type WhatIfResult } from './api.js';
import type { JobSubmit, JobView, NodeView, QuotaView, ServeStatus } from './api-types.js';
import { BrokenEditBanner, PolicyFindings } from './findings.js';
import { time } from './format.js';
import { HeatMap } from './heat-map.js';
import { marksOf, NO_MARKS } from './heat-map-marks.js';
import { MyJobs } from './my-jobs.js';
import { QuotaTree } from './quota-tree.js';
import { SignIn } from './sign-in.js';
import { WhatIfAnswerView } from './whatif-answer.js';
import { WhatIfForm } from './whatif-form.js';

/** How often the status is asked (a reload shows within this time). */
const POLL_MS = 2000;

/** A view, its load error, or nothing yet. */
type Loaded<T> = { doc: T } | { error: ApiError } | undefined;

function asError(e: unknown): ApiError {
  return e instanceof ApiError ? e : new ApiError(0, 'web/failed', String(e));
}

function ErrorText({ error }: { error: ApiError }) {
  return (
    <p class="error-text" role="status">
      {error.message} (<code>{error.code}</code>){error.hint ? ` — ${error.hint}` : ''}
    </p>
  );
}

/** A view's content once loaded, its error, or a loading line. */
function Show<T>({ loaded, children }: { loaded: Loaded<T>; children: (doc: T) => ComponentChildren }) {
  if (!loaded) return <p class="muted">Loading…</p>;
  if ('error' in loaded) return <ErrorText error={loaded.error} />;
  return <>{children(loaded.doc)}</>;
}

/** Reads one view into state whenever `version` changes. */
function useView<T>(version: string | null, fetcher: () => Promise<T>): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>(undefined);
  useEffect(() => {
    // Signed out (no version): what was read for the last user goes.
    if (!version) return setLoaded(undefined);
    let stale = false;
    fetcher().then(
      (doc) => !stale && setLoaded({ doc }),
      (e: unknown) => !stale && setLoaded({ error: asError(e) }),
    );
    return () => {
      stale = true;
    };
  }, [version]);
  return loaded;
}

/** The whole page. */
export function App() {
  const [status, setStatus] = useState<ServeStatus>();
  const [statusError, setStatusError] = useState<ApiError>();
  const [result, setResult] = useState<{ result: WhatIfResult; asked: number }>();
  const [askError, setAskError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  // Bumped on signing in or out: the status is asked again at once, with the new token.
  const [session, setSession] = useState(0);
  const [tokenRefused, setTokenRefused] = useState(false);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async (): Promise<void> => {
      try {
        const s = await fetchStatus();
        if (!stopped) {
          setStatus(s);
          setStatusError(undefined);
        }
      } catch (e) {
        const error = asError(e);
        if (!stopped) {
          setStatusError(error);
          if (error.code.startsWith('auth/')) {
            // Not (or no longer) let in: nothing of the last view stays on the page, and a refused token is dropped.
            setStatus(undefined);
            if (signedInToken() !== undefined) {
              keepToken(undefined);
              setTokenRefused(true);
            }
          }
        }
      }
      if (!stopped) timer = setTimeout(() => void tick(), POLL_MS);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [session]);

  const version = status?.version ?? null;
  const quotas = useView<QuotaView>(version, fetchQuotas);
  const nodes = useView<NodeView>(version, fetchNodes);
  const jobs = useView<JobView>(version, fetchMyJobs);
  const answer = result?.result.report.answers[0];
  const nodeList = nodes && 'doc' in nodes ? nodes.doc.nodes : undefined;
  const marks = useMemo(() => (nodeList ? marksOf(nodeList, answer) : NO_MARKS), [nodeList, answer]);

  const ask = (job: JobSubmit): void => {
    setBusy(true);
    setAskError(undefined);
    askWhatIf(job).then(
      (r) => {
        setResult((old) => ({ result: r, asked: (old?.asked ?? 0) + 1 }));
        setBusy(false);
      },
      (e: unknown) => {
        setAskError(asError(e));
        setBusy(false);
      },
    );
  };

  if (!status)
    return (
      <main class="page">
        <h1>Quotient</h1>
        {statusError ? (
          <>
            <p>The server did not let this page read the policy.</p>
            <ErrorText error={statusError} />
            {statusError.code.startsWith('auth/') ? (
              <>
                <p>Open this page through the proxy that signs you in, or sign in with an access token the server knows.</p>
                <SignIn
                  refused={tokenRefused}
                  onSignedIn={() => {
                    setTokenRefused(false);
                    setSession((n) => n + 1);
                  }}
                />
              </>
            ) : null}
          </>
        ) : (
          <p class="muted">Connecting to quotient serve…</p>
        )}
      </main>
    );

  const viewer = status.viewer;
  return (
    <>
      <a class="skip-link" href="#whatif">
        Skip to the what-if form
      </a>
      <header class="top-bar">
        <h1>Quotient</h1>
        <p class="policy-line">
          <span>
            policy <code>{status.policy ?? '—'}</code>
          </span>
          <span>
            version <code>{status.version ?? 'none loaded'}</code>
          </span>
          {status.snapshot ? (
            <span>
              snapshot {status.snapshot.name} at {time(status.snapshot.at)}
            </span>
          ) : null}
          <span class="viewer">
            {viewer.user ?? 'administrator'}
            {viewer.admin ? ' (sees everything)' : viewer.workspaces.length > 0 ? ` · ${viewer.workspaces.join(', ')}` : ' · no workspace'}
          </span>
          {signedInToken() !== undefined ? (
            <button
              type="button"
              class="sign-out"
              onClick={() => {
                keepToken(undefined);
                setStatus(undefined);
                setResult(undefined);
                setSession((n) => n + 1);
              }}
            >
              Sign out
            </button>
          ) : null}
        </p>
        {statusError ? <ErrorText error={statusError} /> : null}
      </header>
      <main class="page">
        <BrokenEditBanner status={status} />
        <div class="columns">
          <section id="whatif" class="panel whatif" aria-labelledby="whatif-title">
            <h2 id="whatif-title">What if I submit…</h2>
            <WhatIfForm status={status} quotas={quotas && 'doc' in quotas ? quotas.doc : undefined} busy={busy} findings={result?.result.report.findings ?? []} onAsk={ask} />
            {askError ? <ErrorText error={askError} /> : null}
            {result ? <WhatIfAnswerView report={result.result.report} version={result.result.version} asked={result.asked} /> : null}
          </section>
          <section class="panel nodes" aria-labelledby="nodes-title">
            <h2 id="nodes-title">GPUs by node</h2>
            <Show loaded={nodes}>{(doc) => <HeatMap nodes={doc.nodes} marks={marks} />}</Show>
          </section>
        </div>
        <section class="panel" aria-labelledby="myjobs-title">
          <h2 id="myjobs-title">My jobs</h2>
          <Show loaded={jobs}>{(doc) => <MyJobs view={doc} user={viewer.user} />}</Show>
        </section>
        <section class="panel" aria-labelledby="quotas-title">
          <h2 id="quotas-title">Quota tree</h2>
          <Show loaded={quotas}>{(doc) => <QuotaTree view={doc} />}</Show>
        </section>
        <PolicyFindings status={status} />
      </main>
    </>
  );
}
