/**
 * Who is asking (docs/serve.md "Identity and the threat model"). Three modes:
 *
 * - `header:NAME`: an authenticating proxy in front (kube-apiserver's front proxy,
 *   oauth2-proxy) has put the user's name in the header NAME (`X-Remote-User`). The server
 *   trusts it: it must be reachable only through that proxy, which must drop the header
 *   from what clients send.
 * - `tokens:FILE`: bearer tokens. FILE holds one `SHA-256-HEX USER` per line (`#`
 *   comments), so the file never holds a token itself; it is read again when it changes,
 *   and a version that does not read keeps the previous one (a log line says why).
 * - `none`: every caller is an administrator. Only on a loopback address: `serve` refuses
 *   to start otherwise.
 *
 * A user named in `--admin` is an administrator (the full view) in every mode.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { QuotientError } from '../errors.js';
import { escapeDisplay, unsafeCharacter } from '../model/display-text.js';

/** How callers are identified. */
export type AuthMode = { kind: 'none' } | { kind: 'header'; header: string } | { kind: 'tokens'; file: string };

/** An identified caller. */
export interface Identity {
  /** The user's name; undefined only under `--auth none`. */
  user?: string;
  admin: boolean;
}

/** Why a request has no identity: an error code of docs/serve.md. */
export interface IdentityRefusal {
  code: 'auth/no-identity' | 'auth/bad-identity';
  message: string;
  hint: string;
}

/** The longest user name taken (a header is not a document). */
const MAX_USER = 256;

/** Parses `--auth MODE`. */
export function parseAuth(value: string): AuthMode {
  if (value === 'none') return { kind: 'none' };
  const colon = value.indexOf(':');
  const kind = colon < 0 ? value : value.slice(0, colon);
  const arg = colon < 0 ? '' : value.slice(colon + 1);
  if (kind === 'header' && /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(arg)) return { kind: 'header', header: arg.toLowerCase() };
  if (kind === 'tokens' && arg !== '') return { kind: 'tokens', file: arg };
  throw new QuotientError(
    'serve/bad-auth',
    `--auth ${escapeDisplay(value).text} is not an auth mode`,
    'use --auth header:X-Remote-User (behind an authenticating proxy), --auth tokens:FILE (bearer tokens), or --auth none (loopback only)',
  );
}

/** True for an address only this machine can reach: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./i.test(h);
  return false;
}

/** Identifies callers by the configured mode. */
export class Authenticator {
  private tokens = new Map<string, string>();
  /** The SHA-256 of the token file's content last taken, or 'deleted'. */
  private taken = '';
  private timer?: NodeJS.Timeout;

  constructor(
    readonly mode: AuthMode,
    private readonly admins: ReadonlySet<string> = new Set(),
    /** Says why a changed token file was not taken, or that it was deleted. */
    private readonly warn: (message: string) => void = () => {},
  ) {
    if (mode.kind === 'tokens') {
      const read = readTokenFile(mode.file);
      this.tokens = read.tokens;
      this.taken = read.hash;
    }
  }

  /**
   * Reads the token file every `intervalMs` and takes a version whose content changed
   * (by its hash: a revocation that keeps the file's size and time is still read). A
   * deleted file revokes every token until it is back; a version that does not read
   * (a bad line, writable by everyone) keeps the previous tokens, and the log says why.
   */
  watch(intervalMs = 1000): void {
    if (this.mode.kind !== 'tokens' || this.timer) return;
    const file = this.mode.file;
    this.timer = setInterval(() => this.reread(file), intervalMs);
    this.timer.unref();
  }

