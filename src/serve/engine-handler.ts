/**
 * What an engine thread does, as functions of the version (engine-worker.ts wires them to
 * messages): open the Session of a version's files, and answer one request by rendering
 * its response body. Kept apart from the thread so that tests ask the same code
 * in-process over many generated policies (test/serve/isolation.test.ts).
 */
import { QuotientError, sortFindings, type Finding } from '../errors.js';
import { API_VERSION, documentJson, report } from '../engine/report-document.js';
import { onCacheWarning } from '../engine/cache-folder.js';
import { PolicyCache } from '../engine/policy-cache.js';
import { Session } from '../engine/session.js';
import { FindingsViews, viewFindings, type LocatedJob } from '../engine/views/findings-view.js';
import { explainJob } from '../engine/views/job-explanation.js';
import { jobView } from '../engine/views/job-view.js';
import { nodeView } from '../engine/views/node-view.js';
import { quotaView } from '../engine/views/quota-view.js';
import { quotaFairShares } from '../engine/quota-fair-shares.js';
import type { Viewer } from '../engine/visibility.js';
import { estimateStart } from '../simulate/start-estimate.js';
import { ask, askKubernetes, askPai, type AskContext, type AskResult } from './ask.js';
import type { Caller, EngineInit, EngineReply, EngineRequest, LoadedMessage, StatusFindings, VersionInfo } from './engine-messages.js';
import { errorText } from './error-document.js';
import { namedJobs } from './named-jobs.js';

/** Viewers kept per user (the view is a pure function of the version and the user); bounded. */
const MAX_VIEWERS = 4096;

/** An opened version, its info, the viewers made so far and its findings as each view reads them. */
export interface LoadedVersion {
  ctx: AskContext;
  info: VersionInfo;
  viewers: Map<string, Viewer>;
  findings: FindingsViews;
}

/** The running and queued jobs of a session's snapshot, each with where its entry is (findings about it are located there). */
function locatedJobs(session: Session): LocatedJob[] {
  const cluster = session.policy.cluster;
  if (!cluster) return [];
  return [...cluster.jobs, ...(cluster.queue ?? [])].map((j) => ({ name: j.name, workspace: j.workspace, quota: j.quota, at: { file: j.src.file, path: j.src.path } }));
}

/** Opens the Session of a version: the version, and the message that says so (or why not). */
export function openVersion(init: EngineInit): { loaded?: LoadedVersion; message: LoadedMessage } {
  const started = performance.now();
  try {
    const backend = init.backend;
    const cache = init.cache ? new PolicyCache(init.cache) : false;
    // A cache folder or entry another user could have written is not used (engine/cache-folder.ts); the server says so as a warning of the version, not on stderr (its log is JSON lines).
    const untrusted: Finding[] = [];
    onCacheWarning((message) =>
      untrusted.push({
        file: init.cache || '',
        line: 0,
        column: 0,
        code: 'serve/cache-untrusted',
        severity: 'warning',
        path: '',
        message,
        hint: "chmod 700 the folder if it is the server user's own, or give the server a cache folder of its own",
      }),
    );
    const opened = Session.open(init.files, { backend, now: init.now, label: init.label, cache, estimator: (policy, job, o) => estimateStart(policy, job, { backend, ...o }) });
    const { session } = opened;
    const findings = untrusted.length ? [...opened.findings, ...untrusted] : opened.findings;
    if (!session) return { message: { type: 'loaded', ok: false, findings, jobs: namedJobs(init.files) } };
    if (!session.snapshot) {
      const f: Finding = {
        file: init.files[0]?.path ?? init.label,
        line: 1,
        column: 1,
        code: 'serve/no-cluster',
        severity: 'error',
        path: '',
        message: `the policy ${init.label} has no Cluster document`,
        hint: 'a server answers against a snapshot: add a Cluster document, or give --snapshot-command',
      };
      return { message: { type: 'loaded', ok: false, findings: sortFindings([...findings, f]), jobs: namedJobs(init.files) } };
    }
    const cluster = session.policy.cluster!;
    const info: VersionInfo = {
      version: init.version,
      policy: init.label,
      loadedAt: new Date().toISOString(),
      snapshot: { name: cluster.name, at: new Date(cluster.at).toISOString() },
      findings,
      openMs: Math.round(performance.now() - started),
    };
    let jobs: LocatedJob[] | undefined;
    const views = new FindingsViews(findings, () => (jobs ??= locatedJobs(session)));
    return { loaded: { ctx: { session }, info, viewers: new Map(), findings: views }, message: { type: 'loaded', ok: true, info } };
  } catch (e) {
    const q = e instanceof QuotientError ? e : undefined;
    return {
      message: {
        type: 'loaded',
        ok: false,
        findings: [],
        jobs: [],
        error: { code: q?.code ?? 'serve/open-failed', message: (e as Error)?.message ?? String(e), hint: q?.hint ?? 'this is a bug in Quotient, not in the policy; the log has the details' },
      },
    };
  }
}

/** The view of the caller: undefined for an administrator's full view. */
function viewerOf(l: LoadedVersion, caller: Caller): Viewer | undefined {
  if (caller.view === undefined) return undefined;
  let v = l.viewers.get(caller.view);
  if (!v) {
    v = l.ctx.session.viewer(caller.view, { outsider: true });
    if (l.viewers.size >= MAX_VIEWERS) l.viewers.delete(l.viewers.keys().next().value!);
    l.viewers.set(caller.view, v);
  }
  return v;
}

/** The workspaces `user` is a member or guest of. */
function workspacesOf(l: LoadedVersion, user: string | undefined): string[] {
  if (user === undefined) return [];
  return l.ctx.session.policy.workspaces.filter((w) => w.members.some((m) => m.user === user)).map((w) => w.name);
}

