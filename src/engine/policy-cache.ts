/**
 * The compiled-policy cache (issue 22; docs/cli.md "The compiled-policy cache"). Opening an
 * unchanged policy reuses what loading it made the last time: the Policy model and every
 * finding of the loading stages (parse, validate, build, snapshot, scale), so `check`
 * reports the same, warnings and file:line:col included. The engine's own stages
 * (compile, place, tabulate) run as before: they hold the kernel and the time of the run.
 *
 * An entry is content-addressed: its name is a SHA-256 over the bytes of every file read
 * (each with its path, read findings and role), Quotient's version, a fingerprint of the
 * loader's modules, the kernel build's bytes, Node's version, the cache format and the
 * QUOTIENT_* settings that may shape loading (the limits). It is written atomically (a
 * temporary file in the same folder renamed over the name; files 0600, folder 0700) and
 * read suspiciously: a magic, the format, the whole key, the payload's length and SHA-256
 * are checked before the payload is deserialised, and the payload must decode as this
 * format's columns (engine/policy-codec.ts). Anything that fails (a truncated, corrupt or
 * foreign file) is a miss: the policy is loaded again and the entry replaced.
 *
 * Only what is pure is stored: a load that read the clock (a snapshot without `at` is
 * taken now: policy/load-policy.ts says so), nor a policy holding anything the encoding
 * does not keep. Sources keep their lines and columns lazily: each
 * is stored as (document, path) and resolved, when first read, in a positioned parse of
 * the file's text, which the key already holds (policy/parse/source-doc.ts reopenedDocs).
 *
 * Bounded: after each write, entries beyond MAX_ENTRIES or MAX_BYTES in all are removed,
 * least recently used first (a hit touches its entry). A folder that cannot be made or
 * written is silently not written: the cache never fails a command.
 */
