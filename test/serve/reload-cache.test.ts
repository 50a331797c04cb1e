/**
 * The server opens each version through the compiled-policy cache when its process uses
 * one (EngineInit.cache): a reload of files it has opened before (a restart, an edit
 * undone) reads the entry instead of loading them again.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeEntry, policyCacheKey } from '../../src/engine/policy-cache.js';
import type { Finding } from '../../src/errors.js';
import { openVersion } from '../../src/serve/engine-handler.js';
import { shippedBundle } from '../helpers/shipped.js';

const dir = mkdtempSync(join(tmpdir(), 'quotient-serve-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('serve reload through the compiled-policy cache', () => {
  it('opens a version as without the cache, stores it, and reads the entry when the same files come again', () => {
    const files = shippedBundle('team-isolation');
    const init = { files, label: 'p', version: 'v', backend: 'reference' as const, now: Date.parse('2026-11-20T12:00:00Z') };
    const plain = openVersion(init);
    const first = openVersion({ ...init, cache: dir });
    expect(first.message.ok).toBe(true);
    expect(first.loaded!.info.findings).toEqual(plain.loaded!.info.findings);
    const names = readdirSync(dir).filter((n) => n.endsWith('.policy'));
    expect(names).toHaveLength(1);
    // An entry for the same files saying something only the entry says: the next open reads it.
    const marker: Finding = { file: files[0]!.path, line: 1, column: 1, code: 'test/from-cache', severity: 'error', path: '', message: 'm', hint: 'h' };
    const key = policyCacheKey(files);
    writeFileSync(join(dir, names[0]!), encodeEntry(key, files, { findings: [marker] })!);
    const again = openVersion({ ...init, cache: dir });
    expect(again.message.ok).toBe(false);
    expect(again.message.ok === false && again.message.findings.map((f) => f.code)).toEqual(['test/from-cache']);
    // Without a folder, the server's open never reads one.
    expect(openVersion(init).message.ok).toBe(true);
  });
});
