/**
 * The kill loop: `scale --apply` is SIGKILLed at random moments, then one ordinary
 * command (`quotient check`) runs on the folder, as the next user would. After each
 * kill the policy as a whole must be all old or all new, and no file of ours (temp,
 * journal, lock) may remain. A third of the kills land at a random time in the whole
 * run, a third at a random time after the journal appears (before the commit point,
 * mostly), a third after the journal says committed (during the renames), so every
 * step of the write is hit (QUOTIENT_TEST_STEP_DELAY_MS spaces the steps out). QUOTIENT_KILL_RUNS
 * sets the count (default 6; `npm run test:kill` runs 300).
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');
const RUNS = Number(process.env.QUOTIENT_KILL_RUNS ?? 6);
const STEP_MS = 40;
const ENV = { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, QUOTIENT_USER: undefined, QUOTIENT_TEST_STEP_DELAY_MS: String(STEP_MS) };
const ARGS = ['--set', 'Quota1.1=56', '--set', 'Quota1.2=72', '--apply'];

const tmp = mkdtempSync(join(tmpdir(), 'quotient-kill-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Every file of the folder, by name (dot files included: none may be left). */
const snapshot = (dir: string) =>
  JSON.stringify(
    Object.fromEntries(
      readdirSync(dir)
        .sort()
        .map((f) => [f, readFileSync(join(dir, f), 'latin1')]),
    ),
  );

/** The shipped scaling example, its jobs in block style so a standing line is added. */
function template(): string {
  const dir = join(tmp, 'template');
  cpSync(join(ROOT, 'policies/quota-scaling'), dir, { recursive: true });
  const file = join(dir, 'cluster.yaml');
  writeFileSync(
    file,
    readFileSync(file, 'utf8').replace(/^ {4}- \{ (name: .*) \}$/gm, (_l, body: string) => `    - ${body.split(/, (?![^{]*\})/).join('\n      ')}`),
  );
  return dir;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** When a kill is timed from: the start, the journal appearing (prepared), or the journal saying committed. */
type Trigger = 'start' | 'prepared' | 'committed';

function journalSays(dir: string, trigger: Trigger): boolean {
  try {
    return trigger === 'prepared' || readFileSync(join(dir, '.quotient-journal.json'), 'utf8').includes('"committed"');
  } catch {
    return false;
  }
}

/** Runs an apply on `dir` and SIGKILLs it `delay` ms after the trigger. */
async function killedApply(dir: string, delay: number, trigger: Trigger): Promise<void> {
  const child = spawn(process.execPath, [MAIN, 'scale', dir, ...ARGS], { cwd: ROOT, env: ENV, stdio: 'ignore' });
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  let running = true;
  void exited.then(() => (running = false));
  if (trigger !== 'start') {
    const deadline = Date.now() + 30_000;
    while (running && !(existsSync(join(dir, '.quotient-journal.json')) && journalSays(dir, trigger)) && Date.now() < deadline) await sleep(1);
  }
  await sleep(delay);
  child.kill('SIGKILL');
  await exited;
}

describe('scale --apply under SIGKILL', () => {
  it(
    `leaves the policy all old or all new, and nothing of ours, after ${RUNS} kills and one recovery run each`,
    async () => {
      const base = template();
      const old = snapshot(base);
      const done = join(tmp, 'done');
      cpSync(base, done, { recursive: true });
      const clean = spawnSync(process.execPath, [MAIN, 'scale', done, ...ARGS], { cwd: ROOT, env: { ...ENV, QUOTIENT_TEST_STEP_DELAY_MS: '0' }, encoding: 'utf8' });
      expect(clean.status).toBe(0);
      const fresh = snapshot(done);
      expect(fresh).not.toBe(old);
      const t0 = Date.now();
      spawnSync(process.execPath, [MAIN, 'scale', done, '--set', 'Quota1.1=56'], { cwd: ROOT, env: ENV });
      const runMs = Date.now() - t0 + 12 * STEP_MS;

      const seen = { old: 0, new: 0, rolledBack: 0, completed: 0 };
      // Seeded: a failure names the seed, and QUOTIENT_KILL_SEED replays it.
      const rand = fc.sample(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })), { numRuns: RUNS, seed: Number(process.env.QUOTIENT_KILL_SEED ?? 7) });
      for (let i = 0; i < RUNS; i++) {
        const [u, v] = rand[i] ?? [0, 0];
        const dir = join(tmp, `run-${i}`);
        cpSync(base, dir, { recursive: true });
        const trigger: Trigger = (['start', 'prepared', 'committed'] as const)[i % 3] ?? 'start';
        const delay = trigger === 'start' ? v * runMs : u * 4 * STEP_MS;
        await killedApply(dir, delay, trigger);
        const recovery = spawnSync(process.execPath, [MAIN, 'check', dir], { cwd: ROOT, env: ENV, encoding: 'utf8' });
        const now = snapshot(dir);
        const what = `kill ${i} (${Math.round(delay)} ms after ${trigger}); recovery said: ${recovery.stderr}`;
        expect(now === old || now === fresh, `torn or littered policy after ${what}\n${now}`).toBe(true);
        expect(recovery.status, what).toBe(0);
        seen[now === old ? 'old' : 'new']++;
        if (recovery.stderr.includes('rolled back an interrupted write')) seen.rolledBack++;
        if (recovery.stderr.includes('completed an interrupted write')) seen.completed++;
        rmSync(dir, { recursive: true, force: true });
      }
      // The loop must have hit the write itself, on both sides of the commit point.
      if (RUNS >= 6) {
        expect(seen.rolledBack, JSON.stringify(seen)).toBeGreaterThan(0);
        expect(seen.completed, JSON.stringify(seen)).toBeGreaterThan(0);
      }
      console.log(`kill loop: ${JSON.stringify(seen)}`);
    },
    60_000 + RUNS * 10_000,
  );
});
