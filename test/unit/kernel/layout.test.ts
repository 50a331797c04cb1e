import { describe, expect, it } from 'vitest';
import { KERNEL_STATUS } from '../../../src/kernel/kernel-status.js';
import { CRITERIA } from '../../../src/kernel/victim-order.js';
import { LAYOUT, computeRegions, type LayoutSizes } from '../../../src/kernel/layout.js';
import { checkMirrors, instantiateKernel } from '../../../src/kernel/wasm-module.js';
import { coded } from '../../helpers/codes.js';

const wasmGlobal = (exports: object, name: string): unknown => {
  const global = (exports as Record<string, unknown>)[name];
  return global instanceof WebAssembly.Global ? global.value : undefined;
};

const sizes: Array<[string, LayoutSizes]> = [
  ['an empty snapshot', { nodes: 0, jobs: 0, pods: 0, pools: 0, candidateCap: 0, podCap: 0 }],
  ['odd counts that need alignment', { nodes: 3, jobs: 5, pods: 7, pools: 2, candidateCap: 9, podCap: 11 }],
  ['the B3 scale', { nodes: 10_000, jobs: 40_000, pods: 100_000, pools: 3, candidateCap: 40_000, podCap: 1_000 }],
];

describe('kernel layout', () => {
  const wasm = instantiateKernel();

  it('agrees with the wasm on every mirrored constant: layout, status codes, victim criteria (the load-time check)', () => {
    expect(() => checkMirrors(wasm as unknown as WebAssembly.Exports)).not.toThrow();
    // The check is not vacuous: one constant off is refused, naming it.
    const stale = { ...(wasm as unknown as Record<string, unknown>), CRITERION_GPUS: new WebAssembly.Global({ value: 'i32' }, 4) };
    expect(() => checkMirrors(stale as WebAssembly.Exports)).toThrow(coded('kernel/layout-mismatch'));
    // The text is the behaviour here: the refusal names the constant that is off.
    expect(() => checkMirrors(stale as WebAssembly.Exports)).toThrow(/CRITERION_GPUS/);
    expect(wasmGlobal(wasm, 'DEFAULT_ORDER')).toBe(CRITERIA.DEFAULT_ORDER);
  });

  it.each(sizes)('computes the same region offsets as the wasm for %s', (_name, s) => {
    expect(wasm.reserve(s.nodes, s.jobs, s.pods, s.pools, s.candidateCap, s.podCap)).toBe(KERNEL_STATUS.STATUS_OK);
    const fromWasm = Array.from({ length: LAYOUT.REGION_COUNT }, (_, r) => wasm.regionOffset(r));
    expect(fromWasm).toEqual(computeRegions(s));
    expect(wasm.memory.buffer.byteLength).toBeGreaterThanOrEqual(fromWasm[LAYOUT.REGION_END]!);
  });

  it('keeps every region 8-byte aligned for Float64Array views', () => {
    const regions = computeRegions({ nodes: 3, jobs: 5, pods: 7, pools: 2, candidateCap: 9, podCap: 11 });
    expect(regions.every((offset) => offset % 8 === 0)).toBe(true);
  });

  it("keeps AssemblyScript's static data below the kernel's regions", () => {
    expect(wasm.heapBase()).toBeLessThanOrEqual(LAYOUT.LAYOUT_BASE);
  });
});
