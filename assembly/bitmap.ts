// Bit helpers over a node's 32-bit GPU mask (bit i = GPU i; see the picture in layout.ts).
// Branch-free where it is cheap: these run once per pool node per query.

/** Mask with the low `gpus` bits set: the GPUs a node has (gpus is 1..32). */
@inline export function fullMask(gpus: u32): u32 {
  return gpus >= 32 ? 0xffffffff : (<u32>1 << gpus) - 1;
}

/** Free GPUs as a mask: bits of the node's GPUs that no running pod holds. */
@inline export function freeMaskOf(usedMask: u32, gpus: u32): u32 {
  return ~usedMask & fullMask(gpus);
}

/** True for 1, 2, 4, ..., 2^31. */
@inline export function isPowerOfTwo(g: u32): bool {
  return g != 0 && (g & (g - 1)) == 0;
}

/** Bits at the multiples of `g` (g a power of two ≤ 32): where aligned blocks may start. */
@inline export function blockStarts(g: u32): u32 {
  // A select chain, not 0xffffffff / (2^g − 1): that 64-bit division cost ~40 cycles and
  // ran several times per bucket move (alignLevel), a large share of a 64x1 placement.
  return g <= 1 ? 0xffffffff : g == 2 ? 0x55555555 : g == 4 ? 0x11111111 : g == 8 ? 0x01010101 : g == 16 ? 0x00010001 : 1;
}

/**
 * Bits at the start of every fully free aligned block of size `g` (a power of two).
 * After folding, bit i holds the AND of free bits i..i+g−1; keeping only multiples of g
 * leaves the aligned blocks. Blocks running past the node's GPUs are never free because
 * `free` has no bits there.
 */
@inline export function freeBlockStarts(free: u32, g: u32): u32 {
  let x = free;
  for (let s: u32 = 1; s < g; s <<= 1) x &= x >>> s;
  return x & blockStarts(g);
}

/** The `g` lowest-index bits of `free` (the caller guarantees popcnt(free) ≥ g). */
@inline export function lowestBits(free: u32, g: u32): u32 {
  let out: u32 = 0;
  let x = free;
  for (let k: u32 = 0; k < g; k++) {
    const b = x & (0 - x);
    out |= b;
    x ^= b;
  }
  return out;
}

/** Mask of the aligned block of size `g` starting at bit `start`. */
@inline export function blockMask(start: u32, g: u32): u32 {
  return fullMask(g) << start;
}
