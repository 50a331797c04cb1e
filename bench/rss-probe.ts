/**
 * Preloaded into every benchmark child by `bench/run.ts` (`node --import`): at exit it
 * writes the process's peak resident set size (getrusage's maxRSS, in KiB, which counts
 * worker threads too) to the file named by QUOTIENT_BENCH_RSS_FILE. A file, not stderr,
 * so the figure survives a benchmark that prints a lot or exits through an error.
 */
import { writeFileSync } from 'node:fs';

const target = process.env.QUOTIENT_BENCH_RSS_FILE;
if (target) {
  process.on('exit', () => {
    writeFileSync(target, String(process.resourceUsage().maxRSS));
  });
}
