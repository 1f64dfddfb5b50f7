/**
 * `closed`: calls go through; `open`: the endpoint kept failing and is skipped until its cool-down
 * ends; `half_open`: the cool-down ended and one call (the probe) may go, whose outcome closes the
 * circuit or opens it again.
 */
export type BreakerState = 'closed' | 'open' | 'half_open';

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
   * Takes the right to call the endpoint: always while closed; once the cool-down ended, one caller
   * at a time (the probe). Each taking is ended by `succeeded`, `failed` or `released`.
   */
  acquire(endpoint: string): boolean {
    if (!this.allows(endpoint)) return false;
    if (this.state(endpoint) === 'half_open') {
      this.#circuit(endpoint).probing = true;
      this.#options.onChange?.(endpoint, 'open', 'half_open');
    }
    return true;
  }

  succeeded(endpoint: string): void {
    const circuit = this.#circuits.get(endpoint);
    if (!circuit) return;
    const was = this.state(endpoint);
    this.#circuits.delete(endpoint);
    if (was !== 'closed') this.#options.onChange?.(endpoint, was, 'closed');
  }

  failed(endpoint: string): void {
    const circuit = this.#circuit(endpoint);
    const probe = circuit.probing;
    circuit.probing = false;
    circuit.failures += 1;
    // A failed probe opens it again at once; a closed circuit after enough failures in a row.
    if (probe || (circuit.openedAt === null && circuit.failures >= this.#options.failures)) {
      circuit.openedAt = this.#now();
      this.#options.onChange?.(endpoint, probe ? 'half_open' : 'closed', 'open');
    }
  }

  /** The call ended in a way that says nothing of the endpoint (a refused request, our own failure). */
  released(endpoint: string): void {
    const circuit = this.#circuits.get(endpoint);
    if (circuit) circuit.probing = false;
  }
}