import { createHash, randomBytes } from 'node:crypto';
import { fstatSync, mkdirSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { withRegularFile } from '../io/regular-file.js';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import type { Finding } from '../errors.js';
import { kernelWasmPath } from '../kernel/wasm-module.js';
import type { Policy } from '../model/policy.js';
// The loader is a parameter (sync) or imported on a miss (async): a hit loads none of its modules (zod, the builders).
import type { loadPolicy as LoadPolicy, LoadOptions, LoadResult } from '../policy/load-policy.js';
import { reopenedDocs, type InputFile, type SourceDoc } from '../policy/parse/source-doc.js';
import { recordTiming } from '../policy/stages.js';
import { distrust, processPolicyCacheDir, warnCache } from './cache-folder.js';
import { Decoder, Encoder, Unencodable, type Column, type DocRef } from './policy-codec.js';

/** Bumped whenever the entry's layout or what it holds changes: older entries are then foreign. */
export const CACHE_FORMAT = 1;
const MAGIC = Buffer.from('QPC\u0001', 'latin1');
const KEY_AT = MAGIC.length + 4;
const SUM_AT = KEY_AT + 32;
const LENGTH_AT = SUM_AT + 32;
/** magic, format (u32), key (32), payload SHA-256 (32), payload length (u32), payload. */
const HEADER = LENGTH_AT + 4;

/** Entries kept at most, and bytes in all (docs/cli.md): beyond either, the least recently used go. */
export const MAX_ENTRIES = 64;
export const MAX_BYTES = 1024 ** 3;
const ENTRY = '.policy';

/** QUOTIENT_* settings that never change what loading makes (the others are part of the key). */
const UNRELATED_ENV = /^QUOTIENT_(USER|TIMINGS|DEBUG|ANSWER_MEMO|CACHE_DIR|NO_CACHE|BENCH_.*|TEST_.*|PROPERTY_RUNS|KILL_RUNS)$/;

/** What the cache did: hits, misses (loaded), entries written, entries refused as damaged or foreign, loads not stored, writes that failed. */
export interface PolicyCacheStats {
  hits: number;
  misses: number;
  writes: number;
  rejected: number;
  unstored: number;
  unwritable: number;
  /** Folders or entries not used because another user owns them or may write them (cache-folder.ts `distrust`). */
  untrusted: number;
}

let codeKey: string | undefined;

/**
 * What the cached form depends on besides the files: Quotient's version, the loader's
 * modules (name, size and time of each module of the layers loading runs: a rebuild is a
 * new key), the kernel build's bytes, Node's version (the payload is V8's serialisation)
 * and the format.
 */
function codeFingerprint(): string {
  if (codeKey !== undefined) return codeKey;
  const h = createHash('sha256');
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  h.update(fileOr(join(root, '..', 'package.json'), 'no package.json'));
  for (const layer of ['errors', 'model', 'policy', 'engine/policy-cache', 'engine/policy-codec']) {
    for (const path of modulePaths(join(root, layer))) {
      const s = statSync(path, { throwIfNoEntry: false });
      h.update(`${path}\0${s?.size ?? -1}\0${s?.mtimeMs ?? -1}\0`);
    }
  }
  h.update(fileOr(kernelWasmPath(), 'no kernel build'));
  h.update(`\0${process.version}\0${CACHE_FORMAT}`);
  return (codeKey = h.digest('hex'));
}

function fileOr(path: string, missing: string): Buffer | string {
  try {
    return readFileSync(path);
  } catch {
    return missing;
  }
}

/** The module files of a layer: a folder's (recursively), or one module (.ts or .js, whichever runs). */
function modulePaths(base: string): string[] {
  for (const ext of ['.js', '.ts']) if (statSync(base + ext, { throwIfNoEntry: false })?.isFile()) return [base + ext];
  try {
    return (readdirSync(base, { recursive: true }) as string[])
      .filter((f) => /\.(js|ts)$/.test(f))
      .sort()
      .map((f) => join(base, f));
  } catch {
    return [];
  }
}

/** The entry's key: a SHA-256 over the code, the settings and every file read (path, bytes or their digest, read findings, role). */
export function policyCacheKey(files: readonly InputFile[], env: NodeJS.ProcessEnv = process.env): Buffer {
  const h = createHash('sha256');
  h.update(codeFingerprint());
  for (const name of Object.keys(env).sort()) if (name.startsWith('QUOTIENT_') && !UNRELATED_ENV.test(name)) h.update(`\0env\0${name}=${env[name]}`);
  for (const f of files) {
    const { text, digest, ...rest } = f;
    h.update(`\0file\0${JSON.stringify(rest)}\0${text.length}\0`);
    // A file read from disk carries the SHA-256 of the bytes its text was decoded from (read-files.ts): the bytes, hashed once.
    if (digest !== undefined) h.update(`digest\0${digest}`);
    else h.update(text);
  }
  return h.digest();
}

/** What an entry holds: loadPolicy's model (when it succeeded) and findings. */
interface Entry {
  policy?: Policy;
  findings: Finding[];
}

/** A cache of loaded policies in one folder. */
export class PolicyCache {
  readonly stats: PolicyCacheStats = { hits: 0, misses: 0, writes: 0, rejected: 0, unstored: 0, unwritable: 0, untrusted: 0 };

  constructor(readonly dir: string) {}

  /** The entry's file for a key. */
  pathOf(key: Buffer): string {
    return join(this.dir, `${key.toString('hex')}${ENTRY}`);
  }

  /** loadPolicy's result, from the cache when an intact entry for these files exists, else loaded by `load` (and stored when it can be). */
  load(files: InputFile[], options: LoadOptions, load: typeof LoadPolicy): LoadResult {
    const found = this.find(files);
    return found.hit ?? this.keep(found.key, files, load(files, options));
  }

  /** The cached load of these files (a hit, timed as the stage `cache`), or only their key (a miss: load, then `keep`). */
  find(files: InputFile[]): { key: Buffer; hit?: LoadResult } {
    const started = performance.now();
    const key = policyCacheKey(files);
    const entry = this.read(key, files);
    if (!entry) return { key };
    this.stats.hits++;
    const timing = { stage: 'cache' as const, ms: performance.now() - started, findings: entry.findings.length };
    recordTiming(undefined, timing);
    return { key, hit: { ...(entry.policy ? { policy: entry.policy } : {}), findings: entry.findings, timings: [timing] } };
  }

  /** After a miss: stores what loading made under `key` (unless it read the clock), and hands it on. */
  keep(key: Buffer, files: readonly InputFile[], loaded: LoadResult): LoadResult {
    this.stats.misses++;
    // A snapshot without `at` is taken now: such a load is the clock's too, and is not stored.
    if (loaded.readClock) this.stats.unstored++;
    else this.write(key, files, { ...(loaded.policy ? { policy: loaded.policy } : {}), findings: loaded.findings });
    return loaded;
  }

  /** The entry for a key, or undefined when there is none or it is not intact (never trusted: checked before it is read). */
  read(key: Buffer, files: readonly InputFile[]): Entry | undefined {
    if (!this.trustedFolder()) return undefined;
    const path = this.pathOf(key);
    const read = readEntryFile(path);
    if (!read) return undefined;
    if (typeof read === 'string') {
      this.stats.untrusted++;
      warnCache(`${read}: ignored, the policy is loaded from its files (remove the entry, or the whole cache folder)`);
      return undefined;
    }
    const bytes = read;
    const entry = decodeEntry(bytes, key, files);
    if (!entry) {
      this.stats.rejected++;
      return undefined;
    }
    try {
      const now = new Date();
      utimesSync(path, now, now); // recently used: evicted last
    } catch {
      // a read-only cache still serves
    }
    return entry;
  }

  /** Stores an entry atomically; a cache that cannot be written (read-only, full) is only not written. */
  write(key: Buffer, files: readonly InputFile[], entry: Entry): void {
    const bytes = encodeEntry(key, files, entry);
    if (!bytes) {
      this.stats.unstored++;
      return;
    }
    const path = this.pathOf(key);
    const tmp = join(this.dir, `.${key.toString('hex').slice(0, 16)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      makeFolder(this.dir);
      // A folder another user may write to is never written to either: an entry there could be replaced.
      if (!this.trustedFolder()) return;
      writeFileSync(tmp, bytes, { mode: 0o600 });
      renameSync(tmp, path);
      this.stats.writes++;
    } catch {
      this.stats.unwritable++;
      try {
        rmSync(tmp, { force: true });
      } catch {
        // the folder itself is not there
      }
      return;
    }
    this.evict();
  }

  /**
   * True when the folder is this user's and no one else may write to it (or is not there
   * yet: makeFolder makes it 0700); else a warning, once, and the cache is not used.
   */
  private trustedFolder(): boolean {
    let s: ReturnType<typeof statSync>;
    try {
      s = statSync(this.dir, { throwIfNoEntry: false });
    } catch {
      return false;
    }
    if (!s) return true;
    const why = distrust('folder', this.dir, s);
    if (!why) return true;
    this.stats.untrusted++;
    warnCache(`${why}: the compiled-policy cache is not used (chmod 700 it if it is yours, or set QUOTIENT_CACHE_DIR to a folder of your own)`);
    return false;
  }

  /** Removes the least recently used entries beyond MAX_ENTRIES or MAX_BYTES, and temporary files left by writers that died an hour ago. */
  evict(maxEntries = MAX_ENTRIES, maxBytes = MAX_BYTES): void {
    try {
      const entries: Array<{ path: string; size: number; mtime: number }> = [];
      const staleBefore = Date.now() - 3_600_000;
      for (const name of readdirSync(this.dir)) {
        const path = join(this.dir, name);
        const s = statSync(path, { throwIfNoEntry: false });
        if (!s?.isFile()) continue;
        if (name.endsWith('.tmp')) {
          if (s.mtimeMs < staleBefore) rmSync(path, { force: true });
        } else if (name.endsWith(ENTRY)) entries.push({ path, size: s.size, mtime: s.mtimeMs });
      }
      entries.sort((a, b) => b.mtime - a.mtime);
      let bytes = 0;
      entries.forEach((e, i) => {
        bytes += e.size;
        if (i >= maxEntries || bytes > maxBytes) rmSync(e.path, { force: true });
      });
    } catch {
      // eviction is best effort, as writing is
    }
  }
}

/** The payload V8 serialises: the documents Sources resolve in, and the entry as one column. */
interface Payload {
  docs: DocRef[];
  entry: Column;
}

/** The bytes of an entry (header, then the payload), or undefined when the entry holds something the encoding does not keep. */
export function encodeEntry(key: Buffer, files: readonly InputFile[], entry: Entry): Buffer | undefined {
  const fileIndex = new Map<string, number>();
  files.forEach((f, i) => fileIndex.set(f.path, fileIndex.has(f.path) ? -1 : i));
  const encoder = new Encoder((sd: SourceDoc) => {
    const i = fileIndex.get(sd.file);
    return i === undefined || i < 0 ? undefined : i;
  });
  let payload: Buffer;
  try {
    const column = encoder.column([entry]);
    payload = serialize({ docs: encoder.docs, entry: column } satisfies Payload);
  } catch (e) {
    if (e instanceof Unencodable) return undefined;
    throw e;
  }
  const header = Buffer.alloc(HEADER);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(CACHE_FORMAT, MAGIC.length);
  key.copy(header, KEY_AT);
  createHash('sha256').update(payload).digest().copy(header, SUM_AT);
  header.writeUInt32LE(payload.length, LENGTH_AT);
  return Buffer.concat([header, payload]);
}

/** The entry these bytes hold for `key` (Sources resolving in `files`), or undefined when they are not an intact entry of this format for this key. */
export function decodeEntry(bytes: Buffer, key: Buffer, files: readonly InputFile[]): Entry | undefined {
  if (bytes.length < HEADER || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  if (bytes.readUInt32LE(MAGIC.length) !== CACHE_FORMAT) return undefined;
  if (!bytes.subarray(KEY_AT, KEY_AT + 32).equals(key)) return undefined;
  const payload = bytes.subarray(HEADER);
  if (payload.length !== bytes.readUInt32LE(LENGTH_AT)) return undefined;
  if (
    !createHash('sha256')
      .update(payload)
      .digest()
      .equals(bytes.subarray(SUM_AT, SUM_AT + 32))
  )
    return undefined;
  try {
    const p = deserialize(payload) as Partial<Payload> | null;
    if (!p || typeof p !== 'object' || !Array.isArray(p.docs) || !p.entry) return undefined;
    for (const d of p.docs) if (!d || !Number.isInteger(d.file) || d.file < 0 || d.file >= files.length) return undefined;
    const [entry] = new Decoder(p.docs, reopenedDocs(files)).column(p.entry) as [Partial<Entry> | undefined];
    if (!entry || typeof entry !== 'object' || !Array.isArray(entry.findings)) return undefined;
    if (entry.policy !== undefined && (typeof entry.policy !== 'object' || entry.policy === null || !Array.isArray(entry.policy.quotas))) return undefined;
    return { ...(entry.policy ? { policy: entry.policy } : {}), findings: entry.findings };
  } catch {
    // Anything that does not decode as this format's columns is not an entry.
    return undefined;
  }
}

/** The cache a load goes through: `cache` when given, none when false, else the process's folder's (if the CLI set one). */
function cacheOf(options: { cache?: PolicyCache | false }): PolicyCache | undefined {
  if (options.cache === false) return undefined;
  const dir = options.cache ? undefined : processPolicyCacheDir();
  return options.cache ?? (dir !== undefined ? new PolicyCache(dir) : undefined);
}

/** `load` (loadPolicy) through `cache` (false: none; undefined: the process's folder, if the CLI set one). */
export function loadThroughCache(files: InputFile[], options: LoadOptions & { cache?: PolicyCache | false }, load: typeof LoadPolicy): LoadResult {
  const cache = cacheOf(options);
  return cache ? cache.load(files, options, load) : load(files, options);
}

/**
 * loadPolicy through the cache as loadThroughCache, but the loader (policy/load-policy.ts,
 * with the YAML checks, zod and the builders) is imported only when the cache misses: a
 * warm `check` loads none of it (issue 22; test/cli/lazy-commands.test.ts holds it).
 */
export async function loadThroughCacheLazily(files: InputFile[], options: LoadOptions & { cache?: PolicyCache | false }): Promise<LoadResult> {
  const cache = cacheOf(options);
  const found = cache?.find(files);
  if (found?.hit) return found.hit;
  const { loadPolicy } = await import('../policy/load-policy.js');
  return cache && found ? cache.keep(found.key, files, loadPolicy(files, options)) : loadPolicy(files, options);
}

/**
 * The bytes of a cache entry, or undefined: only a regular file no larger than the cache's
 * byte budget is read. Opened without blocking (a FIFO put in an entry's place would hang
 * a read) and checked on the open descriptor, so a device (a link to /dev/zero) or a
 * swapped file is refused before a byte is read. An entry another user owns or may write
 * to is not read either: the reason (a string) instead of its bytes.
 */
function readEntryFile(path: string): Buffer | string | undefined {
  return withRegularFile(path, (fd, size): Buffer | string | undefined => {
    const why = distrust('entry', path, fstatSync(fd));
    if (why) return why;
    if (size > MAX_BYTES) return undefined;
    const bytes = Buffer.allocUnsafe(size);
    for (let at = 0; at < size;) {
      const n = readSync(fd, bytes, at, size - at, at);
      if (n === 0) return undefined; // shrank while read: not intact
      at += n;
    }
    return bytes;
  });
}

/**
 * Creates the cache folder and its missing parents (mode 0700), one level at a time: Node's
 * recursive mkdirSync never returns when a parent exists but refuses children with ENOENT
 * (/proc), and a cache must never hang a command. Throws when a level cannot be made.
 */
function makeFolder(dir: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !statSync(d, { throwIfNoEntry: false }); d = dirname(d)) {
    if (dirname(d) === d) break;
    missing.push(d);
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d, { mode: 0o700 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}
