/**
 * The compiled-policy cache (engine/policy-cache.ts): a warm open is the cold one, byte for
 * byte (model, findings with file:line:col, answers); a damaged, truncated, foreign or
 * stale entry is never trusted; the key follows every byte of every file; a folder that
 * cannot be written never fails an open.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_FORMAT, decodeEntry, encodeEntry, PolicyCache, policyCacheKey } from '../../../src/engine/policy-cache.js';
import { Session } from '../../../src/engine/session.js';
import type { InputFile } from '../../../src/policy/parse/source-doc.js';
import { shippedBundle } from '../../helpers/shipped.js';
import { TWO_TEAMS } from '../../helpers/two-teams.js';
import { tempDirs } from '../../helpers/temp-dirs.js';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const SHIPPED = readdirSync('policies').filter((d) => statSync(join('policies', d)).isDirectory());
const tempDir = tempDirs('quotient-cache-test-');

/** Everything an open gives that a user can see: the model and the findings as JSON (Sources resolved), and every WhatIf's answer. */
async function seen(files: InputFile[], cache: PolicyCache | false): Promise<string> {
  const { session, findings } = Session.open(files, { now: NOW, cache, backend: 'reference' });
  const answers = [];
  if (session?.snapshot) for (const w of session.policy.whatIfs) answers.push(await session.answerJob(w.name, w.submit));
  return JSON.stringify({ policy: session?.policy, findings, answers });
}

/** The only entry of a cache folder. */
function entryOf(dir: string): string {
  const names = readdirSync(dir).filter((n) => n.endsWith('.policy'));
  expect(names).toHaveLength(1);
  return join(dir, names[0]!);
}

