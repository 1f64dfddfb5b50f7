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

/**
 * Failed authentications per client address (a presented key or token that is wrong; a missing
 * one is not counted), the address taken through the trusted proxy hops (`clientAddress`). Once
 * an address reaches `max` failures within `windowMs` of its first, it is blocked until that
 * window ends: every request from it gets 429, with a valid credential too, or the answer would
 * tell a guesser which guess was right. Bounded: the oldest addresses are forgotten first.
 */
export class AuthFailures {
  readonly #windows = new Map<string, { failures: number; endsAt: number }>();
  readonly #max: number;
  readonly #windowMs: number;
  readonly #capacity: number;
  readonly #now: () => number;

  constructor(max: number, windowMs: number, opts: { capacity?: number; now?: () => number } = {}) {
    this.#max = max;
    this.#windowMs = windowMs;
    this.#capacity = opts.capacity ?? 100_000;
    this.#now = opts.now ?? Date.now;
  }

  /** Seconds until the address may try again, or 0 when it is not blocked. */
  blockedFor(address: string): number {
    const window = this.#current(address);
    if (!window || window.failures < this.#max) return 0;
    return Math.max(1, Math.ceil((window.endsAt - this.#now()) / 1000));
  }

  /** Counts a failure of the address. */
  fail(address: string): void {
    const window = this.#current(address);
    if (window) {
      window.failures += 1;
      return;
    }
    if (this.#windows.size >= this.#capacity) {
      const oldest = this.#windows.keys().next().value;
      if (oldest !== undefined) this.#windows.delete(oldest);
    }
    this.#windows.set(address, { failures: 1, endsAt: this.#now() + this.#windowMs });
  }

  #current(address: string) {
    const window = this.#windows.get(address);
    if (window && window.endsAt <= this.#now()) {
      this.#windows.delete(address);
      return undefined;
    }
    return window;
  }
}
