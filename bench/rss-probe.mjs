/**
 * Preloaded into every benchmark child by `bench/run.ts` (`node --import`): at exit it
 * writes the process's peak resident set size (getrusage's maxRSS, in KiB, which counts
 * worker threads too) to the file named by QUOTIENT_BENCH_RSS_FILE. A file, not stderr,
 * so the figure survives a benchmark that prints a lot or exits through an error.
 *
 * Plain JavaScript, not TypeScript: worker threads inherit the `--import` of their
 * process, and a worker cannot load a .ts file (B5's Piscina workers failed with
 * ERR_UNKNOWN_FILE_EXTENSION when this was rss-probe.ts).
 */
import { writeFileSync } from 'node:fs';

const target = process.env.QUOTIENT_BENCH_RSS_FILE;
if (target) {
  process.on('exit', () => {
    writeFileSync(target, String(process.resourceUsage().maxRSS));
  });
}
