/** Content digests: how a file is recognised as unchanged (check-before-replace) and how a journal names content. */
import { createHash } from 'node:crypto';

/** The SHA-256 of the bytes, as hex. */
export function digestOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
