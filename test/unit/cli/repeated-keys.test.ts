/** `--set` and `--submit` share one rule: a key given twice is refused (exit 2), never silently the last value. */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { QuotientError } from '../../../src/errors.js';
import { setDocument } from '../../../src/cli/scale.js';
import { submitFlags } from '../../../src/cli/submit-flags.js';

function refusal(f: () => unknown): QuotientError | undefined {
  try {
    f();
  } catch (e) {
    if (e instanceof QuotientError) return e;
    throw e;
  }
  return undefined;
}

describe('repeated keys of --set and --submit', () => {
  it('refuses a --submit key given twice, in two words or after a comma', () => {
    const apart = refusal(() => submitFlags(['quota=Quota1', 'gpu=8', 'gpu=16']));
    expect(apart?.code).toBe('cli/bad-submit');
    // The text is the behaviour here: the refusal names the key given twice.
    expect(apart?.message).toBe('--submit gives gpu twice');
    const comma = refusal(() => submitFlags(['quota=Quota1,priority=9', 'priority=3']));
    expect(comma?.code).toBe('cli/bad-submit');
    expect(comma?.message).toBe('--submit gives priority twice');
  });

  it('lets gpuModel repeat (each adds a model) and lets --as fill submittedBy', () => {
    expect(submitFlags(['quota=Quota1', 'gpu=8', 'gpuModel=A', 'gpuModel=B', 'submittedBy=bob'], 'alice')).toMatchObject({
      quota: 'Quota1',
      gpuModels: ['A', 'B'],
      submittedBy: 'bob',
      resources: { gpu: 8 },
    });
  });

  it('refuses a --set quota given twice the same way', () => {
    const e = refusal(() => setDocument(['Quota1.1=56', 'Quota1.1=40']));
    expect(e?.code).toBe('cli/bad-set');
    // The text is the behaviour here: the refusal names the quota given twice.
    expect(e?.message).toBe('--set gives Quota1.1 twice');
    expect(parse(setDocument(['Quota1.1=56', 'Quota1.2=72']).text)).toMatchObject({ spec: { set: { 'Quota1.1': 56, 'Quota1.2': 72 } } });
  });
});
