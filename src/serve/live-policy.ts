/**
 * The policy being served, kept live (docs/serve.md "Reload"). The files are watched
 * (fs.watch, and a poll of their sizes and times that also sees what fs.watch misses, as
 * a ConfigMap's symbolic-link swap); the snapshot may come from a command run on an
 * interval (`kubectl get nodes,pods -A -o json`, read as `quotient import kubectl` reads
 * it). A change is read and hashed on this thread (a version is the SHA-256 of the files
 * read); a new version is opened on a new engine thread, off the request path, and
 * swapped in only once it opened without errors. A version that does not open leaves the
 * last good one serving, and its findings are shown (status, metrics, log). Loads never
 * overlap: a change seen during a load is looked at once that load is done.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { QuotientError, type Finding } from '../errors.js';
import { importKubectl } from '../interop/import-kubectl.js';
import { DEFAULT_PRIORITY_MAP, parsePriorityMap } from '../interop/priority-map.js';
import { clusterYaml } from '../interop/write-cluster.js';
import { escapeDisplay } from '../model/display-text.js';
import { processPolicyCacheDir } from '../engine/cache-folder.js';
import { formatBytes } from '../policy/parse/limits.js';
import { readBundles, type Bundle } from '../policy/parse/read-files.js';
import type { InputFile } from '../policy/parse/source-doc.js';
import type { NamedJob } from './engine-messages.js';
import { EngineThread } from './engine-thread.js';
import type { ServeMetrics } from './metrics.js';

/** Where the snapshot comes from, besides the policy's files. */
export interface SnapshotCommandOptions {
  /** Run with `sh -c`; its output is kubectl JSON (a List) or a Cluster document. */
  command: string;
  everyMs: number;
  timeoutMs: number;
  /** The most output read. */
  maxBytes: number;
}

/** The options of a LivePolicy. */
export interface LivePolicyOptions {
  paths: string[];
  backend: 'wasm' | 'reference';
  /** How often the files' sizes and times are looked at (0: never; fs.watch still triggers). */
  pollMs: number;
  /** Watch the files with fs.watch (default true). */
  watch?: boolean;
  snapshot?: SnapshotCommandOptions;
  metrics: ServeMetrics;
  log: Logger;
  /** How often the files are read and hashed (ms; default every 5th poll, 10 s without a poll; 0: never). */
  hashEveryMs?: number;
  /** Called after a new version is swapped in. */
  onSwap?: (thread: EngineThread) => void;
}

/** The latest load attempt. */
export interface LoadAttempt {
  /** The version the files made (null when they could not be read). */
  version: string | null;
  /** ISO 8601. */
  at: string;
  ok: boolean;
  /** What failed: reading the files, the snapshot command, or opening the policy. */
  stage?: 'read' | 'snapshot-command' | 'open';
  findings: Finding[];
  /** Jobs the failed version's files name, for scrubbing its findings. */
  jobs: NamedJob[];
}

/** The files are hashed on every this many polls (10 s at the default 2 s poll). */
const HASH_EVERY_POLLS = 5;
const DEFAULT_HASH_EVERY_MS = 10_000;

/** The file name the snapshot command's output is read as (a flag-like name: its findings have no line). */
export const SNAPSHOT_FILE = '--snapshot-command';

/** The kubectl import's settings: `quotient import kubectl`'s defaults (docs/interop.md). */
const KUBECTL = {
  gpuResource: 'nvidia.com/gpu',
  modelLabel: 'nvidia.com/gpu.product',
  pool: 'gpu-pool',
  quotaFrom: ['kueue', 'koordinator', 'namespace'] as const,
  workspaceFrom: ['namespace'] as const,
  moduleLabel: 'quotient.dev/module',
  module: 'DLC' as const,
};

/** The version of a set of files: 16 hex digits of the SHA-256 over their names and contents, in order. */
export function versionOf(files: readonly InputFile[]): string {
  const h = createHash('sha256');
  for (const f of files) h.update(`${f.path}\0${f.digest ?? createHash('sha256').update(f.text, 'utf8').digest('hex')}\n`);
  return h.digest('hex').slice(0, 16);
}

