import type { Usage } from '@munim/contracts';
import type { TenantUsage, UsageTenant, UsageWindow } from '@munim/db';
import { estimateTokens, type Logger, QUOTA_STORE_UNREACHABLE_MESSAGE, quotaMessage } from '@munim/kit';

/** Tokens held for one model call until it is settled. */
export interface TokenReservation {
  tenant: UsageTenant;
  tokens: number;
  window: UsageWindow;
}

/** The outcome of {@link TokenQuota.reserve}: the reservation (null when nothing was counted), or why not. */
export type Reserve = { reserved: TokenReservation | null } | { refused: string };

/**
 * Tokens held for one LLM correction by the validator beyond the text it corrects: its
 * instructions, the errors and the schema, and its reply (the validator's `max_tokens`, 2048 by default).
 */
const CORRECTION_TOKENS = 8192;

/** The tokens to hold for the validator's LLM corrections of `text`: `corrections` of them at most. */
export function correctionAllowance(text: string, corrections: number): number {
  return corrections > 0 ? estimateTokens(text) + corrections * CORRECTION_TOKENS : 0;
}

/**
 * The agent's side of the per-tenant model token quota: before
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
   * Asks the validator for something it may correct with an LLM (its corrections count against the tenant's quota too): holds up to
   * `tokens` of the tenant's quota first (what is left, when that is less), tells it how many as
   * `ask`'s argument (it makes no correction they do not cover), then settles to what its reply
   * says the corrections spent. A request that fails keeps the hold: what was spent is not known.
   */
  async forCorrections<T extends { correctionUsage?: Usage | undefined }>(
    tenant: UsageTenant,
    tokens: number,
    ask: (correctionTokens: number | undefined) => Promise<T>,
  ): Promise<T> {
    const held = await this.#reserveUpTo(tenant, Math.ceil(tokens));
    const reply = await ask(held === 'unbounded' ? undefined : (held?.tokens ?? 0));
    if (held !== 'unbounded') await this.settle(held, reply.correctionUsage?.total_tokens ?? 0);
    return reply;
  }

  async #reserveUpTo(tenant: UsageTenant, tokens: number): Promise<TokenReservation | null | 'unbounded'> {
    try {
      let amount = Math.min(tokens, this.#limit);
      if (amount <= 0) return null;
      let take = await this.#usage.take(tenant, 'tokens', amount, this.#limit);
      if (!take.taken) {
        amount = this.#limit - take.count;
        if (amount <= 0) return null;
        // Another call may take the rest first; then nothing is held.
        take = await this.#usage.take(tenant, 'tokens', amount, this.#limit);
        if (!take.taken) return null;
      }
      return { tenant, tokens: amount, window: this.#usage.window() };
    } catch (error) {
      const admit = this.#whenUnreachable === 'admit';
      this.#log.warn(
        { err: error },
        admit
          ? 'LLM corrections not bounded: the token quota’s usage table is not reachable'
          : 'LLM corrections not made: the token quota’s usage table is not reachable',
      );
      return admit ? 'unbounded' : null;
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
