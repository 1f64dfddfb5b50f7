/**
 * `closed`: calls go through; `open`: the endpoint kept failing and is skipped until its cool-down
 * ends; `half_open`: the cool-down ended and one call (the probe) may go, whose outcome closes the
 * circuit or opens it again.
 */
export type BreakerState = 'closed' | 'open' | 'half_open';

/** How a call was let through: while closed, as the probe, or forced (see `Breakers.acquire`). */
export type Taken = 'closed' | 'probe' | 'forced';

export interface BreakerOptions {
  /** Failures in a row that open an endpoint's circuit. */
  failures: number;
  /** How long an open circuit skips its endpoint before one probe call may go. */
  coolDownMs: number;
  /** Told each change of an endpoint's state. */
  onChange?: (endpoint: string, from: BreakerState, to: BreakerState) => void;
  now?: () => number;
}

interface Circuit {
  failures: number;
  openedAt: number | null;
  probing: boolean;
}

/**
 * A circuit breaker per model endpoint, so a turn does not wait on an endpoint that keeps failing
 * (each try can cost the chunk timeout) while another configuration can answer. Kept in memory per
 * agent instance: each instance learns for itself, and a restart starts closed.
 */
export class Breakers {
  readonly #circuits = new Map<string, Circuit>();
  readonly #options: BreakerOptions;

  constructor(options: BreakerOptions) {
    this.#options = options;
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }

  #circuit(endpoint: string): Circuit {
    let circuit = this.#circuits.get(endpoint);
    if (!circuit) {
      circuit = { failures: 0, openedAt: null, probing: false };
      this.#circuits.set(endpoint, circuit);
    }
    return circuit;
  }

  state(endpoint: string): BreakerState {
    const circuit = this.#circuits.get(endpoint);
    if (!circuit || circuit.openedAt === null) return 'closed';
    return this.#now() - circuit.openedAt >= this.#options.coolDownMs ? 'half_open' : 'open';
  }

  /** Whether a call could go to the endpoint now (without taking the probe). */
  allows(endpoint: string): boolean {
    const state = this.state(endpoint);
    return state === 'closed' || (state === 'half_open' && !this.#circuit(endpoint).probing);
  }

  /**
   * Takes the right to call the endpoint: `closed`, any number of callers; `probe`, once the
   * cool-down ended, one caller at a time; null, not now. Each taking, and a call made without one
   * (`forced`: nothing else could answer), ends with `succeeded`, `failed` or `released`.
   */
  acquire(endpoint: string): Taken | null {
    if (!this.allows(endpoint)) return null;
    if (this.state(endpoint) === 'closed') return 'closed';
    this.#circuit(endpoint).probing = true;
    this.#options.onChange?.(endpoint, 'open', 'half_open');
    return 'probe';
  }

  /** The endpoint answered: its circuit closes, however it was called. */
  succeeded(endpoint: string): void {
    const circuit = this.#circuits.get(endpoint);
    if (!circuit) return;
    const was = this.state(endpoint);
    this.#circuits.delete(endpoint);
    if (was !== 'closed') this.#options.onChange?.(endpoint, was, 'closed');
  }

  failed(endpoint: string, taken: Taken): void {
    const circuit = this.#circuit(endpoint);
    circuit.failures += 1;
    if (taken === 'probe') {
      // A failed probe opens it again at once, for another cool-down.
      circuit.probing = false;
      circuit.openedAt = this.#now();
      this.#options.onChange?.(endpoint, 'half_open', 'open');
    } else if (circuit.openedAt === null && circuit.failures >= this.#options.failures) {
      circuit.openedAt = this.#now();
      this.#options.onChange?.(endpoint, 'closed', 'open');
    }
  }

  /** The call ended in a way that says nothing of the endpoint (a refused request, our own failure). */
  released(endpoint: string, taken: Taken): void {
    const circuit = this.#circuits.get(endpoint);
    if (circuit && taken === 'probe') circuit.probing = false;
  }
}
