/** Why a stream was refused, and when to try again. */
export interface SlotRefusal {
  scope: 'key' | 'total';
  retryAfterSeconds: number;
}

/**
 * Caps on open streams (SSE responses and MCP tool calls): so many per key, token or address, and
 * so many in all. A stream takes a slot before any work starts and gives it back when it ends.
 */
export class StreamSlots {
  readonly #perKey = new Map<string, number>();
  readonly #maxPerKey: number;
  readonly #maxTotal: number;
  #total = 0;

  constructor(maxPerKey: number, maxTotal: number) {
    this.#maxPerKey = maxPerKey;
    this.#maxTotal = maxTotal;
  }

  /** Open streams in all. */
  get open(): number {
    return this.#total;
  }

  /** Open streams of one caller. */
  openFor(key: string): number {
    return this.#perKey.get(key) ?? 0;
  }

  /** Takes a slot for `key`: a release function (safe to call twice), or the refusal. */
  acquire(key: string): (() => void) | SlotRefusal {
    const held = this.#perKey.get(key) ?? 0;
    if (held >= this.#maxPerKey) return { scope: 'key', retryAfterSeconds: 5 };
    if (this.#total >= this.#maxTotal) return { scope: 'total', retryAfterSeconds: 5 };
    this.#perKey.set(key, held + 1);
    this.#total += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total -= 1;
      const left = (this.#perKey.get(key) ?? 1) - 1;
      if (left > 0) this.#perKey.set(key, left);
      else this.#perKey.delete(key);
    };
  }
}
