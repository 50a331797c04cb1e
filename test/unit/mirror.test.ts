/**
 * Unit tests mirror the engine and the rules (issue 19, STYLE "tests mirror sources"):
 * every module of src/engine and src/rules has its test file at the same path under
 * test/unit, so a module added without tests shows here. (Topic tests beside them, such
 * as count-placement.test.ts, are welcome: this checks one direction only.)
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const MIRRORED = ['engine', 'rules'];

describe('unit tests mirror src/engine and src/rules', () => {
  it.each(MIRRORED)('every module of src/%s has test/unit/%s/<module>.test.ts', (dir) => {
    const modules = readdirSync(join('src', dir)).filter((f) => f.endsWith('.ts'));
    expect(modules.length).toBeGreaterThan(5);
    const missing = modules.map((f) => join('test/unit', dir, f.replace(/\.ts$/, '.test.ts'))).filter((t) => !existsSync(t));
    expect(missing).toEqual([]);
  });
});