  private reread(file: string): void {
    try {
      statSync(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return this.notTaken(file, (e as NodeJS.ErrnoException).code ?? (e as Error).message, 'unreadable');
      if (this.taken !== 'deleted') this.warn(`the token file ${file} was deleted: every token is revoked until it is back`);
      this.tokens = new Map();
      this.taken = 'deleted';
      return;
    }
    try {
      const read = readTokenFile(file);
      if (read.hash === this.taken) return;
      this.tokens = read.tokens;
      this.taken = read.hash;
      this.rejected = '';
    } catch (e) {
      this.notTaken(file, (e as Error).message, (e as Error).message);
    }
  }

  /** Says once (per reason) that a version of the file was not taken. */
  private notTaken(file: string, why: string, key: string): void {
    if (this.rejected !== key) this.warn(`the token file ${file} was not reloaded: ${why}; the previous tokens stay in use`);
    this.rejected = key;
  }

  private rejected = '';

  /** Stops watching the token file. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * The caller of a request with these headers (lower-case names, as Node gives them).
   * `rawHeaders` (name, value, name, value…, as received) tells a header sent twice: Node
   * joins two `X-Remote-User` into one value, `"root, bob"`, and keeps only the first
   * `Authorization`, so neither shows in `headers`.
   */
  identify(headers: Record<string, string | string[] | undefined>, rawHeaders: readonly string[] = []): Identity | IdentityRefusal {
    const name = this.mode.kind === 'header' ? this.mode.header : this.mode.kind === 'tokens' ? 'authorization' : undefined;
    if (name !== undefined && timesSent(rawHeaders, name) > 1)
      return { code: 'auth/bad-identity', message: `the ${name} header is given more than once`, hint: 'send it once: a proxy must replace the header, not add a second one' };
    switch (this.mode.kind) {
      case 'none':
        return { admin: true };
      case 'header':
        return this.named(headers[this.mode.header], `the ${this.mode.header} header`);
      case 'tokens': {
        const auth = headers.authorization;
        const m = typeof auth === 'string' ? /^Bearer ([\x21-\x7e]+)$/i.exec(auth.trim()) : null;
        if (!m) return { code: 'auth/no-identity', message: 'no bearer token', hint: 'send Authorization: Bearer TOKEN' };
        const user = this.tokens.get(sha256(m[1]!));
        if (user === undefined) return { code: 'auth/no-identity', message: 'the bearer token is not known', hint: 'ask the administrator for a token (its SHA-256 must be in the token file)' };
        return { user, admin: this.admins.has(user) };
      }
    }
  }

  private named(value: string | string[] | undefined, where: string): Identity | IdentityRefusal {
    if (value === undefined || (typeof value === 'string' && value.trim() === ''))
      return { code: 'auth/no-identity', message: `no user in ${where}`, hint: 'reach the server through the authenticating proxy that sets it' };
    if (Array.isArray(value)) return { code: 'auth/bad-identity', message: `${where} is given more than once`, hint: 'the proxy must set it once' };
    const user = utf8Header(value).trim();
    if (user.length > MAX_USER || unsafeCharacter(user))
      return {
        code: 'auth/bad-identity',
        message: `${where} holds a user name Quotient does not take (too long, or a control or bidirectional character)`,
        hint: 'user names are printable text of at most 256 characters',
      };
    return { user, admin: this.admins.has(user) };
  }
}

/** How many times the header `name` (lower case) was sent. */
function timesSent(rawHeaders: readonly string[], name: string): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.length === name.length && rawHeaders[i]!.toLowerCase() === name) n++;
  return n;
}

/**
 * A header's text: Node reads header bytes as Latin-1, a proxy writes a name such as
 * "José" as UTF-8, so bytes that are valid UTF-8 are read as UTF-8 (and then checked for
 * control and bidirectional characters like any name).
 */
function utf8Header(value: string): string {
  // eslint-disable-next-line no-control-regex -- ASCII needs no decoding
  if (/^[\x00-\x7f]*$/.test(value)) return value;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}

function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Reads a token file: its tokens and the hash of its content. A file anyone may write is
 * refused (anyone could add a token for any user), as ssh refuses such a key file.
 */
export function readTokenFile(file: string): { tokens: Map<string, string>; hash: string } {
  let text: Buffer;
  let mode: number;
  try {
    // Without blocking: a FIFO put at the name must not hang the server.
    const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'not a regular file' });
      mode = st.mode;
      text = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    throw new QuotientError(
      'serve/bad-token-file',
      `cannot read the token file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      'give a readable file of SHA-256-HEX USER lines',
    );
  }
  if ((mode & 0o002) !== 0)
    throw new QuotientError(
      'serve/token-file-writable',
      `the token file ${file} may be written by every user of the machine, who could add a token for anyone`,
      `make it writable by its owner only: chmod o-w ${file}`,
    );
  return { tokens: parseTokens(file, text.toString('utf8')), hash: sha256(text) };
}

/** Reads a token file: `SHA-256-HEX USER` per line; a bad line is an error naming it. */
export function readTokens(file: string): Map<string, string> {
  return readTokenFile(file).tokens;
}

/** The tokens of a token file's text. */
function parseTokens(file: string, text: string): Map<string, string> {
  const out = new Map<string, string>();
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^([0-9a-fA-F]{64})\s+(\S.*)$/.exec(line);
    const user = m?.[2]?.trim();
    if (!m || !user || user.length > MAX_USER || unsafeCharacter(user))
      throw new QuotientError(
        'serve/bad-token-file',
        `${file}:${i + 1}: expected "SHA-256-HEX USER"`,
        'write one token per line: the SHA-256 of the token in hex, a space, the user (e.g. `printf %s "$TOKEN" | sha256sum`)',
      );
    out.set(m[1]!.toLowerCase(), user);
  });
  return out;
}
