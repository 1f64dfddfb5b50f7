import type { TenantUsage, UsageTenant, UsageWindow } from '@munim/db';
import { type Logger, QUOTA_STORE_UNREACHABLE_MESSAGE, quotaMessage } from '@munim/kit';

/** Tokens held for one model call until it is settled. */
export interface TokenReservation {
  tenant: UsageTenant;
  tokens: number;
  window: UsageWindow;
}

/** The outcome of {@link TokenQuota.reserve}: the reservation (null when nothing was counted), or why not. */
export type Reserve = { reserved: TokenReservation | null } | { refused: string };

/**
 * The agent's side of the per-tenant model token quota (issue 17 item 10, issue 27 item 6): before
 * a model call its most tokens (the prompt's estimate and its `max_tokens`) are reserved in the
 * rows every gateway and agent instance shares, in one conditional upsert, so concurrent calls of a
 * tenant cannot together pass the quota; after it, the reservation is settled to what the call
 * spent. A usage table that cannot be reached refuses the call, unless `admit` is configured.
 */
export class TokenQuota {
  readonly #usage: TenantUsage;
  readonly #limit: number;
  readonly #log: Logger;
  readonly #whenUnreachable: 'refuse' | 'admit';

  constructor(
    usage: TenantUsage,
    limit: number,
    log: Logger,
    whenUnreachable: 'refuse' | 'admit' = 'refuse',
  ) {
    this.#usage = usage;
    this.#limit = limit;
    this.#log = log;
    this.#whenUnreachable = whenUnreachable;
  }

  /** Reserves `tokens` of the tenant's quota for one call, or the refusal fit for the user (when it resets). */
  async reserve(tenant: UsageTenant, tokens: number): Promise<Reserve> {
    const amount = Math.max(1, Math.ceil(tokens));
    try {
      const take = await this.#usage.take(tenant, 'tokens', amount, this.#limit);
      if (take.taken) return { reserved: { tenant, tokens: amount, window: this.#usage.window() } };
      return {
        refused: quotaMessage({
          kind: 'tokens',
          limit: this.#limit,
          windowMs: this.#usage.windowMs,
          resetsAt: take.window.end,
          now: this.#usage.now(),
        }),
      };
    } catch (error) {
      if (this.#whenUnreachable === 'admit') {
        this.#log.warn(
          { err: error },
          'token quota not checked: the usage table is not reachable; the call goes ahead',
        );
        return { reserved: null };
      }
      this.#log.warn({ err: error }, 'model call refused: the token quota’s usage table is not reachable');
      return { refused: QUOTA_STORE_UNREACHABLE_MESSAGE };
    }
  }

  /**
   * Replaces a reservation by the tokens the call spent (none when it failed); a failure is logged,
   * never thrown. A call that ends in a later window returns nothing to that window's count.
   */
  async settle(reservation: TokenReservation | null, spent: number): Promise<void> {
    if (!reservation) return;
    const sameWindow = this.#usage.window().start === reservation.window.start;
    const delta = sameWindow ? spent - reservation.tokens : Math.max(0, spent - reservation.tokens);
    if (delta === 0) return;
    try {
      await this.#usage.add(reservation.tenant, 'tokens', delta);
    } catch (error) {
      this.#log.warn({ err: error, delta }, 'model tokens not settled: the usage table is not reachable');
    }
  }
}
