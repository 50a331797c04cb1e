#!/usr/bin/env node
/**
 * `npm test`'s first step (pretest): the browser tests (the web app, the HTML report)
 * open pages in Debian's headless Chromium, /usr/bin/chromium (or QUOTIENT_CHROMIUM).
 * Without it a fresh machine ran the whole suite and ended, ten minutes later, with red
 * browser test files (issue 27 item 16). So before anything is built or run:
 *
 *   - Chromium is there: nothing is printed, exit 0.
 *   - It is not, and this is root with apt-get (Debian, Ubuntu, as in .ci/run): install it
 *     (`apt-get update && apt-get install -y chromium`), exit 0 once it is there.
 *   - Otherwise (not root, no apt-get, or the install failed): one line on stderr naming the
 *     command to run, exit 1, and npm stops before the build and the tests.
 *
 *   node scripts/check-chromium.mjs
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { spawnSync } from 'node:child_process';

const CHROMIUM = process.env.QUOTIENT_CHROMIUM || '/usr/bin/chromium';

/** Whether `path` is a file this process may run. */
function runnable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** apt-get's path on PATH, or undefined. */
function aptGet() {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir && runnable(join(dir, 'apt-get'))) return join(dir, 'apt-get');
  return undefined;
}

/** One line on stderr and exit 1: npm then runs neither the build nor the tests. */
function stop(why) {
  process.stderr.write(`npm test: ${why}\n`);
  process.exit(1);
}

if (!runnable(CHROMIUM)) {
  const apt = aptGet();
  const root = process.getuid?.() === 0;
  const install = root ? 'apt-get update && apt-get install -y chromium' : 'sudo apt-get update && sudo apt-get install -y chromium';
  const where = process.env.QUOTIENT_CHROMIUM ? `QUOTIENT_CHROMIUM (${CHROMIUM})` : CHROMIUM;
  const or = ' (Debian, Ubuntu), or set QUOTIENT_CHROMIUM to a Chromium, then npm test again';
  if (!apt || !root) stop(`the browser tests need Chromium at ${where}: run \`${install}\`${or}`);
  process.stderr.write(`npm test: the browser tests need Chromium at ${where}; installing it: ${install}\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const ok = (args) => spawnSync(apt, args, { stdio: ['ignore', 'inherit', 'inherit'], env }).status === 0;
  if (!ok(['update']) || !ok(['install', '-y', 'chromium']) || !runnable(CHROMIUM))
    stop(`installing Chromium did not give ${where}: run \`${install}\` yourself${or}`);
}
