/**
 * What a request's handling learned, for its one log line and its metrics (app.ts's
 * onResponse hook): who asked, which version answered, the decisions, the cache.
 */
import type { FastifyRequest } from 'fastify';
import type { Identity } from './auth.js';

/** One request's notes. */
export interface RequestNote {
  identity?: Identity;
  version?: string;
  decisions?: string[];
  cache?: 'hit' | 'miss';
  /** The error code of a refused request. */
  code?: string;
  /** What went wrong inside, for the log only (never the response). */
  error?: string;
}

const notes = new WeakMap<FastifyRequest, RequestNote>();

/** The notes of `req`, made on first use. */
export function noteOf(req: FastifyRequest): RequestNote {
  let n = notes.get(req);
  if (!n) notes.set(req, (n = {}));
  return n;
}
