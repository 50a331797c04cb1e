import { describe, expect, it } from 'vitest';
import { decodeFiles, encodeFiles } from '../../../src/pool/batch-types.js';

describe('batch messages', () => {
  it('carries policy files through shared memory unchanged, unicode included', () => {
    const files = [
      { path: 'a.yaml', text: 'name: é名 🚀\n' },
      { path: 'b/c.yaml', text: '' },
    ];
    const shared = encodeFiles(files);
    expect(shared).toBeInstanceOf(SharedArrayBuffer);
    expect(decodeFiles(shared)).toEqual(files);
  });

  it('sends the path and text only, never a file’s findings or other fields', () => {
    const withMore = [{ path: 'a.yaml', text: 'x: 1\n', findings: [] }];
    expect(decodeFiles(encodeFiles(withMore))).toEqual([{ path: 'a.yaml', text: 'x: 1\n' }]);
  });
});