/** The live policy. */
export class LivePolicy {
  /** The engine thread of the version being served. */
  current?: EngineThread;
  lastLoad?: LoadAttempt;
  /** The policy's label (what answers call it), once read. */
  label?: string;
  /** When the snapshot command last ran successfully (ISO 8601). */
  snapshotCheckedAt?: string;
  private loading?: Promise<void>;
  private again = false;
  private stopped = false;
  private fingerprint = '';
  private snapshotFile?: InputFile;
  private snapshotHash?: string;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly watchers: FSWatcher[] = [];

  constructor(private readonly options: LivePolicyOptions) {}

  /**
   * Reads the paths once: one that cannot be read, or paths that make more than one
   * policy, are a QuotientError (the server does not start). A policy with errors is not:
   * the server starts unready and waits for a good edit.
   */
  checkPaths(): void {
    this.fingerprint = this.fingerprintNow();
    this.label = this.read().label;
  }

  /** Opens the first version (running the snapshot command first), then watches for changes. */
  async start(): Promise<void> {
    if (this.options.snapshot) await this.runSnapshot();
    await this.check();
    this.watchFiles();
    if (this.options.snapshot) {
      const every = this.options.snapshot.everyMs;
      this.timers.push(setInterval(() => void this.runSnapshot().then((changed) => (changed ? this.check() : undefined)), every));
    }
  }