/** A view document: the envelope every listing shares, then its body. */
function viewText(l: LoadedVersion, kind: string, body: object): string {
  return documentJson({ apiVersion: API_VERSION, kind, version: l.info.version, policy: l.info.policy, snapshot: l.info.snapshot, ...body });
}

/** `submit.x` of the n-th of `submits` is `submits[n].x`. */
function underSubmits(findings: Finding[], n: number): Finding[] {
  const rename = (t: string): string => t.replace(/(^|[^\w.[\]])submit(?=[.[\s]|$)/g, `$1submits[${n}]`);
  return findings.map((f) => (f.file === 'request' ? { ...f, path: rename(f.path), message: rename(f.message), hint: rename(f.hint) } : f));
}

/** The WhatIfReport of a set of results: every answer, or (400) the findings of the requests that could not be asked. */
function whatIfReply(l: LoadedVersion, id: number, viewer: Viewer | undefined, results: AskResult[], submits: boolean): EngineReply {
  if (results.some((r) => !r.answer)) {
    const findings = results.flatMap((r, i) => (r.answer ? [] : submits ? underSubmits(r.findings, i) : r.findings));
    return { type: 'reply', id, status: 400, text: documentJson(report('WhatIfReport', { findings: sortFindings(findings), answers: [] })), decisions: [] };
  }
  const warnings = [...l.findings.for(viewer), ...results.flatMap((r, i) => (submits ? underSubmits(r.findings, i) : r.findings))];
  const answers = results.map((r) => r.answer!);
  return { type: 'reply', id, status: 200, text: documentJson(report('WhatIfReport', { findings: sortFindings(warnings), answers })), decisions: answers.map((a) => a.decision) };
}

function notFound(id: number, code: string, said: string, hint: string): EngineReply {
  return { type: 'reply', id, status: 404, text: errorText(404, code, said, hint), decisions: [] };
}

/** Answers one request of `l`'s version: the rendered response body and the answers' decisions. */
export async function handleRequest(l: LoadedVersion, req: EngineRequest): Promise<EngineReply> {
  const viewer = viewerOf(l, req.caller);
  const snap = l.ctx.session.snapshot!;
  const as = req.caller.view;
  switch (req.op) {
    case 'whatif': {
      const b = req.body;
      const asks = b.query !== undefined ? [{ query: b.query }] : b.submits !== undefined ? b.submits.map((submit) => ({ submit })) : [{ submit: b.submit }];
      const results: AskResult[] = [];
      // SEMANTICS 10: only an administrator may name a submitter other than themselves.
      const own = { ...(as !== undefined ? { as } : {}), ...(b.estimate !== undefined ? { estimate: b.estimate } : {}), submitterIsCaller: !req.caller.admin };
      for (const a of asks) results.push(await ask(l.ctx, { ...a, ...own }));
      return whatIfReply(l, req.id, viewer, results, b.submits !== undefined);
    }
    case 'pai':
      return whatIfReply(l, req.id, viewer, [await askPai(l.ctx, req.body, { ...(as !== undefined ? { as } : {}), estimate: req.estimate })], false);
    case 'kubernetes':
      return whatIfReply(
        l,
        req.id,
        viewer,
        [await askKubernetes(l.ctx, req.body, { ...(as !== undefined ? { as } : {}), estimate: req.estimate, ...(req.namespace !== undefined ? { namespace: req.namespace } : {}) })],
        false,
      );
    case 'quotas':
      return {
        type: 'reply',
        id: req.id,
        status: 200,
        text: viewText(l, 'QuotaView', quotaView({ policy: l.ctx.session.policy, tree: snap.tree, jobs: snap.jobs, usage: snap.usage, fairShares: quotaFairShares(snap) })),
        decisions: [],
      };
    case 'nodes':
      return {
        type: 'reply',
        id: req.id,
        status: 200,
        text: viewText(l, 'NodeView', nodeView(snap.cluster.nodes, snap.jobs, viewer, req.pool !== undefined ? { pool: req.pool } : {})),
        decisions: [],
      };
    case 'jobs': {
      const body = jobView(snap.cluster, snap.jobs, l.ctx.session.policy.quotas, viewer, {
        ...(req.quota !== undefined ? { quota: req.quota } : {}),
        ...(req.workspace !== undefined ? { workspace: req.workspace } : {}),
        mine: req.mine,
        ...(req.caller.user !== undefined ? { user: req.caller.view ?? req.caller.user } : {}),
        workspaces: workspacesOf(l, req.caller.view ?? req.caller.user),
      });
      return { type: 'reply', id: req.id, status: 200, text: viewText(l, 'JobView', body), decisions: [] };
    }
    case 'explain': {
      const e = await explainJob({ policy: l.ctx.session.policy, tree: snap.tree, tables: l.ctx.session.tables, jobs: snap.jobs, usage: snap.usage }, req.job, viewer);
      if (!e) return notFound(req.id, 'serve/unknown-job', 'no running job of that name that you may see', 'GET /v1/jobs lists the jobs you may see');
      return { type: 'reply', id: req.id, status: 200, text: viewText(l, 'JobExplanation', e), decisions: [] };
    }
    case 'status': {
      const body: StatusFindings = {
        findings: l.findings.for(viewer),
        ...(req.lastLoad ? { lastLoad: viewFindings(req.lastLoad.findings, [...locatedJobs(l.ctx.session), ...req.lastLoad.jobs], viewer) } : {}),
        workspaces: workspacesOf(l, req.caller.view ?? req.caller.user),
      };
      return { type: 'reply', id: req.id, status: 200, text: JSON.stringify(body), decisions: [] };
    }
  }
}