describe('compiled-policy cache', () => {
  it.each(SHIPPED)('opens %s warm exactly as cold: model, findings with their lines, answers', async (name) => {
    const files = shippedBundle(name);
    const cache = new PolicyCache(tempDir());
    const cold = await seen(files, false);
    expect(await seen(files, cache)).toBe(cold);
    expect(cache.stats).toMatchObject({ hits: 0, misses: 1, writes: 1 });
    // A fresh cache object (a new process) over the same folder: served from the entry.
    const again = new PolicyCache(cache.dir);
    expect(await seen(files, again)).toBe(cold);
    expect(again.stats).toMatchObject({ hits: 1, misses: 0 });
  });

  it('keeps the findings of a failed load and of warnings, each at its file:line:col', async () => {
    const bad = [{ path: 'bad.yaml', text: TWO_TEAMS.replace('priority: 2', 'priority: 12') }];
    const cache = new PolicyCache(tempDir());
    const cold = await seen(bad, false);
    expect(cold).toContain('policy/priority-out-of-range');
    await seen(bad, cache);
    const warm = new PolicyCache(cache.dir);
    expect(await seen(bad, warm)).toBe(cold);
    // Failed past validation: may depend on the clock, so not stored; a parse error is stored.
    const broken = [{ path: 'broken.yaml', text: 'apiVersion: quotient.dev/v1\nkind: [\n' }];
    const c2 = new PolicyCache(tempDir());
    const coldBroken = await seen(broken, false);
    await seen(broken, c2);
    const w2 = new PolicyCache(c2.dir);
    expect(await seen(broken, w2)).toBe(coldBroken);
    expect(w2.stats.hits).toBe(1);
  });

  it('never trusts a damaged, truncated, foreign or stale entry: the answer is the cold one and the entry is rebuilt', async () => {
    const files = shippedBundle('self-level-preemption');
    const cold = await seen(files, false);
    const dir = tempDir();
    await seen(files, new PolicyCache(dir));
    const path = entryOf(dir);
    const good = readFileSync(path);
    const other = tempDir();
    await seen(shippedBundle('queued-jobs'), new PolicyCache(other));
    const foreign = readFileSync(entryOf(other));
    const stale = Buffer.from(good);
    stale.writeUInt32LE(CACHE_FORMAT + 1, 4);
    const damaged: Array<[string, Buffer]> = [
      ['empty', Buffer.alloc(0)],
      ['header only', good.subarray(0, 60)],
      ['truncated', good.subarray(0, good.length - 7)],
      ['one byte longer', Buffer.concat([good, Buffer.from([0])])],
      ['another key', foreign],
      ['another format', stale],
      ['magic', flip(good, 0)],
      ['key byte', flip(good, 10)],
      ['checksum byte', flip(good, 50)],
      ['length', flip(good, 73)],
    ];
    // Bytes of the payload, spread over it.
    for (let i = 1; i <= 12; i++) damaged.push([`payload byte ${i}`, flip(good, 80 + Math.floor(((good.length - 81) * i) / 13))]);
    let rejected = 0;
    for (const [what, bytes] of damaged) {
      writeFileSync(path, bytes);
      const cache = new PolicyCache(dir);
      expect(await seen(files, cache), what).toBe(cold);
      expect(cache.stats, what).toMatchObject({ hits: 0, misses: 1, writes: 1 });
      rejected += cache.stats.rejected;
      // Rebuilt: the next open is served by the new entry (its bytes may differ: V8 writes a string as it holds it).
      const after = new PolicyCache(dir);
      expect(await seen(files, after), what).toBe(cold);
      expect(after.stats, `${what}: rebuilt`).toMatchObject({ hits: 1, rejected: 0 });
    }
    expect(rejected).toBe(damaged.length);
  });

  it('refuses a payload that passed its checksum but does not decode as this format (a forged entry)', () => {
    const files = shippedBundle('team-isolation');
    const key = policyCacheKey(files);
    const { findings } = Session.open(files, { now: NOW, cache: false });
    const bytes = encodeEntry(key, files, { findings })!;
    expect(decodeEntry(bytes, key, files)).toEqual({ findings });
    expect(decodeEntry(bytes, policyCacheKey(shippedBundle('queued-jobs')), files)).toBeUndefined();
    // Sources naming a file that is not there, and junk that deserialises.
    const { session } = Session.open(files, { now: NOW, cache: false });
    const withPolicy = encodeEntry(key, files, { policy: session!.policy, findings })!;
    expect(decodeEntry(withPolicy, key, files.slice(0, 1))).toBeUndefined();
  });

  it('changes the key when any byte of any file, a name, or the order of the files changes', () => {
    const files = shippedBundle('quota-scaling');
    const base = policyCacheKey(files).toString('hex');
    const keys = new Set([base]);
    let made = 0;
    for (let i = 0; i < files.length; i++) {
      const f = files[i]!;
      for (const at of [0, Math.floor(f.text.length / 2), f.text.length - 1]) {
        const text = f.text.slice(0, at) + String.fromCharCode(f.text.charCodeAt(at) ^ 1) + f.text.slice(at + 1);
        keys.add(policyCacheKey(files.map((g, j) => (j === i ? { ...g, text } : g))).toString('hex'));
        made++;
      }
      keys.add(policyCacheKey(files.map((g, j) => (j === i ? { ...g, path: `${g.path}x` } : g))).toString('hex'));
      keys.add(policyCacheKey(files.map((g, j) => (j === i ? { ...g, text: `${g.text}\n` } : g))).toString('hex'));
      made += 2;
    }
    keys.add(policyCacheKey([...files].reverse()).toString('hex'));
    keys.add(policyCacheKey(files, { QUOTIENT_MAX_DEPTH: '9' }).toString('hex'));
    // Files read from disk are keyed by the digest of their bytes (read-files.ts).
    keys.add(policyCacheKey(files.map((f) => ({ ...f, digest: 'a' }))).toString('hex'));
    keys.add(policyCacheKey(files.map((f, j) => ({ ...f, digest: j === 0 ? 'b' : 'a' }))).toString('hex'));
    made += 4;
    expect(keys.size).toBe(made + 1);
    // Settings that do not shape loading keep the key.
    expect(policyCacheKey(files, { QUOTIENT_USER: 'bob', QUOTIENT_TIMINGS: '1' }).toString('hex')).toBe(policyCacheKey(files, {}).toString('hex'));
  });

  it('stores no load that read the clock (a snapshot without `at`)', () => {
    const files = [{ path: 'p.yaml', text: TWO_TEAMS.replace(/\n {2}at: [^\n]*/, '') }];
    const { session } = Session.open(files, { now: NOW, cache: false });
    expect(session!.policy.cluster!.at).toBe(NOW); // the test's premise: the snapshot's time is the clock's
    const cache = new PolicyCache(tempDir());
    Session.open(files, { now: NOW, cache });
    expect(cache.stats).toMatchObject({ misses: 1, writes: 0, unstored: 1 });
    expect(readdirSync(cache.dir)).toEqual([]);
  });

  it('never fails an open when the folder cannot be written: it is only not written', async () => {
    const files = shippedBundle('team-isolation');
    const cold = await seen(files, false);
    const parent = tempDir();
    const asFile = join(parent, 'not-a-folder');
    writeFileSync(asFile, 'x');
    const cache = new PolicyCache(join(asFile, 'quotient'));
    expect(await seen(files, cache)).toBe(cold);
    expect(cache.stats).toMatchObject({ writes: 0, unwritable: 1 });
    if (process.getuid?.() !== 0) {
      const ro = tempDir();
      chmodSync(ro, 0o500);
      const c2 = new PolicyCache(ro);
      expect(await seen(files, c2)).toBe(cold);
      expect(c2.stats.unwritable).toBe(1);
      chmodSync(ro, 0o700);
    }
  });

  it('writes entries 0600 in a 0700 folder, and keeps at most the bound, dropping the least recently used', async () => {
    const dir = join(tempDir(), 'made');
    const cache = new PolicyCache(dir);
    for (const name of SHIPPED.slice(0, 4)) Session.open(shippedBundle(name), { now: NOW, cache, backend: 'reference' });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const n of readdirSync(dir)) expect(statSync(join(dir, n)).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toHaveLength(4);
    // The first one used again: the eviction keeps it and drops the next oldest.
    const first = cache.pathOf(policyCacheKey(shippedBundle(SHIPPED[0]!)));
    const second = cache.pathOf(policyCacheKey(shippedBundle(SHIPPED[1]!)));
    const { utimesSync } = await import('node:fs');
    readdirSync(dir).forEach((n, i) => utimesSync(join(dir, n), new Date(1000 * (i + 1)), new Date(1000 * (i + 1))));
    utimesSync(second, new Date(0), new Date(0));
    Session.open(shippedBundle(SHIPPED[0]!), { now: NOW, cache, backend: 'reference' });
    cache.evict(3);
    expect(readdirSync(dir).sort()).toHaveLength(3);
    expect(readdirSync(dir).map((n) => join(dir, n))).toContain(first);
    expect(readdirSync(dir).map((n) => join(dir, n))).not.toContain(second);
    cache.evict(64, 1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('reads only a regular file as an entry: a FIFO or a device in its place is a miss, never a hang', async () => {
    const files = shippedBundle('team-isolation');
    const cold = await seen(files, false);
    const dir = tempDir();
    const path = new PolicyCache(dir).pathOf(policyCacheKey(files));
    execFileSync('mkfifo', [path]);
    const fifo = new PolicyCache(dir);
    expect(await seen(files, fifo)).toBe(cold);
    expect(fifo.stats).toMatchObject({ hits: 0, misses: 1 });
    rmSync(path);
    symlinkSync('/dev/zero', path);
    const device = new PolicyCache(dir);
    expect(await seen(files, device)).toBe(cold);
    expect(device.stats).toMatchObject({ hits: 0, misses: 1 });
  });

  it("gives up on a folder that cannot be made instead of looping (Node's recursive mkdir spins under /proc)", async () => {
    const files = shippedBundle('team-isolation');
    const cache = new PolicyCache('/proc/quotient-cache-test/a');
    expect(await seen(files, cache)).toBe(await seen(files, false));
    expect(cache.stats).toMatchObject({ writes: 0, unwritable: 1 });
  });
});

/** A copy of `bytes` with the byte at `at` inverted. */
function flip(bytes: Buffer, at: number): Buffer {
  const out = Buffer.from(bytes);
  out[at] = out[at]! ^ 0xff;
  return out;
}
