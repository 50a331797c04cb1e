/**
 * The compiled-policy cache trusts only what this user alone could have written
 * (engine/cache-folder.ts `distrust`, as ssh's StrictModes and git's safe.directory): a
 * folder or an entry another user owns, or that others may write to, is not used, with a
 * warning once. The checksum cannot stand in for this: a planted entry carries a valid one
 * (issue 27: an entry planted in a world-writable folder made root's `whatif --as eve`
 * treat eve as a team member).
 */
import { chmodSync, chownSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { distrust, onCacheWarning } from '../../../src/engine/cache-folder.js';
import { PolicyCache } from '../../../src/engine/policy-cache.js';
import { Session } from '../../../src/engine/session.js';
import { TWO_TEAMS } from '../../helpers/two-teams.js';
import { tempDirs } from '../../helpers/temp-dirs.js';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const tempDir = tempDirs('quotient-cache-trust-');
const FILES = [{ path: 'two-teams.yaml', text: TWO_TEAMS }];
const isRoot = process.geteuid?.() === 0;

const warnings: string[] = [];
onCacheWarning((m) => warnings.push(m));
afterEach(() => {
  warnings.length = 0;
});

/** Opens the policy through `cache`. */
function open(cache: PolicyCache): void {
  const { session } = Session.open(FILES, { now: NOW, cache, backend: 'reference' });
  expect(session).toBeDefined();
}

/** A folder holding one entry of FILES, written by this user. */
function folderWithEntry(): { dir: string; entry: string } {
  const dir = tempDir();
  open(new PolicyCache(dir));
  const names = readdirSync(dir).filter((n) => n.endsWith('.policy'));
  expect(names).toHaveLength(1);
  return { dir, entry: join(dir, names[0]!) };
}

describe('cache trust', () => {
  it("serves this user's own 0700 folder and 0600 entry (the control)", () => {
    const { dir } = folderWithEntry();
    const cache = new PolicyCache(dir);
    open(cache);
    expect(cache.stats).toMatchObject({ hits: 1, untrusted: 0 });
    expect(warnings).toEqual([]);
  });

  it('neither reads nor writes a folder others may write to, and says so once', () => {
    const { dir, entry } = folderWithEntry();
    chmodSync(dir, 0o777);
    const cache = new PolicyCache(dir);
    open(cache);
    open(cache);
    expect(cache.stats).toMatchObject({ hits: 0, writes: 0 });
    expect(cache.stats.untrusted).toBeGreaterThan(0);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`the cache folder ${dir} is writable by every user (mode 777)`);
    // Nothing new was written there.
    expect(readdirSync(dir).filter((n) => n.endsWith('.policy'))).toEqual([entry.split('/').pop()]);
    // A group-writable folder is refused too.
    chmodSync(dir, 0o770);
    const grouped = new PolicyCache(dir);
    open(grouped);
    expect(grouped.stats.hits).toBe(0);
    expect(warnings.at(-1)).toContain('writable by its group (mode 770)');
  });

  it('ignores an entry others may write to, in a folder that is fine', () => {
    const { dir, entry } = folderWithEntry();
    chmodSync(entry, 0o666);
    const cache = new PolicyCache(dir);
    open(cache);
    expect(cache.stats).toMatchObject({ hits: 0, untrusted: 1 });
    expect(warnings[0]).toContain(`the cache entry ${entry} is writable by every user (mode 666)`);
  });

  it('distrusts a folder or entry another user owns, whoever this user is (root included)', () => {
    expect(distrust('folder', '/c', { uid: 1000, mode: 0o40700 }, 0)).toBe('the cache folder /c is owned by uid 1000, not by this user (uid 0)');
    expect(distrust('entry', '/c/e', { uid: 0, mode: 0o100600 }, 1000)).toBe('the cache entry /c/e is owned by uid 0, not by this user (uid 1000)');
    expect(distrust('folder', '/c', { uid: 1000, mode: 0o40700 }, 1000)).toBeUndefined();
    // No uids (Windows): only the mode is checked.
    expect(distrust('entry', '/c/e', { uid: 5, mode: 0o100600 }, null)).toBeUndefined();
  });

  it.runIf(isRoot)("as root, ignores a folder and an entry planted by another user (chown'd here)", () => {
    const { dir, entry } = folderWithEntry();
    chownSync(entry, 4242, 4242);
    const c1 = new PolicyCache(dir);
    open(c1);
    expect(c1.stats).toMatchObject({ hits: 0, untrusted: 1 });
    expect(warnings[0]).toContain('is owned by uid 4242, not by this user (uid 0)');
    const other = folderWithEntry();
    chownSync(other.dir, 4242, 4242);
    expect(statSync(other.dir).uid).toBe(4242);
    const c2 = new PolicyCache(other.dir);
    open(c2);
    expect(c2.stats.hits).toBe(0);
    expect(warnings.at(-1)).toContain(`the cache folder ${other.dir} is owned by uid 4242`);
  });
});

describe('cache trust in the server', () => {
  // Last in this file: opening a version sets the warning sink to its own.
  it('says so as a warning of the version when its cache folder is not its own (its log is JSON lines, not stderr text)', async () => {
    const { openVersion } = await import('../../../src/serve/engine-handler.js');
    const dir = tempDir();
    chmodSync(dir, 0o777);
    const { loaded, message } = openVersion({ files: FILES, label: 'two-teams', version: 'v', backend: 'reference', now: NOW, cache: dir });
    expect(message.ok).toBe(true);
    const found = loaded!.info.findings.filter((f) => f.code === 'serve/cache-untrusted');
    expect(found).toEqual([expect.objectContaining({ severity: 'warning', file: dir })]);
    expect(found[0]!.message).toContain('is writable by every user (mode 777)');
    expect(readdirSync(dir)).toEqual([]);
  });
});
