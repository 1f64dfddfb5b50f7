import { ExtractionBusyError } from './errors.ts';

export interface SlotOptions {
  /** Extractions running at once. */
  concurrency: number;
  /** Longest a queued extraction waits for a slot before it is refused. */
  maxWaitMs: number;
  /** Extractions waiting at once; one more is refused at once (each holds its upload in memory). */
  maxQueue?: number;
}

export const DEFAULT_SLOTS: SlotOptions = { concurrency: 2, maxWaitMs: 10_000 };

/**
 * A process's extraction slots: at most `concurrency` extractions run at once (each is a worker
 * thread with its own heap), the next ones wait in order, and one that waits too long, or finds
 * the queue full, is refused with an ExtractionBusyError.
 */
export class ExtractionSlots {
  readonly #concurrency: number;
  readonly #maxWaitMs: number;
  readonly #maxQueue: number;
  readonly #waiting: (() => void)[] = [];
  #running = 0;

  constructor(options: SlotOptions = DEFAULT_SLOTS) {
    this.#concurrency = options.concurrency;
    this.#maxWaitMs = options.maxWaitMs;
    this.#maxQueue = options.maxQueue ?? options.concurrency * 8;
  }

  /** Extractions running now. */
  get running(): number {
    return this.#running;
  }

  /** Extractions waiting for a slot now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Runs `task` in a slot; throws ExtractionBusyError when none frees up in time. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    await this.#acquire();
    try {
      return await task();
    } finally {
      this.#release();
    }
  }

  #busy(): ExtractionBusyError {
    return new ExtractionBusyError(Math.max(1, Math.ceil(this.#maxWaitMs / 1000)));
  }

  #acquire(): Promise<void> {
    if (this.#running < this.#concurrency) {
      this.#running += 1;
      return Promise.resolve();
    }
    if (this.#waiting.length >= this.#maxQueue) return Promise.reject(this.#busy());
    return new Promise((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const index = this.#waiting.indexOf(grant);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(this.#busy());
      }, this.#maxWaitMs);
      this.#waiting.push(grant);
    });
  }

  #release(): void {
    // The slot passes straight to the next in line, so the running count stays as it is.
    const next = this.#waiting.shift();
    if (next) next();
    else this.#running -= 1;
  }
}
