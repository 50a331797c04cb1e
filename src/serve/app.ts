/**
 * The HTTP application (Fastify 5): the /v1 routes, the operations routes, the web app's
 * files, and what every request goes through — an id, identity, body limits, errors as
 * one JSON document (never a stack), security headers, one structured log line (pino)
 * with the request id, the caller, the version and the decisions, every text from a
 * request or a policy escaped, and the metrics.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { documentJson, report } from '../engine/report-document.js';
import type { Finding } from '../errors.js';
import { escapeDisplay } from '../model/display-text.js';
import { bodyProblem } from './body-limits.js';
import { noteOf } from './request-notes.js';
import { jobSubmitSchema } from './schemas.js';
import { refuse, registerV1, type V1Deps } from './v1-routes.js';
import { PLACEHOLDER_PAGE, webAppFolder } from './web-app.js';

/** The options of the application. */
export interface AppOptions extends V1Deps {
  log: Logger;
  /** The largest request body, in bytes (413 over it). */
  bodyLimit: number;
  /** A request (headers and body) not received in this time is cut (408). */
  requestTimeoutMs: number;
  /** Headers not received in this time are cut (408). */
  headersTimeoutMs: number;
  /** An idle kept-alive connection is closed after this time. */
  keepAliveTimeoutMs: number;
  /** The built web app's folder (default dist/web). */
  webRoot?: string;
  /** How often Node looks for requests past their time (default 1 s). */
  connectionsCheckingIntervalMs?: number;
}

