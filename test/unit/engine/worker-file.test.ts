import { describe, expect, it } from 'vitest';
import { resolveWorkerFile } from '../../../src/engine/worker-file.js';
import { coded } from '../../helpers/codes.js';

describe('resolveWorkerFile', () => {
  it('finds the compiled worker, never a TypeScript file', () => {
    expect(resolveWorkerFile('pool/batch-worker')).toMatch(/pool\/batch-worker\.js$/);
  });

  it('refuses a worker that is not built, with worker/missing', () => {
    expect(() => resolveWorkerFile('engine/no-such-worker')).toThrow(coded('worker/missing'));
  });
});
