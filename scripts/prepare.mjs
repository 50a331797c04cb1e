#!/usr/bin/env node
/**
 * `npm run prepare`: builds the kernel and the CLI (`npm run build`) unless the build is
 * newer than every file it is made from. npm runs `prepare` after `npm ci`, and again
 * when `npx quotient` first runs in the project: npx installs the project itself into
 * its cache to find the `quotient` bin, and runs `prepare` there (libnpmexec). Without
 * this check that second build cost ~20 s on the README's first command.
 *
 *   node scripts/prepare.mjs            build if stale
 *   node scripts/prepare.mjs --check [ROOT]   print why a build is needed (exit 1) or "up to date" (exit 0)
 *
 * Inputs and outputs: assembly/ and asconfig.json make build/kernel.wasm; src/ and
 * tsconfig.json make dist/ (tsc rewrites every output, so dist/cli/main.js stands for it;
 * scripts/bundle-zod.mjs then bundles zod into it);
 * src/web/ and scripts/build-web.mjs make dist/web/ (the web app, esbuild; it writes
 * index.html last, so that file stands for the folder).
 * A file removed from src/ is not noticed: `npm run build` always builds.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const TARGETS = [
  { output: 'build/kernel.wasm', inputs: ['assembly', 'asconfig.json', 'package.json'] },
  { output: 'dist/cli/main.js', inputs: ['src', 'tsconfig.json', 'package.json', 'scripts/bundle-zod.mjs'] },
  { output: 'dist/web/index.html', inputs: ['src/web', 'scripts/build-web.mjs', 'package.json'] },
];

/** The newest file under `path` (a file or a folder), as [mtimeMs, path]. */
function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return [st.mtimeMs, path];
  let best = [0, path];
  for (const name of readdirSync(path)) {
    const n = newest(join(path, name));
    if (n[0] > best[0]) best = n;
  }
  return best;
}

/** Why the build in `root` is stale, or undefined when every output is newer than its inputs. */
export function staleReason(root) {
  for (const t of TARGETS) {
    const out = join(root, t.output);
    if (!existsSync(out)) return `${t.output} is missing`;
    const built = statSync(out).mtimeMs;
    for (const input of t.inputs) {
      const p = join(root, input);
      if (!existsSync(p)) continue;
      const [mtime, file] = newest(p);
      if (mtime > built) return `${relative(root, file)} is newer than ${t.output}`;
    }
  }
  return undefined;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv[2] === '--check';
  const root = resolve(check && process.argv[3] ? process.argv[3] : join(fileURLToPath(import.meta.url), '../..'));
  const why = staleReason(root);
  if (check) {
    console.log(why ? `stale: ${why}` : 'up to date');
    process.exit(why ? 1 : 0);
  }
  if (!why) {
    console.error('quotient: the build is up to date (npm run build rebuilds anyway)');
    process.exit(0);
  }
  console.error(`quotient: building (${why})`);
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  process.exit(r.status ?? 1);
}
