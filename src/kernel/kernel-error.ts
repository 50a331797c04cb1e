/**
 * Codes for the kernel layer's errors (prefix `kernel/`). The kernel throws only for
 * programming errors — a malformed snapshot or query, a missing build — never for "no
 * room", which is an answer (ok=false).
 */
export type KernelErrorCode =
  | 'kernel/wasm-missing'
  | 'kernel/wasm-corrupt'
  | 'kernel/layout-mismatch'
  | 'kernel/not-loaded'
  | 'kernel/invalid-snapshot'
  | 'kernel/invalid-request'
  | 'kernel/invalid-candidate'
  | 'kernel/invalid-constraint'
  | 'kernel/invalid-order'
  | 'kernel/invalid-job'
  | 'kernel/out-of-memory'
  | 'kernel/internal';

/** An error from the kernel layer; match on `code`, not on the message. */
export class KernelError extends Error {
  readonly code: KernelErrorCode;

  constructor(code: KernelErrorCode, message: string) {
    super(`${code}: ${message}`);
    this.name = 'KernelError';
    this.code = code;
  }
}
