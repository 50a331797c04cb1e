/**
 * The server's small parts on their own: only the serve command imports src/serve; the
 * response cache's bounds; the auth modes and the loopback rule; --listen.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listenFlag } from '../../src/cli/serve.js';
import { isLoopback, parseAuth, readTokens } from '../../src/serve/auth.js';
import { ResponseCache } from '../../src/serve/response-cache.js';
import { versionOf } from '../../src/serve/live-policy.js';

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('layers', () => {
  it('lets only the serve command import src/serve (statically or not), and src/serve import nothing of cli/', () => {
    const importers: string[] = [];
    for (const file of files('src')) {
      const text = readFileSync(file, 'utf8');
      for (const [, spec = ''] of text.matchAll(/(?:from |import\()'(\.{1,2}\/[^']+)'/g)) {
        const target = relative('src', join(file, '..', spec));
        const inServe = relative('src', file).startsWith('serve/');
        if (target.startsWith('serve/') && !inServe) importers.push(file);
        if (inServe && target.startsWith('cli/')) importers.push(`${file} imports cli`);
      }
    }
    expect([...new Set(importers)]).toEqual(['src/cli/serve.ts']);
  });
});

describe('ResponseCache', () => {
  const entry = (text: string) => ({ status: 200, text, decisions: [], version: 'v' });

  it('keeps at most its entries and bytes, dropping the least recently used first', () => {
    const c = new ResponseCache(3, 1e6);
    c.set('a', entry('1'));
    c.set('b', entry('2'));
    c.set('c', entry('3'));
    c.get('a');
    c.set('d', entry('4'));
    expect([c.get('a')?.text, c.get('b'), c.get('c')?.text, c.get('d')?.text]).toEqual(['1', undefined, '3', '4']);
    const small = new ResponseCache(100, 1000);
    for (let i = 0; i < 50; i++) small.set(`k${i}`, entry('x'.repeat(40)));
    expect(small.heldBytes).toBeLessThanOrEqual(1000);
    expect(small.size).toBeLessThan(50);
    small.set('huge', entry('x'.repeat(500)));
    expect(small.get('huge')).toBeUndefined();
    small.clear();
    expect([small.size, small.heldBytes]).toEqual([0, 0]);
  });
});

describe('auth and listen flags', () => {
  it('reads the auth modes and refuses others', () => {
    expect(parseAuth('none')).toEqual({ kind: 'none' });
    expect(parseAuth('header:X-Remote-User')).toEqual({ kind: 'header', header: 'x-remote-user' });
    expect(parseAuth('tokens:/etc/q/tokens')).toEqual({ kind: 'tokens', file: '/etc/q/tokens' });
    for (const bad of ['header', 'header:X Remote', 'tokens:', 'oidc', '']) expect(() => parseAuth(bad), bad).toThrow(expect.objectContaining({ code: 'serve/bad-auth' }));
  });

  it('takes only loopback addresses as loopback', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1'].map(isLoopback)).toEqual([true, true, true, true, true, true]);
    expect(['0.0.0.0', '10.0.0.1', '::', 'example.com', '128.0.0.1'].map(isLoopback)).toEqual([false, false, false, false, false]);
  });

  it('reads a token file of SHA-256 USER lines and names a bad line', () => {
    const dir = join(process.cwd(), 'test/serve/fixtures');
    expect(() => readTokens(join(dir, 'no-such-file'))).toThrow(expect.objectContaining({ code: 'serve/bad-token-file' }));
  });

  it('reads --listen as HOST:PORT', () => {
    expect(listenFlag('127.0.0.1:8080')).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(listenFlag('[::1]:0')).toEqual({ host: '::1', port: 0 });
    for (const bad of ['8080', 'host:', 'h:99999', ':80']) expect(() => listenFlag(bad), bad).toThrow(expect.objectContaining({ code: 'cli/bad-listen' }));
  });

  it('names a version by the content of its files, in order', () => {
    const a = versionOf([{ path: 'q.yaml', text: 'x' }]);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(versionOf([{ path: 'q.yaml', text: 'x' }])).toBe(a);
    expect(versionOf([{ path: 'q.yaml', text: 'y' }])).not.toBe(a);
    expect(versionOf([{ path: 'r.yaml', text: 'x' }])).not.toBe(a);
  });
});
