/**
 * Rendered responses of the version being served, by what was asked and by whom: a
 * question asked again is answered without a trip to the engine thread. Bounded by
 * entries and by bytes, the least recently used going first, and emptied when a new
 * version is swapped in (a key holds the version too, so no stale entry is ever served).
 */

/** One stored response. */
export interface CachedResponse {
  status: number;
  text: string;
  decisions: string[];
  version: string;
}

/** An LRU of responses. */
export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse>();
  private bytes = 0;

  constructor(
    readonly maxEntries: number,
    readonly maxBytes: number,
  ) {}

  /** The stored response for `key`, made most recent. */
  get(key: string): CachedResponse | undefined {
    const e = this.entries.get(key);
    if (e) {
      this.entries.delete(key);
      this.entries.set(key, e);
    }
    return e;
  }

  /** Stores a response; one larger than a tenth of the byte budget is not kept. */
  set(key: string, value: CachedResponse): void {
    const size = value.text.length * 2 + key.length * 2;
    if (this.maxEntries <= 0 || size > this.maxBytes / 10) return;
    const old = this.entries.get(key);
    if (old) this.forget(key, old);
    this.entries.set(key, value);
    this.bytes += size;
    while (this.entries.size > this.maxEntries || this.bytes > this.maxBytes) {
      const [k, v] = this.entries.entries().next().value!;
      this.forget(k, v);
    }
  }

  /** Empties the cache (a new version). */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Approximate bytes held (UTF-16 code units × 2). */
  get heldBytes(): number {
    return this.bytes;
  }

  private forget(key: string, value: CachedResponse): void {
    this.entries.delete(key);
    this.bytes -= value.text.length * 2 + key.length * 2;
  }
}
