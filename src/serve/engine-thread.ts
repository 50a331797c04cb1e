/**
 * The HTTP thread's handle on one engine thread (engine-worker.ts): start it with a
 * version's files, send it requests, and retire it once a newer version serves — after
 * the requests already sent to it are answered, so none fails and none mixes versions.
 */
import { Worker } from 'node:worker_threads';
import { resolveWorkerFile } from '../engine/worker-file.js';
import type { EngineInit, EngineReply, EngineRequest, LoadedMessage, VersionInfo } from './engine-messages.js';

/** A request without its id (the thread gives it one). */
export type EngineCall = EngineRequest extends infer R ? (R extends EngineRequest ? Omit<R, 'id'> : never) : never;

/** What starting a thread gave: a thread serving the version, or why there is none. */
export type Started = { thread: EngineThread } | { failed: Extract<LoadedMessage, { ok: false }> };

/** A start that failed for a reason outside the policy's files (the build, a bug). */
function failedStart(code: string, message: string, hint: string): Started {
  return { failed: { type: 'loaded', ok: false, findings: [], jobs: [], error: { code, message, hint } } };
}

/** One engine thread. */
export class EngineThread {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: EngineReply) => void; timer?: NodeJS.Timeout }>();
  private retiring = false;
  private exited = false;
  private onGone: Array<(unexpected: boolean) => void> = [];

  private constructor(
    private readonly worker: Worker,
    readonly info: VersionInfo,
  ) {
    worker.on('message', (m: EngineReply) => this.settle(m));
    worker.on('error', () => this.fail('the engine thread failed'));
    worker.on('exit', () => {
      this.exited = true;
      this.fail('the engine thread stopped');
      for (const f of this.onGone) f(!this.retiring);
    });
  }

  /** Starts an engine thread on `init` and waits until its Session is open (or refused). */
  static start(init: EngineInit): Promise<Started> {
    return new Promise((resolve) => {
      let worker: Worker;
      try {
        worker = new Worker(resolveWorkerFile('serve/engine-worker'), { workerData: init });
      } catch (e) {
        resolve(failedStart('serve/engine-start', (e as Error).message, 'run `npm run build`: the engine thread runs from dist/'));
        return;
      }
      const onError = (e: Error): void => {
        cleanup();
        void worker.terminate();
        resolve(failedStart('serve/engine-failed', e.message, 'this is a bug in Quotient, not in the policy; the log has the details'));
      };
      const onExit = (): void => onError(new Error('the engine thread stopped before the policy was opened'));
      const onMessage = (m: LoadedMessage): void => {
        cleanup();
        if (m.ok) resolve({ thread: new EngineThread(worker, m.info) });
        else {
          void worker.terminate();
          resolve({ failed: m });
        }
      };
      const cleanup = (): void => {
        worker.off('error', onError);
        worker.off('exit', onExit);
        worker.off('message', onMessage);
      };
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.once('message', onMessage);
    });
  }

  get version(): string {
    return this.info.version;
  }

  /** Requests sent and not yet answered. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Calls `f` when the thread is gone; `unexpected` when it was not retired (a crash). */
  onExit(f: (unexpected: boolean) => void): void {
    this.onGone.push(f);
  }

  /**
   * Sends a request; the reply comes when the thread answers, or a 504 after `timeoutMs`
   * (the thread goes on with it, and its late reply is dropped).
   */
  request(call: EngineCall, timeoutMs: number): Promise<EngineReply> {
    const id = this.nextId++;
    if (this.exited) return Promise.resolve({ type: 'reply', id, status: 500, error: 'the engine thread has stopped' });
    return new Promise((resolve) => {
      const entry: { resolve: (r: EngineReply) => void; timer?: NodeJS.Timeout } = { resolve };
      if (timeoutMs > 0)
        entry.timer = setTimeout(() => {
          this.pending.delete(id);
          resolve({ type: 'reply', id, status: 504, text: '', decisions: [] });
          this.maybeEnd();
        }, timeoutMs);
      this.pending.set(id, entry);
      const message: EngineRequest = { ...call, id };
      try {
        this.worker.postMessage(message);
      } catch (e) {
        // Not sent (a value the structured clone cannot copy): its slot is freed now, not at the answer timeout.
        this.pending.delete(id);
        if (entry.timer) clearTimeout(entry.timer);
        resolve({ type: 'reply', id, status: 500, error: `the request could not be handed to the engine thread: ${(e as Error).message}` });
        this.maybeEnd();
      }
    });
  }

  /** Ends the thread once every request sent to it is answered. */
  retire(): void {
    this.retiring = true;
    this.maybeEnd();
  }

  /** Ends the thread now. */
  async terminate(): Promise<void> {
    this.retiring = true;
    await this.worker.terminate();
  }

  private settle(m: EngineReply): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (p.timer) clearTimeout(p.timer);
    p.resolve(m);
    this.maybeEnd();
  }

  private fail(error: string): void {
    for (const [id, p] of this.pending) {
      if (p.timer) clearTimeout(p.timer);
      p.resolve({ type: 'reply', id, status: 500, error });
    }
    this.pending.clear();
  }

  private maybeEnd(): void {
    if (this.retiring && this.pending.size === 0 && !this.exited) void this.worker.terminate();
  }
}
