/**
 * Kubernetes device counts (`"8"`). A count of devices must be a whole number; cpu and
 * memory quantities go through the policy's own parsers (model/quantity.ts), so an
 * imported snapshot reads back the same.
 */

/** A whole device count such as `status.allocatable["nvidia.com/gpu"]`: `"8"` → 8; anything else → undefined. */
export function parseCount(value: unknown): number | undefined {
  // Past 2^53 a count is no longer exact (1e308 is "an integer" to JavaScript): the policy refuses it, so the import does.
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value.trim())) return undefined;
  const n = Number(value.trim());
  return Number.isSafeInteger(n) ? n : undefined;
}
