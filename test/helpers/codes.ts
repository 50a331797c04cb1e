/**
 * Matching errors by code, never by message text (CONTRIBUTING "Add a finding code"):
 * `expect(fn).toThrow(coded('cli/bad-seed'))`, `await expect(p).rejects.toThrow(coded(...))`.
 * A test keeps a text assertion only where the wording itself is the behaviour, and says so.
 */
import { expect } from 'vitest';

/** An asymmetric matcher for an error (QuotientError, KernelError, …) or a finding with this code. */
export function coded(code: string): ReturnType<typeof expect.objectContaining> {
  return expect.objectContaining({ code });
}

/** The codes of findings or reasons, in order. */
export function codesOf(items: ReadonlyArray<{ code: string }>): string[] {
  return items.map((x) => x.code);
}
