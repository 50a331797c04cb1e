/**
 * `quotient serve`: one process that serves one policy live (docs/serve.md). It reads
 * and opens the policy (off the request path, on an engine thread), listens, and on
 * SIGTERM or SIGINT stops being ready, finishes the requests it has, and exits 0.
 */
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { QuotientError } from '../errors.js';
import { buildApp } from './app.js';
import { Authenticator, isLoopback, type AuthMode } from './auth.js';
import { LivePolicy, type SnapshotCommandOptions } from './live-policy.js';
import { ServeMetrics } from './metrics.js';
import { ResponseCache } from './response-cache.js';

/** Everything `quotient serve` takes. */
export interface ServeOptions {
  paths: string[];
  host: string;
  /** 0 for any free port. */
  port: number;
  auth: AuthMode;
  /** Users who see everything, as administrators. */
  admins?: string[];
  /** How often the token file (--auth tokens:FILE) is looked at for changes (ms, default 1000). */
  tokenPollMs?: number;
  backend?: 'wasm' | 'reference';
  /** How often the files are looked at for changes (ms; 0: fs.watch only). */
  pollMs?: number;
  watch?: boolean;
  snapshot?: SnapshotCommandOptions;
  bodyLimit?: number;
  requestTimeoutMs?: number;
  headersTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  answerTimeoutMs?: number;
  maxInFlight?: number;
  /** The response cache's bounds. */
  cacheEntries?: number;
  cacheBytes?: number;
  /** After SIGTERM, how long /readyz fails before the server stops taking requests (ms). */
  drainDelayMs?: number;
  webRoot?: string;
  /** Where the log goes (default stderr); `level: 'silent'` for none. */
  log?: Logger;
  /** The level of the default log: info (a line per request), warn, error, silent. */
  logLevel?: string;
  /** Collect the process metrics (CPU, memory; default true). */
  processMetrics?: boolean;
}

/** A running server. */
export interface RunningServer {
  app: FastifyInstance;
  live: LivePolicy;
  metrics: ServeMetrics;
  /** `http://HOST:PORT`. */
  url: string;
  /** Settles once the first load is done (successful or not). */
  loaded: Promise<void>;
  /** /readyz fails from now on; requests are still answered. */
  drain(): void;
  /** Drains, waits for the requests in flight, closes, ends the engine threads. */
  close(): Promise<void>;
}

/** The defaults docs/serve.md lists. */
export const SERVE_DEFAULTS = {
  pollMs: 2000,
  bodyLimit: 256 * 1024,
  requestTimeoutMs: 10_000,
  headersTimeoutMs: 5_000,
  keepAliveTimeoutMs: 5_000,
  answerTimeoutMs: 30_000,
  maxInFlight: 512,
  cacheEntries: 20_000,
  cacheBytes: 64 * 1024 * 1024,
  drainDelayMs: 0,
} as const;

/** Starts a server; resolves once it listens (the policy may still be loading: /readyz says when it serves, `loaded` settles then). */
export async function startServer(o: ServeOptions): Promise<RunningServer> {
  if (o.auth.kind === 'none' && !isLoopback(o.host))
    throw new QuotientError(
      'serve/auth-none-not-loopback',
      `--auth none on ${o.host} would let anyone on the network see every team's jobs`,
      'listen on 127.0.0.1 (or ::1), or choose --auth header:X-Remote-User or --auth tokens:FILE',
    );
  // Written in the background (sonic-boom), flushed at close: a line per request must not cost a write per request.
  const log = o.log ?? pino({ level: o.logLevel ?? 'info', base: { service: 'quotient-serve' }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ dest: 2, sync: false }));
  const metrics = new ServeMetrics({ processMetrics: o.processMetrics ?? true });
  const cache = new ResponseCache(o.cacheEntries ?? SERVE_DEFAULTS.cacheEntries, o.cacheBytes ?? SERVE_DEFAULTS.cacheBytes);
  const auth = new Authenticator(o.auth, new Set(o.admins ?? []), (message) => log.warn({ event: 'tokens-not-reloaded' }, message));
  auth.watch(o.tokenPollMs ?? 1000);
  let draining = false;
  const live = new LivePolicy({
    paths: o.paths,
    backend: o.backend ?? 'wasm',
    pollMs: o.pollMs ?? SERVE_DEFAULTS.pollMs,
    ...(o.watch !== undefined ? { watch: o.watch } : {}),
    ...(o.snapshot ? { snapshot: o.snapshot } : {}),
    metrics,
    log,
    onSwap: () => cache.clear(),
  });
  const app = await buildApp({
    live,
    auth,
    cache,
    metrics,
    log,
    answerTimeoutMs: o.answerTimeoutMs ?? SERVE_DEFAULTS.answerTimeoutMs,
    maxInFlight: o.maxInFlight ?? SERVE_DEFAULTS.maxInFlight,
    ...(o.snapshot ? { snapshotCommand: o.snapshot.command } : {}),
    draining: () => draining,
    bodyLimit: o.bodyLimit ?? SERVE_DEFAULTS.bodyLimit,
    requestTimeoutMs: o.requestTimeoutMs ?? SERVE_DEFAULTS.requestTimeoutMs,
    headersTimeoutMs: o.headersTimeoutMs ?? SERVE_DEFAULTS.headersTimeoutMs,
    keepAliveTimeoutMs: o.keepAliveTimeoutMs ?? SERVE_DEFAULTS.keepAliveTimeoutMs,
    ...(o.webRoot !== undefined ? { webRoot: o.webRoot } : {}),
  });
  try {
    live.checkPaths();
    await app.listen({ host: o.host, port: o.port });
  } catch (e) {
    auth.close();
    await app.close();
    throw listenError(e, o.host, o.port);
  }
  // The first version opens while the server already answers /livez (and /readyz: not yet).
  const loaded = live.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : o.port;
  const url = `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`;
  log.info({ event: 'listening', url, auth: o.auth.kind, policy: live.label ?? null, version: live.current?.version ?? null }, 'quotient serve is listening');
  let closing: Promise<void> | undefined;
  return {
    app,
    live,
    metrics,
    url,
    loaded,
    drain: () => {
      draining = true;
    },
    close: () =>
      (closing ??= (async () => {
        draining = true;
        const delay = o.drainDelayMs ?? SERVE_DEFAULTS.drainDelayMs;
        if (delay > 0) await new Promise((r) => setTimeout(r, delay));
        await app.close();
        auth.close();
        await loaded.catch(() => undefined);
        await live.stop();
        log.info({ event: 'stopped' }, 'quotient serve stopped');
        try {
          log.flush();
        } catch {
          // Nothing written yet: nothing to flush.
        }
      })()),
  };
}

/** Why listening failed, in words (a taken port is the user's to fix, not a bug). */
function listenError(e: unknown, host: string, port: number): unknown {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE') return new QuotientError('serve/port-in-use', `port in use: another process listens on ${where}`, 'stop it, or choose another port with --listen HOST:PORT');
  if (code === 'EACCES')
    return new QuotientError('serve/port-not-allowed', `not allowed to listen on ${where}`, 'ports below 1024 need privileges: choose a port from 1024 up with --listen HOST:PORT');
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return new QuotientError('serve/bad-listen-address', `cannot listen on ${where}: no such address on this machine`, 'listen on an address of this machine, e.g. --listen 127.0.0.1:8080');
  return e;
}
