/**
 * engine/policy-codec.ts: values written column-wise read back as they were (kinds mixed in
 * one column, objects of several shapes, nested arrays, shared strings), and what it cannot
 * write (a class instance, an array with a hole) is refused, not mangled.
 */
import { describe, expect, it } from 'vitest';
import { Decoder, Encoder, Undecodable, Unencodable } from '../../../src/engine/policy-codec.js';

const roundTrip = (values: unknown[]): unknown[] => {
  const enc = new Encoder(() => undefined);
  const col = enc.column(values);
  return new Decoder(enc.docs, () => {
    throw new Error('no Source was written');
  }).column(col);
};

describe('policy codec', () => {
  it('reads back every kind, mixed in one column, in order', () => {
    const values = [1, 'a', true, null, undefined, 2.5, 'a', false, -0, 1e300, '', 'b'];
    expect(roundTrip(values)).toEqual(values);
  });

  it('reads back objects of several shapes, keys in their order, nested objects and arrays', () => {
    const values = [
      { name: 'q1', min: { gpu: 8 }, modules: ['DLC', 'DSW'] },
      { name: 'q2', min: { gpu: 16, cpu: 4000 }, modules: [] },
      { min: { gpu: 0 }, name: 'q3' },
      { name: 'q4', min: { gpu: 8 }, modules: ['EAS'], children: [{ name: 'q5', min: { gpu: 1 } }] },
      [[1, 2], [], ['x', { y: null }]],
    ];
    const back = roundTrip(values);
    expect(back).toEqual(values);
    expect(Object.keys(back[2] as object)).toEqual(['min', 'name']);
  });

  it('refuses what it cannot write instead of writing something else', () => {
    expect(() => new Encoder(() => undefined).column([new Date(0)])).toThrow(Unencodable);
    // eslint-disable-next-line no-sparse-arrays
    expect(() => new Encoder(() => undefined).column([[1, , 3]])).toThrow(Unencodable);
    expect(() => new Encoder(() => undefined).column([() => 1])).toThrow(Unencodable);
  });

  it('refuses a column that does not read as one it writes', () => {
    const dec = new Decoder([], () => {
      throw new Error('unused');
    });
    expect(() => dec.column({ n: 2, kinds: new Uint8Array(1) })).toThrow(Undecodable);
  });
});
