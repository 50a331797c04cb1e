/**
 * GPU-mask helpers for the pure-TS twin, the readable counterparts of
 * `assembly/bitmap.ts`. Masks are kept unsigned (`>>> 0`) so a 32-GPU node's bit 31
 * compares equal to what the wasm kernel returns.
 */

/** Number of set bits in a 32-bit mask. */
export function popcount(mask: number): number {
  let x = mask >>> 0;
  let count = 0;
  while (x !== 0) {
    x &= x - 1;
    count++;
  }
  return count;
}

/** The node's GPUs as a mask: the low `gpus` bits. */
export function fullMask(gpus: number): number {
  return gpus >= 32 ? 0xffffffff : 2 ** gpus - 1;
}

/** Free GPUs of a node as a mask. */
export function freeMask(usedMask: number, gpus: number): number {
  return (~usedMask & fullMask(gpus)) >>> 0;
}

/** True for 1, 2, 4, 8, 16, 32. */
export function isPowerOfTwo(g: number): boolean {
  return g > 0 && (g & (g - 1)) === 0;
}

/** Mask of the aligned block of `g` GPUs that starts at GPU `start`. */
export function blockMask(start: number, g: number): number {
  return (fullMask(g) * 2 ** start) >>> 0;
}

/** Starts (ascending) of the aligned blocks of size `g` whose GPUs are all free. */
export function freeAlignedBlocks(free: number, gpus: number, g: number): number[] {
  const starts: number[] = [];
  for (let start = 0; start + g <= gpus; start += g) {
    const block = blockMask(start, g);
    if ((free & block) >>> 0 === block) starts.push(start);
  }
  return starts;
}

/** The `g` lowest-index GPUs of `free` (the caller knows there are at least g). */
export function lowestFree(free: number, g: number): number {
  let mask = 0;
  let taken = 0;
  for (let bit = 0; bit < 32 && taken < g; bit++) {
    const b = 2 ** bit;
    if (Math.floor(free / b) % 2 === 1) {
      mask += b;
      taken++;
    }
  }
  return mask >>> 0;
}