const HTML_POLICY = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Builds the application (not listening yet: `app.listen`, or `app.inject` in tests). */
export async function buildApp(o: AppOptions): Promise<FastifyInstance> {
  let counter = 0;
  const prefix = Math.random().toString(36).slice(2, 6);
  const app = Fastify({
    logger: false,
    bodyLimit: o.bodyLimit,
    requestTimeout: o.requestTimeoutMs,
    keepAliveTimeout: o.keepAliveTimeoutMs,
    connectionTimeout: 0,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    requestIdHeader: false,
    // Errors Fastify raises before routing (a URL that does not decode) are our error document too: a request id, nosniff.
    frameworkErrors: (error, req, reply) => {
      const status = error.statusCode ?? 400;
      const code = error.code === 'FST_ERR_BAD_URL' ? 'serve/bad-url' : status >= 500 ? 'serve/internal' : 'serve/bad-request';
      const hint = error.code === 'FST_ERR_BAD_URL' ? 'percent-encode the path as UTF-8 (see /openapi.json for the routes)' : 'see docs/serve.md for what this route takes';
      void reply.header('x-request-id', req.id).header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer').header('cache-control', 'no-store');
      void refuse(req, reply, status, code, escapeDisplay(error.message).text, hint);
    },
    genReqId: () => `${prefix}-${(++counter).toString(36)}`,
    http: { headersTimeout: o.headersTimeoutMs, requestTimeout: o.requestTimeoutMs, connectionsCheckingInterval: o.connectionsCheckingIntervalMs ?? 1000 },
    // Requests are checked exactly as sent: no type coercion, no silently dropped fields, no defaults.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } },
  });
  // A connection that sends nothing is closed after the headers' time whatever Node's own
  // check does (some Node 20 releases left such connections open): Node destroys a socket
  // whose timeout passes with no request on it. Once a request starts, its own timeouts rule.
  app.server.on('connection', (socket: Socket) => socket.setTimeout(o.headersTimeoutMs));
  app.server.on('request', (req: IncomingMessage) => req.socket.setTimeout(0));
  // Every handler sends rendered text; the response schemas are documentation (and held to it by the tests).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  // JSON only: any other body (Fastify reads text/plain by default) is 415.
  app.removeAllContentTypeParsers();
  // A JSON body is kept as sent: a PAI request's findings point at its own lines, and equal bodies share cached answers.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    (req as unknown as { rawBody?: string }).rawBody = text;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      const err = new Error(`the body is not JSON: ${(e as Error).message}`) as FastifyError;
      err.statusCode = 400;
      (err as { code: string }).code = 'serve/bad-json';
      done(err, undefined);
      return;
    }
    // Bounded here, before anything walks it: a body nested thousands deep overflowed the stack handing it to the engine thread.
    const problem = bodyProblem(text, value);
    if (problem) {
      const err = new Error(problem.message) as FastifyError & { finding?: Finding };
      err.statusCode = 400;
      (err as { code: string }).code = problem.code;
      err.finding = problem;
      done(err, undefined);
      return;
    }
    done(null, value);
  });

  // A Kubernetes manifest may come as YAML (POST /v1/whatif/kubernetes): kept as text, read by that route alone (any other route's schema refuses a string).
  app.addContentTypeParser(['application/yaml', 'application/x-yaml', 'text/yaml'], { parseAs: 'string' }, (req, body, done) => {
    (req as unknown as { rawBody?: string }).rawBody = body as string;
    done(null, body);
  });

  app.addHook('onRequest', (req, _reply, done) => {
    (req as unknown as { started: number }).started = performance.now();
    done();
  });
  app.addHook('onSend', async (req, reply, payload) => {
    void reply.header('x-request-id', req.id);
    void reply.header('x-content-type-options', 'nosniff');
    void reply.header('referrer-policy', 'no-referrer');
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('text/html')) void reply.header('content-security-policy', HTML_POLICY);
    const route = req.routeOptions.url;
    if (req.url.startsWith('/v1/') || route?.startsWith('/v1/') || route === '/metrics' || route === '/readyz') void reply.header('cache-control', 'no-store');
    return payload;
  });
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    const seconds = (performance.now() - ((req as unknown as { started?: number }).started ?? performance.now())) / 1000;
    o.metrics.requests.inc({ method: req.method, route, status: String(reply.statusCode) });
    o.metrics.latency.observe({ method: req.method, route }, seconds);
    if (route === '/livez' || route === '/readyz' || route === '/metrics') return;
    const n = noteOf(req);
    const line = {
      reqId: req.id,
      method: req.method,
      route,
      url: escapeDisplay(req.url).text,
      status: reply.statusCode,
      ms: Math.round(seconds * 1e4) / 10,
      ...(n.identity?.user !== undefined ? { user: escapeDisplay(n.identity.user).text } : {}),
      ...(n.identity?.admin ? { admin: true } : {}),
      ...(n.version ? { version: n.version } : {}),
      ...(n.decisions?.length ? { decisions: n.decisions } : {}),
      ...(n.cache ? { cache: n.cache } : {}),
      ...(n.code ? { code: n.code } : {}),
      ...(n.error ? { error: escapeDisplay(n.error).text } : {}),
    };
    if (reply.statusCode >= 500) o.log.error(line, 'request failed');
    else o.log.info(line, 'request');
  });

  app.setErrorHandler((error: FastifyError & { finding?: Finding }, req: FastifyRequest, reply: FastifyReply) => {
    if (error.finding) {
      // A body past its bounds: a WhatIfReport with the one finding, as an invalid job's findings come back.
      noteOf(req).code = error.finding.code;
      return reply
        .code(400)
        .type('application/json; charset=utf-8')
        .send(documentJson(report('WhatIfReport', { findings: [error.finding], answers: [] })));
    }
    if (error.validation && error.validation.length > 0) {
      const v = error.validation[0]!;
      const params = v.params as { missingProperty?: string; additionalProperty?: string };
      const path = fieldPath(v.instancePath, params.missingProperty ?? params.additionalProperty);
      return refuse(req, reply, 400, 'serve/bad-request', escapeDisplay(error.message).text, 'see docs/serve.md or /openapi.json for what this route takes', path);
    }
    const status = error.statusCode ?? 500;
    if (status === 413) return refuse(req, reply, 413, 'serve/body-too-large', `the body is over ${o.bodyLimit} bytes`, 'send a smaller request (at most 100 jobs in submits)');
    if (status === 415) return refuse(req, reply, 415, 'serve/unsupported-media-type', 'the body must be application/json', 'send Content-Type: application/json');
    if (error.code === 'serve/bad-json' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return refuse(req, reply, 400, 'serve/bad-json', escapeDisplay(error.message).text, 'send a JSON object');
    // @fastify/static refuses a path outside the web app's folder (an encoded `..`) with 403.
    if (status === 403) return refuse(req, reply, 403, 'serve/forbidden-path', 'that path is outside the web app', 'ask for a file the web app serves, or a /v1 route (see /openapi.json)');
    if (status < 500) return refuse(req, reply, status, 'serve/bad-request', escapeDisplay(error.message).text, 'see docs/serve.md for what this route takes');
    noteOf(req).error = error.stack ?? error.message;
    return refuse(req, reply, 500, 'serve/internal', `the request failed (request ${req.id})`, 'this is a bug in Quotient; the server log has the details under the request id');
  });
  app.setNotFoundHandler((req, reply) => refuse(req, reply, 404, 'serve/not-found', `no route ${req.method} ${escapeDisplay(req.url.split('?')[0] ?? '').text}`, 'see /openapi.json for the routes'));

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Quotient', version: '0.1.0', description: 'What-if answers and listings of a GPU quota policy, as the caller may see them (docs/serve.md).' },
      components: { schemas: { JobSubmit: jobSubmitSchema() }, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' }, proxyUser: { type: 'apiKey', in: 'header', name: 'X-Remote-User' } } },
    },
  });

  registerV1(app, o);

  app.get('/livez', { schema: { summary: 'The process runs', tags: ['operations'] } }, async (req, reply) => reply.type('application/json; charset=utf-8').send('{"status":"ok"}\n'));
  app.get('/readyz', { schema: { summary: 'A valid policy is loaded and the server is not shutting down (503 otherwise)', tags: ['operations'] } }, async (req, reply) => {
    const ready = o.live.current !== undefined && !o.draining();
    o.metrics.ready.set(ready ? 1 : 0);
    return reply
      .code(ready ? 200 : 503)
      .type('application/json; charset=utf-8')
      .send(`${JSON.stringify({ status: ready ? 'ready' : o.draining() ? 'draining' : 'loading', version: o.live.current?.version ?? null })}\n`);
  });
  app.get('/metrics', { schema: { summary: 'Prometheus metrics, every name quotient_*', tags: ['operations'] } }, async (req, reply) => {
    o.metrics.ready.set(o.live.current !== undefined && !o.draining() ? 1 : 0);
    await refreshShares(o);
    return reply.type(o.metrics.registry.contentType).send(await o.metrics.registry.metrics());
  });
  app.get('/openapi.json', { schema: { hide: true } }, async (req, reply) => reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger(), null, 2)));

  const web = webAppFolder(o.webRoot);
  if (web) await app.register(fastifyStatic, { root: web, prefix: '/', index: 'index.html', cacheControl: true, maxAge: 0, schemaHide: true });
  else app.get('/', { schema: { hide: true } }, async (req, reply) => reply.type('text/html; charset=utf-8').send(PLACEHOLDER_PAGE));
  return app;
}

/** `submits[3].x` from ajv's `/submits/3` and a missing or extra property. */
function fieldPath(instancePath: string, property: string | undefined): string {
  let out = '';
  for (const seg of instancePath.split('/').filter((s) => s !== '')) out += /^\d+$/.test(seg) ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  if (property !== undefined) out += out === '' ? property : `.${property}`;
  return escapeDisplay(out).text;
}

/**
 * The share gauge read at scrape time from the served version's quota view (the same
 * numbers as GET /v1/quotas, computed on its engine thread): nothing served, no series.
 * A view that fails leaves the gauge empty rather than failing the scrape.
 */
async function refreshShares(o: AppOptions): Promise<void> {
  const thread = o.live.current;
  if (!thread) return o.metrics.shares([]);
  const r = await thread.request({ op: 'quotas', caller: { admin: true } }, o.answerTimeoutMs);
  if ('error' in r || r.status !== 200) return o.metrics.shares([]);
  o.metrics.shares((JSON.parse(r.text) as { quotas: Array<{ name: string; fairShare?: { weightedShare: number | string; weight: number } | null }> }).quotas);
}
