/**
 * Finds, compiles and checks `build/kernel.wasm` once per process. Each kernel gets its
 * own instance (its own linear memory) from the one compiled module. The URL is relative
 * to this file, and src/kernel and dist/kernel are both two levels below the package
 * root, so the same line works under vitest (sources) and from the compiled package.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KernelError } from './kernel-error.js';
import { KERNEL_STATUS } from './kernel-status.js';
import { LAYOUT } from './layout.js';
import { CPU_PER_MILLI, LEFT_WEIGHT, SHAPE_LAYOUT } from './fragmentation.js';
import { CRITERIA } from './victim-order.js';

/** Where the kernel build lands (`npm run build:kernel`, see asconfig.json). */
export const KERNEL_WASM_URL = new URL('../../build/kernel.wasm', import.meta.url);

/** The kernel file loaded: `QUOTIENT_KERNEL_WASM` when set (docs/cli.md), else the build's. */
export function kernelWasmPath(): string {
  return process.env.QUOTIENT_KERNEL_WASM || fileURLToPath(KERNEL_WASM_URL);
}

/** The functions `assembly/index.ts` exports; every argument and result is a number. */
export interface KernelExports {
  memory: WebAssembly.Memory;
  callCount(): number;
  noop(): number;
  heapBase(): number;
  workloadPtr(): number;
  setWorkload(count: number): number;
  fragmentationScore(node: number, fromCache: number): number;
  prepareMemo(): number;
  regionOffset(region: number): number;
  reserve(nodes: number, jobCap: number, podStoreCap: number, pools: number, candidateCap: number, podCap: number): number;
  commit(jobs: number, pods: number): number;
  addJob(): number;
  removeJob(job: number): number;
  room(gpu: number, cpu: number, mem: number, pool: number, strict: number): number;
  place(pods: number, gpu: number, cpu: number, mem: number, pool: number, strategy: number, strict: number): number;
  selectVictims(
    pods: number,
    gpu: number,
    cpu: number,
    mem: number,
    pool: number,
    strategy: number,
    strict: number,
    candidates: number,
    constraints: number,
    order: number,
    alternative: number,
    standing: number,
    alone: number,
  ): number;
  aloneCount(): number;
}

let compiled: WebAssembly.Module | null = null;

function compileKernel(): WebAssembly.Module {
  const path = kernelWasmPath();
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = new Uint8Array(readFileSync(path));
  } catch (cause) {
    throw new KernelError('kernel/wasm-missing', `cannot read ${path} (${(cause as Error).message}); run \`npm run build:kernel\``);
  }
  // A truncated or overwritten file, or a build for other imports, is named as such: it is not a bug in Quotient.
  let module: WebAssembly.Module;
  let instance: WebAssembly.Instance;
  try {
    module = new WebAssembly.Module(bytes);
    instance = new WebAssembly.Instance(module, kernelImports());
  } catch (cause) {
    throw new KernelError('kernel/wasm-corrupt', `${path} is not a valid kernel build (${(cause as Error).message}); run \`npm run build:kernel\``);
  }
  checkMirrors(instance.exports);
  return module;
}

/**
 * A stale build whose layout, status codes, victim criteria or fragmentation table (the numbered table of
 * SEMANTICS 5.3, victim-order.ts) differ from the TS mirrors would read and write the
 * wrong bytes, or rank victims differently from the twin, silently; refuse it once, at
 * compile time, instead. Exported for the one test that feeds it a wrong build.
 */
export function checkMirrors(exports: WebAssembly.Exports): void {
  for (const [name, value] of Object.entries({ ...LAYOUT, ...KERNEL_STATUS, ...CRITERIA, ...SHAPE_LAYOUT, LEFT_WEIGHT, CPU_PER_MILLI })) {
    const global = exports[name];
    const actual: unknown = global instanceof WebAssembly.Global ? global.value : undefined;
    if (actual !== value) {
      throw new KernelError('kernel/layout-mismatch', `build/kernel.wasm has ${name} = ${String(actual)}, src/kernel expects ${value}; run \`npm run build:kernel\``);
    }
  }
}

/** The only import: AssemblyScript's abort, which the release build (noAssert) never calls. */
function kernelImports(): WebAssembly.Imports {
  return {
    env: {
      abort(_message: number, _file: number, line: number, column: number): never {
        throw new KernelError('kernel/internal', `wasm kernel aborted at ${line}:${column}`);
      },
    },
  };
}

/** A fresh kernel instance (own memory) from the module compiled once per process. */
export function instantiateKernel(): KernelExports {
  compiled ??= compileKernel();
  return new WebAssembly.Instance(compiled, kernelImports()).exports as unknown as KernelExports;
}
