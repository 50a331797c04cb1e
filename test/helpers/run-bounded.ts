/**
 * Runs the built CLI under a time and a memory budget, for properties that feed it
 * hostile input: the process gets a V8 heap limit (`--max-old-space-size`), its resident
 * set is read from /proc/PID/status while it runs, and it is killed when it passes
 * either budget. What ran out is reported, never waited for.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './run-cli.js';

/** The budgets of one run. */
export interface Budget {
  /** Wall-clock time before the process is killed. */
  ms: number;
  /** Resident set size before it is killed; also the V8 heap limit given to Node. */
  rssMb: number;
}

/** How one bounded run ended. */
export interface BoundedRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The largest resident set seen (0 where /proc cannot be read). */
  maxRssMb: number;
  ms: number;
  /** Set when the run was killed for passing a budget. */
  killed?: 'time' | 'memory';
}

/** The resident set of `pid` in MiB, or 0 when /proc cannot tell. */
function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Runs `quotient ARGS` from `cwd` (default the repository root) within `budget`. */
export function runBounded(args: string[], budget: Budget, cwd = ROOT): Promise<BoundedRun> {
  const started = Date.now();
  const child = spawn(process.execPath, [`--max-old-space-size=${budget.rssMb}`, join(ROOT, 'dist/cli/main.js'), ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let maxRss = 0;
  let killed: BoundedRun['killed'];
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const kill = (why: 'time' | 'memory') => {
    killed ??= why;
    child.kill('SIGKILL');
  };
  const poll = setInterval(() => {
    if (child.pid === undefined) return;
    maxRss = Math.max(maxRss, rssMb(child.pid));
    if (maxRss > budget.rssMb) kill('memory');
  }, 50);
  const timer = setTimeout(() => kill('time'), budget.ms);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => {
      clearInterval(poll);
      clearTimeout(timer);
      resolve({ status, stdout, stderr, maxRssMb: Math.round(maxRss), ms: Date.now() - started, ...(killed ? { killed } : {}) });
    });
  });
}

/** Runs `tasks` at most `width` at a time, results in task order. */
export async function inPool<T>(tasks: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const out: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, worker));
  return out;
}

/** A stack trace, an uncaught exception, or V8 giving up: what stderr of a CLI run must never hold. */
export const CRASH = /^\s+at .+:\d+:\d+\)?$|FATAL ERROR|node:internal|Uncaught|TypeError|RangeError|ReferenceError/m;
