/**
 * Preloaded into a child process by bench/load.ts (`node --import`): at exit it writes the
 * process's resource usage — peak RSS (KiB) and user and system CPU time (µs) — as JSON
 * to the file named by QUOTIENT_BENCH_USAGE_FILE. bench/rss-probe.mjs writes the peak RSS
 * alone for bench/run.ts; this one adds the CPU time, which a shared machine's load does
 * not inflate as it does wall time.
 */
import { writeFileSync } from 'node:fs';

const target = process.env.QUOTIENT_BENCH_USAGE_FILE;
if (target) {
  process.on('exit', () => {
    const u = process.resourceUsage();
    writeFileSync(target, JSON.stringify({ maxRSS: u.maxRSS, userCPUTime: u.userCPUTime, systemCPUTime: u.systemCPUTime }));
  });
}
