/**
 * The /v1 routes (docs/serve.md "API"): each is its schema plus a handler that takes the
 * version being served once, asks its engine thread (or the response cache) and writes
 * the rendered body. Identity is checked first; `as` (another user's view) is an
 * administrator's only.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_VERSION, documentJson } from '../engine/report-document.js';
import type { Authenticator } from './auth.js';
import type { Caller, StatusFindings, WhatIfBody } from './engine-messages.js';
import type { EngineCall, EngineThread } from './engine-thread.js';
import { errorText } from './error-document.js';
import type { LivePolicy } from './live-policy.js';
import type { ServeMetrics } from './metrics.js';
import { noteOf } from './request-notes.js';
import type { ResponseCache } from './response-cache.js';
import { ROUTE_SCHEMAS } from './schemas.js';
import { commandPart, failedLoadFindings, snapshotFailureFindings } from './status-view.js';

/** What the routes need. */
export interface V1Deps {
  live: Pick<LivePolicy, 'current' | 'lastLoad' | 'label' | 'snapshotCheckedAt'>;
  auth: Authenticator;
  cache: ResponseCache;
  metrics: ServeMetrics;
  /** An answer not back from the engine thread in this time is a 504. */
  answerTimeoutMs: number;
  /** Requests an engine thread may hold before new ones are refused (503 serve/busy). */
  maxInFlight: number;
  /** The snapshot command, when the snapshot comes from one. */
  snapshotCommand?: string;
  /** True from SIGTERM on: /readyz and the status say so; requests are still answered until the server closes. */
  draining(): boolean;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Writes a JSON body. */
function send(reply: FastifyReply, status: number, text: string, version?: string): FastifyReply {
  if (version !== undefined) void reply.header('quotient-policy-version', version);
  return reply.code(status).type(JSON_TYPE).send(text);
}

/** Writes an Error document. */
export function refuse(req: FastifyRequest, reply: FastifyReply, status: number, code: string, message: string, hint: string, path?: string): FastifyReply {
  noteOf(req).code = code;
  return send(reply, status, errorText(status, code, message, hint, { requestId: req.id, ...(path !== undefined ? { path } : {}) }));
}

/** The caller of a request, or a refusal already written. */
function callerOf(req: FastifyRequest, reply: FastifyReply, as: string | undefined): Caller | undefined {
  const identity = noteOf(req).identity!;
  if (as !== undefined && !identity.admin && as !== identity.user) {
    refuse(req, reply, 403, 'auth/not-admin', 'only an administrator may ask as another user', 'drop `as`: your answers are what you may see');
    return undefined;
  }
  const view = as ?? (identity.admin ? undefined : identity.user);
  return { ...(view !== undefined ? { view } : {}), ...(identity.user !== undefined ? { user: identity.user } : {}), admin: identity.admin };
}

/** Registers the /v1 routes on `app`. */
export function registerV1(app: FastifyInstance, deps: V1Deps): void {
  app.addHook('onRequest', async (req, reply) => {
    // The route the router chose (it decodes the path: `/%761/jobs` is /v1/jobs), never the raw URL; an unmatched /v1 path too.
    const route = req.routeOptions.url;
    if (!(route === undefined ? req.url.startsWith('/v1/') : route.startsWith('/v1/'))) return;
    const who = deps.auth.identify(req.headers, req.raw.rawHeaders);
    if ('code' in who) return refuse(req, reply, 401, who.code, who.message, who.hint);
    noteOf(req).identity = who;
  });

  /** The version to answer from, or a 503 already written. */
  const serving = (req: FastifyRequest, reply: FastifyReply): EngineThread | undefined => {
    // While draining (after SIGTERM) requests are still answered: /readyz fails so that no more are sent.
    const t = deps.live.current;
    if (!t) {
      refuse(req, reply, 503, 'serve/not-ready', 'no valid policy is loaded yet', 'GET /v1/status shows the findings of the last load; try again shortly');
      return undefined;
    }
    return t;
  };

  /** Answers from the cache or the engine thread of the version served. */
  const answer = async (req: FastifyRequest, reply: FastifyReply, caller: Caller, call: EngineCall, key: string): Promise<FastifyReply> => {
    const thread = serving(req, reply);
    if (!thread) return reply;
    const note = noteOf(req);
    note.version = thread.version;
    const cacheKey = `${thread.version}\n${call.op}\n${caller.view ?? '\u0000all'}\n${caller.user ?? ''}\n${key}`;
    const hit = deps.cache.get(cacheKey);
    if (hit) {
      deps.metrics.cache.inc({ result: 'hit' });
      note.cache = 'hit';
      note.decisions = hit.decisions;
      for (const d of hit.decisions) deps.metrics.decisions.inc({ decision: d });
      return send(reply, hit.status, hit.text, hit.version);
    }
    deps.metrics.cache.inc({ result: 'miss' });
    note.cache = 'miss';
    if (thread.inFlight >= deps.maxInFlight) {
      void reply.header('retry-after', '1');
      return refuse(req, reply, 503, 'serve/busy', `${thread.inFlight} requests are waiting for an answer`, 'try again in a moment');
    }
    deps.metrics.inFlight.inc();
    const r = await thread.request(call, deps.answerTimeoutMs).finally(() => deps.metrics.inFlight.dec());
    if ('error' in r) {
      note.error = r.error;
      return refuse(req, reply, 500, 'serve/internal', `the answer failed (request ${req.id})`, 'this is a bug in Quotient; the server log has the details under the request id');
    }
    if (r.status === 504) return refuse(req, reply, 504, 'serve/answer-timeout', `no answer within ${deps.answerTimeoutMs} ms`, 'ask again later; an administrator can raise --answer-timeout');
    note.decisions = r.decisions;
    for (const d of r.decisions) deps.metrics.decisions.inc({ decision: d });
    deps.cache.set(cacheKey, { status: r.status, text: r.text, decisions: r.decisions, version: thread.version });
    return send(reply, r.status, r.text, thread.version);
  };

  const raw = (req: FastifyRequest): string => (req as unknown as { rawBody?: string }).rawBody ?? JSON.stringify(req.body);

  app.post<{ Body: WhatIfBody & { as?: string } }>('/v1/whatif', { schema: ROUTE_SCHEMAS.whatif }, async (req, reply) => {
    const { as, ...body } = req.body;
    const caller = callerOf(req, reply, as);
    if (!caller) return reply;
    return answer(req, reply, caller, { op: 'whatif', caller, body }, raw(req));
  });

  app.post<{ Querystring: { as?: string; estimate?: 'true' | 'false' } }>('/v1/whatif/pai', { schema: ROUTE_SCHEMAS.pai }, async (req, reply) => {
    const caller = callerOf(req, reply, req.query.as);
    if (!caller) return reply;
    const estimate = req.query.estimate !== 'false';
    return answer(req, reply, caller, { op: 'pai', caller, body: raw(req), estimate }, `${estimate}\n${raw(req)}`);
  });

  app.post<{ Querystring: { as?: string; estimate?: 'true' | 'false'; namespace?: string } }>('/v1/whatif/kubernetes', { schema: ROUTE_SCHEMAS.kubernetes }, async (req, reply) => {
    const caller = callerOf(req, reply, req.query.as);
    if (!caller) return reply;
    const estimate = req.query.estimate !== 'false';
    const { namespace } = req.query;
    return answer(
      req,
      reply,
      caller,
      { op: 'kubernetes', caller, body: raw(req), estimate, ...(namespace !== undefined ? { namespace } : {}) },
      `kubernetes\n${estimate}\n${namespace ?? ''}\n${raw(req)}`,
    );
  });

  app.get<{ Querystring: { as?: string } }>('/v1/quotas', { schema: ROUTE_SCHEMAS.quotas }, async (req, reply) => {
    const caller = callerOf(req, reply, req.query.as);
    if (!caller) return reply;
    return answer(req, reply, caller, { op: 'quotas', caller }, '');
  });

  app.get<{ Querystring: { as?: string; pool?: string } }>('/v1/nodes', { schema: ROUTE_SCHEMAS.nodes }, async (req, reply) => {
    const caller = callerOf(req, reply, req.query.as);
    if (!caller) return reply;
    return answer(req, reply, caller, { op: 'nodes', caller, ...(req.query.pool !== undefined ? { pool: req.query.pool } : {}) }, req.query.pool ?? '');
  });

  app.get<{ Querystring: { as?: string; quota?: string; workspace?: string; mine?: 'true' | 'false' } }>('/v1/jobs', { schema: ROUTE_SCHEMAS.jobs }, async (req, reply) => {
    const caller = callerOf(req, reply, req.query.as);
    if (!caller) return reply;
    const { quota, workspace } = req.query;
    const mine = req.query.mine === 'true';
    return answer(
      req,
      reply,
      caller,
      { op: 'jobs', caller, mine, ...(quota !== undefined ? { quota } : {}), ...(workspace !== undefined ? { workspace } : {}) },
      JSON.stringify([quota ?? null, workspace ?? null, mine]),
    );
  });

  app.get<{ Params: { name: string }; Querystring: { as?: string } }>('/v1/jobs/:name/explain', { schema: ROUTE_SCHEMAS.explain }, async (req, reply) => {
    const caller = callerOf(req, reply, req.query.as);
    if (!caller) return reply;
    return answer(req, reply, caller, { op: 'explain', caller, job: req.params.name }, req.params.name);
  });

  app.get<{ Querystring: { as?: string } }>('/v1/status', { schema: ROUTE_SCHEMAS.status }, async (req, reply) => {
    const caller = callerOf(req, reply, req.query.as);
    if (!caller) return reply;
    const thread = deps.live.current;
    const last = deps.live.lastLoad;
    const failed = last && !last.ok ? last : undefined;
    let scrubbed: StatusFindings = { findings: [], workspaces: [], ...(failed ? { lastLoad: failedLoadFindings(caller, failed.findings, failed.jobs) } : {}) };
    if (thread) {
      noteOf(req).version = thread.version;
      const r = await thread.request({ op: 'status', caller, ...(failed ? { lastLoad: { findings: failed.findings, jobs: failed.jobs } } : {}) }, deps.answerTimeoutMs);
      if ('error' in r || r.status !== 200) return refuse(req, reply, 500, 'serve/internal', `the status failed (request ${req.id})`, 'the server log has the details under the request id');
      scrubbed = JSON.parse(r.text) as StatusFindings;
    }
    const info = thread?.info;
    const doc = {
      apiVersion: API_VERSION,
      kind: 'ServeStatus',
      ready: thread !== undefined && !deps.draining(),
      version: info?.version ?? null,
      policy: deps.live.label ?? null,
      loadedAt: info?.loadedAt ?? null,
      snapshot: info?.snapshot
        ? {
            ...info.snapshot,
            source: deps.snapshotCommand !== undefined ? 'command' : 'files',
            ...(deps.snapshotCommand !== undefined ? commandPart(caller, deps.snapshotCommand, deps.live.snapshotCheckedAt) : {}),
          }
        : null,
      findings: scrubbed.findings,
      lastLoad: last
        ? {
            version: last.version,
            at: last.at,
            ok: last.ok,
            ...(last.stage ? { stage: last.stage } : {}),
            findings: last.ok ? scrubbed.findings : last.stage === 'snapshot-command' ? snapshotFailureFindings(caller, last.findings) : (scrubbed.lastLoad ?? []),
          }
        : null,
      viewer: {
        ...(caller.user !== undefined ? { user: caller.user } : {}),
        admin: caller.admin,
        ...(caller.view !== undefined && caller.view !== caller.user ? { as: caller.view } : {}),
        workspaces: scrubbed.workspaces,
      },
    };
    return send(reply, 200, documentJson(doc), info?.version);
  });
}
