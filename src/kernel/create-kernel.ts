/**
 * The one way the engine gets a kernel. 'wasm' is the default and the fast path; the
 * 'reference' twin answers identically (the differential property test holds them to
 * it) and needs no build step.
 */
import { ReferenceKernel } from './reference.js';
import type { Kernel } from './types.js';
import { WasmKernel } from './wasm-kernel.js';

/** Which implementation `createKernel` returns. */
export type KernelBackend = Kernel['backend'];

/**
 * A fresh kernel with nothing loaded. The wasm backend throws `kernel/wasm-missing` when
 * build/kernel.wasm has not been built (`npm run build:kernel`).
 */
export function createKernel(backend: KernelBackend = 'wasm'): Kernel {
  return backend === 'wasm' ? new WasmKernel() : new ReferenceKernel();
}
