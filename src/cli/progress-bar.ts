/**
 * Progress of a long run on stderr (`simulate`, `risk --horizon`). Nothing for the first
 * second, so a quick run prints nothing. On a terminal, a bar redrawn in place
 * (cli-progress, no colours). Not on a terminal (a CI log, a file): a plain line every
 * `everyMs` with no cursor moves and no escapes, so a log shows the run is alive and
 * stays readable; none at all when `quietOffTerminal` (a document piped to a program, as
 * `simulate --json` does). There is no colour to take out for NO_COLOR.
 */
import { SingleBar } from 'cli-progress';
import { display } from '../model/display-text.js';
import { log } from './output.js';

/** How a progress display behaves; the defaults are the CLI's. */
export interface ProgressOptions {
  /** What is counted, after "done/total" (`jobs arrived`). */
  unit: string;
  /** The bar's first words (`simulating`). */
  label: string;
  /** Print nothing when stderr is not a terminal. */
  quietOffTerminal?: boolean;
  /** Whether stderr is a terminal (default: process.stderr.isTTY). */
  tty?: boolean;
  /** Nothing before this many ms (default 1,000). */
  afterMs?: number;
  /** Off a terminal, a line at most this often (default 10,000 ms). */
  everyMs?: number;
  /** The clock (tests). */
  now?: () => number;
  /** Off a terminal, where a line goes (default: `log`, stderr). */
  writeLine?: (line: string) => void;
}

/** A progress display: `update(done, total, note?)` as work goes, `stop()` once it ends (on every path). */
export interface Progress {
  update: (done: number, total: number, note?: string) => void;
  stop: () => void;
}

/** A progress display on stderr, silent for the first second. */
export function progressBar(options: ProgressOptions): Progress {
  const now = options.now ?? Date.now;
  const started = now();
  const tty = options.tty ?? process.stderr.isTTY === true;
  const afterMs = options.afterMs ?? 1000;
  if (!tty) {
    if (options.quietOffTerminal) return { update: () => {}, stop: () => {} };
    const everyMs = options.everyMs ?? 10_000;
    const write = options.writeLine ?? ((line: string) => log(display`${line}`));
    let last = -Infinity;
    return {
      update: (done, total, note) => {
        const t = now();
        if (t - started < afterMs || t - last < everyMs) return;
        last = t;
        const pct = total > 0 ? Math.floor((done / total) * 100) : 0;
        write(`${options.label}: ${note ? `${note}, ` : ''}${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} ${options.unit} (${pct} %), ${Math.round((t - started) / 1000)} s`);
      },
      stop: () => {},
    };
  }
  let bar: SingleBar | undefined;
  return {
    update: (done, total, note) => {
      if (!bar && now() - started < afterMs) return;
      const payload = { note: note ? ` ${note} |` : '' };
      if (!bar) {
        bar = new SingleBar({
          stream: process.stderr,
          format: `${options.label}{note} [{bar}] {percentage}% | {value}/{total} ${options.unit} | {duration}s`,
          hideCursor: true,
          clearOnComplete: true,
        });
        bar.start(total, done, payload);
      } else {
        if (bar.getTotal() !== total) bar.setTotal(total);
        bar.update(done, payload);
      }
    },
    stop: () => bar?.stop(),
  };
}
