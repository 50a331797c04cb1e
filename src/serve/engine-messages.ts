/**
 * The messages between the server's HTTP thread and an engine thread (engine-worker.ts),
 * typed as Piscina's are. One engine thread holds one policy version: it opens the
 * Session once, then answers every request sent to it and renders the response body, so
 * the HTTP thread only routes, caches and writes bytes, and a reload never blocks it.
 */
import type { Finding } from '../errors.js';
import type { InputFile } from '../policy/parse/source-doc.js';

/** What an engine thread is started with (its workerData). */
export interface EngineInit {
  /** The policy's files, as read when the version was made (and the snapshot command's output, marked `beside`). */
  files: InputFile[];
  /** The policy's label, as answers name it (`policy`). */
  label: string;
  version: string;
  backend: 'wasm' | 'reference';
  /** The time a snapshot without `at` is taken at (epoch ms). */
  now: number;
  /** The compiled-policy cache's folder (engine/policy-cache.ts), when the server's process uses one: reopening unchanged files reads it. */
  cache?: string;
}

/** A job named in a policy's files, read leniently: what a finding about it may not show another team. */
export interface NamedJob {
  name: string;
  workspace: string;
  quota: string;
  /** Where its entry is: findings located there are about it (engine/views/findings-view.ts). */
  at?: { file: string; path: string };
}

/** What a loaded version says of itself. */
export interface VersionInfo {
  version: string;
  policy: string;
  /** ISO 8601. */
  loadedAt: string;
  snapshot: { name: string; at: string } | null;
  /** The load's warnings (errors stop a version from existing). */
  findings: Finding[];
  /** How long opening the Session took, in ms. */
  openMs: number;
}

/** The engine thread's first message: the Session opened, or the findings that stopped it. */
export type LoadedMessage =
  | { type: 'loaded'; ok: true; info: VersionInfo }
  | {
      type: 'loaded';
      ok: false;
      findings: Finding[];
      /** Jobs the files name (read leniently), so findings can be scrubbed for callers who may not see them. */
      jobs: NamedJob[];
      /** Set when opening failed for a reason outside the files (the kernel build, a bug). */
      error?: { code: string; message: string; hint: string };
    };

/** Who asks: a user (seen as SEMANTICS 10 lets them see) or an administrator (`view` undefined: everything). */
export interface Caller {
  /** The user whose view applies; undefined for an administrator's full view. */
  view?: string;
  /** The authenticated user, if any (for `mine`, and the status's viewer). */
  user?: string;
  admin: boolean;
}

/** A request to an engine thread. */
export type EngineRequest = { id: number; caller: Caller } & (
  | { op: 'whatif'; body: WhatIfBody }
  | { op: 'pai'; body: string; estimate: boolean }
  | { op: 'kubernetes'; body: string; estimate: boolean; namespace?: string }
  | { op: 'quotas' }
  | { op: 'nodes'; pool?: string }
  | { op: 'jobs'; quota?: string; workspace?: string; mine: boolean }
  | { op: 'explain'; job: string }
  | { op: 'status'; lastLoad?: { findings: Finding[]; jobs: NamedJob[] } }
);

/** The body of `POST /v1/whatif`, after its schema. */
export interface WhatIfBody {
  submit?: unknown;
  submits?: unknown[];
  query?: string;
  estimate?: boolean;
}

/** An engine thread's answer to one request: the response body, rendered. */
export type EngineReply =
  | {
      type: 'reply';
      id: number;
      status: number;
      /** The JSON text of the response. */
      text: string;
      /** The decisions of the answers, for the log and the metrics. */
      decisions: string[];
    }
  | { type: 'reply'; id: number; status: 500; error: string };

/** Scrubbed findings of the status (the version's and the last load's). */
export interface StatusFindings {
  findings: Finding[];
  lastLoad?: Finding[];
  workspaces: string[];
}
