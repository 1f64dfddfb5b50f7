import type { TenantUsage, UsageTenant } from '@munim/db';
import { type Logger, quotaMessage } from '@munim/kit';

/**
 * The agent's side of the per-tenant model token quota (issue 17 item 10): before a model call,
 * whether the tenant's tokens for the window are used up; after it, the tokens it spent, counted
 * in the rows every gateway and agent instance reads. A database that cannot be reached lets the
 * call go ahead (logged): quotas must not take the service down with them.
 */
export class TokenQuota {
  readonly #usage: TenantUsage;
  readonly #limit: number;
  readonly #log: Logger;

  constructor(usage: TenantUsage, limit: number, log: Logger) {
    this.#usage = usage;
    this.#limit = limit;
    this.#log = log;
  }

  /** Why the tenant may not call the model now, fit for the user (when it resets); null when it may. */
  async refusal(tenant: UsageTenant): Promise<string | null> {
    const window = this.#usage.window();
    let spent: number;
    try {
      spent = await this.#usage.count(tenant, 'tokens', window);
    } catch (error) {
      this.#log.warn({ err: error }, 'token quota not checked: the usage table is not reachable');
      return null;
    }
    if (spent < this.#limit) return null;
    return quotaMessage({
      kind: 'tokens',
      limit: this.#limit,
      windowMs: this.#usage.windowMs,
      resetsAt: window.end,
      now: this.#usage.now(),
    });
  }

  /** Counts the tokens one model call of the tenant spent; a failure is logged, never thrown. */
  async record(tenant: UsageTenant, tokens: number): Promise<void> {
    if (tokens <= 0) return;
    try {
      await this.#usage.add({ entityId: tenant.entityId, orgId: tenant.orgId }, 'tokens', tokens);
    } catch (error) {
      this.#log.warn({ err: error, tokens }, 'model tokens not counted: the usage table is not reachable');
    }
  }
}
