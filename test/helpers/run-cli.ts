/** Runs the built CLI (dist/cli/main.js) from the repository root, without colour. */
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: CLI tests run there, so paths read as the docs write them. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');

// Hermetic: the CLI caches compiled policies in the test run's folder (vitest.config.ts sets it), never in the user's.
process.env.QUOTIENT_CACHE_DIR ??= join(tmpdir(), `quotient-test-cache-${process.pid}`);

/** Runs `quotient ARGS`; `input` is fed to stdin; `env` adds to (or, with undefined, removes from) the environment. */
export function quotient(args: string[], input?: string, env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, encoding: 'utf8', input, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, ...env }, timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