  /** Stops watching, and ends the engine threads. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    for (const w of this.watchers) w.close();
    await this.loading;
    await this.current?.terminate();
    this.current = undefined;
  }

  /** Looks at the files (and the snapshot) again and loads a new version if they changed. */
  check(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    this.loading = (async () => {
      try {
        do {
          this.again = false;
          await this.loadOnce();
        } while (this.again && !this.stopped);
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  private read(): Bundle {
    const bundles = readBundles(this.options.paths);
    if (bundles.length !== 1)
      throw new QuotientError(
        'serve/several-policies',
        `${this.options.paths.join(' ')} make ${bundles.length} policies (${bundles.map((b) => b.label).join(', ')}); a server answers from one`,
        'name one policy: a folder that holds its YAML files (a folder of folders is one policy per subfolder), or the files of one policy',
      );
    return bundles[0]!;
  }

  private async loadOnce(): Promise<void> {
    if (this.stopped) return;
    let bundle: Bundle;
    try {
      this.fingerprint = this.fingerprintNow();
      bundle = this.read();
    } catch (e) {
      this.failed({ version: null, stage: 'read', findings: [errorFinding(e, this.options.paths[0] ?? '', 'serve/read-failed')], jobs: [] });
      return;
    }
    this.label = bundle.label;
    const files = this.snapshotFile ? [...bundle.files, this.snapshotFile] : bundle.files;
    const version = versionOf(files);
    if (version === this.current?.version) {
      // Back to the version serving (a broken edit undone): that is the latest attempt now, and it is good.
      // A failed snapshot run is not undone by the files: only a good run clears it (runSnapshot).
      if (this.lastLoad && !this.lastLoad.ok && this.lastLoad.stage !== 'snapshot-command') this.backToServing();
      return;
    }
    // The same broken content again (a poll, a touch): nothing new to try.
    if (this.lastLoad && !this.lastLoad.ok && this.lastLoad.version === version) return;
    const started = performance.now();
    const cache = processPolicyCacheDir();
    const result = await EngineThread.start({ files, label: bundle.label, version, backend: this.options.backend, now: Date.now(), ...(cache ? { cache } : {}) });
    this.options.metrics.loadSeconds.observe((performance.now() - started) / 1000);
    if ('failed' in result) {
      const f = result.failed;
      const findings = f.error
        ? [...f.findings, { file: bundle.label, line: 0, column: 0, code: f.error.code, severity: 'error' as const, path: '', message: f.error.message, hint: f.error.hint }]
        : f.findings;
      this.failed({ version, stage: 'open', findings, jobs: f.jobs });
      return;
    }
    if (this.stopped) {
      await result.thread.terminate();
      return;
    }
    const thread = result.thread;
    const old = this.current;
    this.current = thread;
    this.lastLoad = { version, at: new Date().toISOString(), ok: true, findings: thread.info.findings, jobs: [] };
    const m = this.options.metrics;
    m.reloads.inc();
    m.lastLoadOk.set(1);
    m.serving(version);
    this.options.onSwap?.(thread);
    this.options.log.info({ event: 'policy-loaded', version, previous: old?.version ?? null, openMs: thread.info.openMs, warnings: thread.info.findings.length }, 'policy version loaded and serving');
    thread.onExit((unexpected) => {
      if (!unexpected || this.current !== thread || this.stopped) return;
      // A crashed engine thread: nothing serves until the version is opened again.
      this.current = undefined;
      this.options.log.error({ event: 'engine-exited', version }, 'the engine thread stopped; opening the policy again');
      void this.check();
    });
    old?.retire();
  }

  /** The latest attempt gave the version serving: good again, in the status and the metric. */
  private backToServing(): void {
    const t = this.current;
    if (!t) return;
    this.lastLoad = { version: t.version, at: new Date().toISOString(), ok: true, findings: t.info.findings, jobs: [] };
    this.options.metrics.lastLoadOk.set(1);
  }

  private failed(attempt: Omit<LoadAttempt, 'at' | 'ok'>): void {
    this.lastLoad = { ...attempt, at: new Date().toISOString(), ok: false };
    const m = this.options.metrics;
    m.loadFailures.inc({ stage: attempt.stage ?? 'open' });
    m.lastLoadOk.set(0);
    const errors = attempt.findings.filter((f) => f.severity === 'error');
    this.options.log.warn(
      {
        event: 'policy-load-failed',
        stage: attempt.stage,
        version: attempt.version,
        serving: this.current?.version ?? null,
        errors: errors.length,
        first: errors.slice(0, 5).map((f) => `${escapeDisplay(f.file).text}:${f.line}:${f.column} ${f.code} ${escapeDisplay(f.message).text}`),
      },
      this.current ? 'the edit was not loaded; the last good version keeps serving' : 'the policy was not loaded; nothing serves yet',
    );
  }

  /** Runs the snapshot command; true when its output changed (and was read). */
  private async runSnapshot(): Promise<boolean> {
    const s = this.options.snapshot;
    if (!s || this.stopped) return false;
    const out = await runCommand(s.command, s.timeoutMs, s.maxBytes);
    if (out.error !== undefined) {
      this.failed({
        version: null,
        stage: 'snapshot-command',
        findings: [commandFinding('serve/snapshot-command-failed', `the snapshot command failed: ${out.error}`, 'run the command by hand; the last good snapshot keeps serving')],
        jobs: [],
      });
      return false;
    }
    if (out.stdout.trim() === '') {
      this.failed({
        version: null,
        stage: 'snapshot-command',
        findings: [
          commandFinding(
            'serve/snapshot-command-empty',
            'the snapshot command printed nothing',
            "it must print kubectl's JSON (kubectl get nodes,pods -A -o json) or a Cluster document; the last good snapshot keeps serving",
          ),
        ],
        jobs: [],
      });
      return false;
    }
    const hash = createHash('sha256').update(out.stdout).digest('hex');
    this.snapshotCheckedAt = new Date().toISOString();
    if (hash === this.snapshotHash) {
      // The snapshot serving, read again after a failed run: the latest attempt is good again.
      if (this.lastLoad?.stage === 'snapshot-command' && !this.lastLoad.ok) this.backToServing();
      return false;
    }
    let text = out.stdout;
    if (/^\s*[{[]/.test(out.stdout)) {
      // kubectl's JSON: read as `quotient import kubectl` reads it.
      const imported = importKubectl(
        { path: SNAPSHOT_FILE, text: out.stdout },
        { ...KUBECTL, quotaFrom: [...KUBECTL.quotaFrom], workspaceFrom: [...KUBECTL.workspaceFrom], priorityMap: parsePriorityMap(DEFAULT_PRIORITY_MAP).bands! },
      );
      if (imported.report.failed) {
        this.failed({ version: null, stage: 'snapshot-command', findings: imported.report.findings, jobs: [] });
        return false;
      }
      text = clusterYaml('imported', Date.now(), `the snapshot command (${s.command})`, imported.nodes, imported.jobs);
    }
    this.snapshotFile = { path: SNAPSHOT_FILE, text, beside: true };
    this.snapshotHash = hash;
    return true;
  }

  /** The sizes, times and inodes of every file under the paths: cheap to compare, changed by any edit. */
  private fingerprintNow(): string {
    const parts: string[] = [];
    const walk = (p: string, depth: number): void => {
      let st;
      try {
        st = statSync(p);
      } catch (e) {
        parts.push(`${p}!${(e as NodeJS.ErrnoException).code ?? 'error'}`);
        return;
      }
      if (st.isDirectory() && depth < 32) {
        let names: string[] = [];
        try {
          names = readdirSync(p).sort();
        } catch {
          parts.push(`${p}!unreadable`);
        }
        for (const n of names) walk(join(p, n), depth + 1);
      } else parts.push(`${p}:${st.size}:${st.mtimeMs}:${st.ino}`);
    };
    for (const p of this.options.paths) walk(p, 0);
    return parts.join('\n');
  }

  private watchFiles(): void {
    const poll = (): void => {
      if (this.stopped) return;
      const fp = this.fingerprintNow();
      if (fp !== this.fingerprint) void this.check();
    };
    if (this.options.pollMs > 0) this.timers.push(setInterval(poll, this.options.pollMs));
    // Sizes and times miss an edit that keeps both (`touch -r`, `cp -p`, `rsync -t`): the files are
    // read and hashed on this schedule too, and a content that is not the version serving is loaded.
    const every = this.options.hashEveryMs ?? (this.options.pollMs > 0 ? this.options.pollMs * HASH_EVERY_POLLS : DEFAULT_HASH_EVERY_MS);
    if (every > 0)
      this.timers.push(
        setInterval(() => {
          if (!this.stopped && !this.loading) void this.check();
        }, every),
      );
    if (this.options.watch === false) return;
    let pending: NodeJS.Timeout | undefined;
    const soon = (): void => {
      if (pending) clearTimeout(pending);
      // An editor writes a file in several steps: look once they are done.
      pending = setTimeout(poll, 100);
    };
    for (const p of this.options.paths) {
      try {
        const dir = statSync(p).isDirectory();
        const w = watch(dir ? p : dirname(p), { recursive: dir, persistent: false }, soon);
        w.on('error', () => w.close());
        this.watchers.push(w);
      } catch {
        // Not watchable here (some file systems): the poll still sees every change.
      }
    }
  }
}

/**
 * Runs `command` with `sh -c` in a process group of its own; its output, or why there is
 * none. On the timeout the whole group is killed (killing `sh` alone left what it started
 * running), and so it is once the output passes `maxBytes`: it is counted as it arrives,
 * never held past the bound (300 MB of output had taken 2.5 GB of memory).
 */
export function runCommand(command: string, timeoutMs: number, maxBytes: number): Promise<{ stdout: string; error?: undefined } | { error: string }> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn('/bin/sh', ['-c', command], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      resolve({ error: escapeDisplay(`it could not be started: ${(e as Error).message}`).text });
      return;
    }
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let why: string | undefined;
    const killGroup = (reason?: string): void => {
      if (reason !== undefined) why ??= reason;
      try {
        // The negative pid is the group: sh and everything it started.
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => killGroup(`it ran longer than ${timeoutMs} ms (it and every process it started were stopped)`), timeoutMs);
    child.stdout.on('data', (c: Buffer) => {
      if (why !== undefined) return;
      outBytes += c.length;
      if (outBytes > maxBytes) {
        out.length = 0;
        killGroup(`its output is over ${formatBytes(maxBytes)} (--snapshot-max-bytes)`);
        return;
      }
      out.push(c);
    });
    child.stderr.on('data', (c: Buffer) => {
      // The first line is all a finding quotes: keep a little.
      if (err.length < 4096) err += c.toString('utf8');
    });
    child.on('error', (e) => killGroup(`it could not be started: ${e.message}`));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Whatever the command left behind in its group goes with it.
      killGroup();
      if (why !== undefined) return resolve({ error: escapeDisplay(why).text });
      if (code !== 0) return resolve({ error: escapeDisplay(`exit ${code ?? signal ?? '?'}${err ? `: ${err.trim().split('\n')[0]}` : ''}`).text });
      resolve({ stdout: Buffer.concat(out).toString('utf8') });
    });
  });
}

function commandFinding(code: string, message: string, hint: string): Finding {
  return { file: SNAPSHOT_FILE, line: 0, column: 0, code, severity: 'error', path: '', message, hint };
}

/** A thrown error as a finding of the load attempt. */
function errorFinding(e: unknown, file: string, fallback: string): Finding {
  const q = e instanceof QuotientError ? e : undefined;
  return { file, line: 0, column: 0, code: q?.code ?? fallback, severity: 'error', path: '', message: (e as Error)?.message ?? String(e), hint: q?.hint ?? 'check the files' };
}
