import type { TenantUsage, UsageTenant, UsageWindow } from '@munim/db';
import { QUOTA_STORE_UNREACHABLE_MESSAGE, quotaMessage } from '@munim/kit';
import type { Logger } from 'pino';
import { HttpRefusal, httpError } from './http-errors.ts';

/** Per-tenant limits per window; undefined: no limit. */
export interface QuotaLimits {
  queries?: number | undefined;
  tokens?: number | undefined;
}

/** A tenant refused by one of its quotas (or because they cannot be checked), with the answer's parts. */
export interface QuotaRefusal {
  kind: 'queries' | 'tokens' | 'unreachable';
  retryAfterSeconds: number;
  message: string;
}

/** How long a client refused for an unreachable usage table is asked to wait. */
const UNREACHABLE_RETRY_SECONDS = 30;

/**
 * The gateway's side of the per-tenant quotas (queries and tokens per window), kept in PostgreSQL so every
 * gateway instance counts in the same rows: a query is admitted only while the tenant's token
 * quota (spent by the agents) is not used up and its query quota has room, and then counted.
 * The tenant is known only inside the handlers (after validation, transcription, or in an MCP
 * tool call), so they ask this gate rather than a route hook. A database that cannot be reached
 * refuses the query (503), so an outage is never a way past the quotas, unless the deployment set
 * `QUOTA_STORE_UNREACHABLE=admit` (then it is admitted uncounted, logged).
 */
export class QuotaGate {
  readonly #usage: TenantUsage | undefined;
  readonly #limits: QuotaLimits;
  readonly #log: Logger;
  readonly #whenUnreachable: 'refuse' | 'admit';

  constructor(
    usage: TenantUsage | undefined,
    limits: QuotaLimits,
    log: Logger,
    whenUnreachable: 'refuse' | 'admit' = 'refuse',
  ) {
    this.#usage = usage;
    this.#limits = limits;
    this.#log = log;
    this.#whenUnreachable = whenUnreachable;
  }

  /** Whether any quota is kept (then work that costs must name its tenant). */
  get counting(): boolean {
    return this.#usage !== undefined;
  }

  /** Counts one query of the tenant, unless a quota is used up: then the refusal, and nothing is counted. */
  async admit(tenant: UsageTenant): Promise<QuotaRefusal | null> {
    return this.#guarded(tenant, async (usage) => {
      const tokens = await this.#tokensRefusal(usage, tenant);
      if (tokens) return tokens;
      const limit = this.#limits.queries;
      if (limit === undefined) return null;
      const take = await usage.take(tenant, 'queries', 1, limit);
      return take.taken ? null : this.#refusal(usage, 'queries', limit, take.window);
    });
  }

  /** The refusal a query of the tenant would get now, counting nothing (before paying for a transcription). */
  async check(tenant: UsageTenant): Promise<QuotaRefusal | null> {
    return this.#guarded(tenant, async (usage) => {
      const tokens = await this.#tokensRefusal(usage, tenant);
      if (tokens) return tokens;
      const limit = this.#limits.queries;
      if (limit === undefined) return null;
      const window = usage.window();
      const used = await usage.count(tenant, 'queries', window);
      return used >= limit ? this.#refusal(usage, 'queries', limit, window) : null;
    });
  }

  async #guarded(
    tenant: UsageTenant,
    run: (usage: TenantUsage) => Promise<QuotaRefusal | null>,
  ): Promise<QuotaRefusal | null> {
    if (!this.#usage) return null;
    try {
      return await run(this.#usage);
    } catch (error) {
      const admit = this.#whenUnreachable === 'admit';
      this.#log.warn(
        { err: error, entityId: tenant.entityId, orgId: tenant.orgId },
        `quota not checked: the usage table is not reachable; the query is ${admit ? 'admitted' : 'refused'}`,
      );
      return admit
        ? null
        : {
            kind: 'unreachable',
            retryAfterSeconds: UNREACHABLE_RETRY_SECONDS,
            message: QUOTA_STORE_UNREACHABLE_MESSAGE,
          };
    }
  }

  async #tokensRefusal(usage: TenantUsage, tenant: UsageTenant): Promise<QuotaRefusal | null> {
    const limit = this.#limits.tokens;
    if (limit === undefined) return null;
    const window = usage.window();
    const spent = await usage.count(tenant, 'tokens', window);
    return spent >= limit ? this.#refusal(usage, 'tokens', limit, window) : null;
  }

  #refusal(usage: TenantUsage, kind: 'queries' | 'tokens', limit: number, window: UsageWindow): QuotaRefusal {
    const message = quotaMessage({
      kind,
      limit,
      windowMs: usage.windowMs,
      resetsAt: window.end,
      now: usage.now(),
    });
    return { kind, retryAfterSeconds: usage.secondsUntilEnd(window), message };
  }
}

/**
 * The 429 of a quota refusal: `Retry-After` until the window ends, RATE_LIMITED naming the quota;
 * or, while the quotas cannot be checked, 503 SERVICE_UNAVAILABLE with a short `Retry-After`.
 */
export function quotaRefusalError(refusal: QuotaRefusal): HttpRefusal {
  const unreachable = refusal.kind === 'unreachable';
  const code = unreachable ? 'SERVICE_UNAVAILABLE' : 'RATE_LIMITED';
  return new HttpRefusal(unreachable ? 503 : 429, httpError(code, refusal.message), {
    headers: { 'retry-after': String(refusal.retryAfterSeconds) },
  });
}
