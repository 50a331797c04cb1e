/**
 * An engine thread: one policy version. It opens the Session from the files it is given
 * (seconds for a 10,000-node snapshot, off the HTTP thread), says whether that worked,
 * then answers the requests the HTTP thread sends, one after another (a Session answers
 * one question at a time: the kernel's state is restored after each), and renders each
 * response body. A reload starts a new engine thread; this one is ended once the requests
 * sent to it are answered, so every response comes whole from one version.
 *
 * Loaded from dist/ (dist/serve/engine-worker.js) like the Piscina workers: Node 20 cannot
 * start a worker from TypeScript, so `npm run build` must have run.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { QuotientError, sortFindings, type Finding } from '../errors.js';
import { API_VERSION, documentJson, report } from '../engine/report-document.js';
import { Session } from '../engine/session.js';
import { scrubFindings } from '../engine/views/findings-view.js';
import { explainJob } from '../engine/views/job-explanation.js';
import { jobView } from '../engine/views/job-view.js';
import { nodeView } from '../engine/views/node-view.js';
import { quotaView } from '../engine/views/quota-view.js';
import type { Viewer } from '../engine/visibility.js';
import { ask, askPai, type AskContext, type AskResult } from './ask.js';
import type { Caller, EngineInit, EngineReply, EngineRequest, LoadedMessage, StatusFindings, VersionInfo } from './engine-messages.js';
import { errorText } from './error-document.js';
import { namedJobs } from './named-jobs.js';

const init = workerData as EngineInit;
const port = parentPort!;

/** Viewers kept per user (the view is a pure function of the version and the user); bounded. */
const MAX_VIEWERS = 4096;

/** The opened version, its info, and the viewers made so far. */
interface Loaded {
  ctx: AskContext;
  info: VersionInfo;
  viewers: Map<string, Viewer>;
}

function open(): { loaded?: Loaded; message: LoadedMessage } {
  const started = performance.now();
  try {
    const { session, findings } = Session.open(init.files, { backend: init.backend, now: init.now });
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
    return { loaded: { ctx: { session, label: init.label, backend: init.backend }, info, viewers: new Map() }, message: { type: 'loaded', ok: true, info } };
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

const { loaded, message } = open();
port.postMessage(message);

/** The view of the caller: undefined for an administrator's full view. */
function viewerOf(l: Loaded, caller: Caller): Viewer | undefined {
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
function workspacesOf(l: Loaded, user: string | undefined): string[] {
  if (user === undefined) return [];
  return l.ctx.session.policy.workspaces.filter((w) => w.members.some((m) => m.user === user)).map((w) => w.name);
}

/** A view document: the envelope every listing shares, then its body. */
function viewText(l: Loaded, kind: string, body: object): string {
  return documentJson({ apiVersion: API_VERSION, kind, version: l.info.version, policy: l.info.policy, snapshot: l.info.snapshot, ...body });
}

/** `submit.x` of the n-th of `submits` is `submits[n].x`. */
function underSubmits(findings: Finding[], n: number): Finding[] {
  const rename = (t: string): string => t.replace(/(^|[^\w.[\]])submit(?=[.[\s]|$)/g, `$1submits[${n}]`);
  return findings.map((f) => (f.file === 'request' ? { ...f, path: rename(f.path), message: rename(f.message), hint: rename(f.hint) } : f));
}

/** The WhatIfReport of a set of results: every answer, or (400) the findings of the requests that could not be asked. */
function whatIfReply(l: Loaded, id: number, viewer: Viewer | undefined, results: AskResult[], submits: boolean): EngineReply {
  const jobs = l.ctx.session.snapshot!.jobs;
  if (results.some((r) => !r.answer)) {
    const findings = results.flatMap((r, i) => (r.answer ? [] : submits ? underSubmits(r.findings, i) : r.findings));
    return { type: 'reply', id, status: 400, text: documentJson(report('WhatIfReport', { findings: sortFindings(findings), answers: [] })), decisions: [] };
  }
  const warnings = [...scrubFindings(l.info.findings, jobs, viewer), ...results.flatMap((r, i) => (submits ? underSubmits(r.findings, i) : r.findings))];
  const answers = results.map((r) => r.answer!);
  return { type: 'reply', id, status: 200, text: documentJson(report('WhatIfReport', { findings: sortFindings(warnings), answers })), decisions: answers.map((a) => a.decision) };
}

function notFound(id: number, code: string, said: string, hint: string): EngineReply {
  return { type: 'reply', id, status: 404, text: errorText(404, code, said, hint), decisions: [] };
}

async function handle(l: Loaded, req: EngineRequest): Promise<EngineReply> {
  const viewer = viewerOf(l, req.caller);
  const snap = l.ctx.session.snapshot!;
  const as = req.caller.view;
  switch (req.op) {
    case 'whatif': {
      const b = req.body;
      const asks = b.query !== undefined ? [{ query: b.query }] : b.submits !== undefined ? b.submits.map((submit) => ({ submit })) : [{ submit: b.submit }];
      const results: AskResult[] = [];
      for (const a of asks) results.push(await ask(l.ctx, { ...a, ...(as !== undefined ? { as } : {}), ...(b.estimate !== undefined ? { estimate: b.estimate } : {}) }));
      return whatIfReply(l, req.id, viewer, results, b.submits !== undefined);
    }
    case 'pai':
      return whatIfReply(l, req.id, viewer, [await askPai(l.ctx, req.body, { ...(as !== undefined ? { as } : {}), estimate: req.estimate })], false);
    case 'quotas':
      return {
        type: 'reply',
        id: req.id,
        status: 200,
        text: viewText(l, 'QuotaView', quotaView({ policy: l.ctx.session.policy, tree: snap.tree, jobs: snap.jobs, usage: snap.usage })),
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
      const body = jobView(snap.jobs, viewer, {
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
      if (!e) return notFound(req.id, 'serve/unknown-job', `no running job named "${req.job}" that you may see`, 'GET /v1/jobs lists the jobs you may see');
      return { type: 'reply', id: req.id, status: 200, text: viewText(l, 'JobExplanation', e), decisions: [] };
    }
    case 'status': {
      const body: StatusFindings = {
        findings: scrubFindings(l.info.findings, snap.jobs, viewer),
        ...(req.lastLoad ? { lastLoad: scrubFindings(req.lastLoad.findings, [...snap.jobs, ...req.lastLoad.jobs], viewer) } : {}),
        workspaces: workspacesOf(l, req.caller.view ?? req.caller.user),
      };
      return { type: 'reply', id: req.id, status: 200, text: JSON.stringify(body), decisions: [] };
    }
  }
}

if (loaded) {
  // One request at a time, in arrival order: each waits for the one before it.
  let queue: Promise<void> = Promise.resolve();
  port.on('message', (req: EngineRequest) => {
    queue = queue.then(async () => {
      let reply: EngineReply;
      try {
        reply = await handle(loaded, req);
      } catch (e) {
        reply = { type: 'reply', id: req.id, status: 500, error: (e as Error)?.stack ?? String(e) };
      }
      port.postMessage(reply);
    });
  });
}
