import { type Kysely, sql } from 'kysely';
import type { Database, UsageKind } from './schema.ts';

/** Whose usage is counted: an entity within an organisation (never an entity alone). */
export interface UsageTenant {
  entityId: string;
  orgId: string;
}

/** A fixed window, `[start, end)` in ms since the epoch. */
export interface UsageWindow {
  start: number;
  end: number;
}

/** The outcome of {@link TenantUsage.take}: the new count, or a refusal and when the window ends. */
export type Take = { taken: true; count: number } | { taken: false; count: number; window: UsageWindow };

export interface TenantUsageOptions {
  /** Length of a window; every instance must use the same, so they count in the same rows. */
  windowMs: number;
  /** The clock, in ms since the epoch (tests move it). */
  now?: (() => number) | undefined;
}

/** Rows of windows that ended longer ago than this are deleted. */
const KEEP_ENDED_MS = 24 * 60 * 60_000;

/**
 * Per-tenant usage per fixed window in `tenant_usage`, shared by every gateway and agent instance:
 * each change is one atomic upsert, so concurrent instances never lose or double a count. Windows
 * are aligned to the epoch, so instances agree on them without talking to each other.
 */
export class TenantUsage {
  readonly windowMs: number;
  readonly #db: Kysely<Database>;
  readonly #now: () => number;
  #prunedWindow = 0;

  constructor(db: Kysely<Database>, options: TenantUsageOptions) {
    this.#db = db;
    this.windowMs = options.windowMs;
    this.#now = options.now ?? Date.now;
  }

  /** The time by this usage's clock, in ms since the epoch. */
  now(): number {
    return this.#now();
  }

  /** The window that holds `at` (default: now). */
  window(at = this.#now()): UsageWindow {
    const start = Math.floor(at / this.windowMs) * this.windowMs;
    return { start, end: start + this.windowMs };
  }

  /** Whole seconds from now until `window` ends; at least 1 (a Retry-After). */
  secondsUntilEnd(window = this.window()): number {
    return Math.max(1, Math.ceil((window.end - this.#now()) / 1000));
  }

  /**
   * Adds `amount` to the tenant's count of `kind` in the current window, unless that would take it
   * past `limit`: then nothing is added and the refusal says when the window ends.
   */
  async take(tenant: UsageTenant, kind: UsageKind, amount: number, limit: number): Promise<Take> {
    const window = this.window();
    this.#pruneOnce(window);
    if (amount <= limit) {
      const row = await this.#db
        .insertInto('tenant_usage')
        .values(this.#row(tenant, kind, window, amount))
        .onConflict((oc) =>
          oc
            .columns(['entity_id', 'org_id', 'window_start', 'kind'])
            .doUpdateSet((eb) => ({
              count: eb('tenant_usage.count', '+', eb.ref('excluded.count')),
              updated_at: sql<Date>`now()`,
            }))
            .where('tenant_usage.count', '<=', limit - amount),
        )
        .returning('count')
        .executeTakeFirst();
      if (row) return { taken: true, count: Number(row.count) };
    }
    return { taken: false, count: await this.count(tenant, kind, window), window };
  }

  /** Adds `amount` to the tenant's count of `kind` in the current window, whatever the limit; the new count. */
  async add(tenant: UsageTenant, kind: UsageKind, amount: number): Promise<number> {
    const window = this.window();
    this.#pruneOnce(window);
    const row = await this.#db
      .insertInto('tenant_usage')
      .values(this.#row(tenant, kind, window, amount))
      .onConflict((oc) =>
        oc.columns(['entity_id', 'org_id', 'window_start', 'kind']).doUpdateSet((eb) => ({
          count: eb('tenant_usage.count', '+', eb.ref('excluded.count')),
          updated_at: sql<Date>`now()`,
        })),
      )
      .returning('count')
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** The tenant's count of `kind` in `window` (default: the current one). */
  async count(tenant: UsageTenant, kind: UsageKind, window = this.window()): Promise<number> {
    const row = await this.#db
      .selectFrom('tenant_usage')
      .select('count')
      .where('entity_id', '=', tenant.entityId)
      .where('org_id', '=', tenant.orgId)
      .where('window_start', '=', new Date(window.start))
      .where('kind', '=', kind)
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  /** Deletes the rows of windows that ended more than a day ago; how many. */
  async prune(): Promise<number> {
    const before = new Date(this.window().start - this.windowMs - KEEP_ENDED_MS);
    const result = await this.#db
      .deleteFrom('tenant_usage')
      .where('window_start', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  #row(tenant: UsageTenant, kind: UsageKind, window: UsageWindow, amount: number) {
    return {
      entity_id: tenant.entityId,
      org_id: tenant.orgId,
      window_start: new Date(window.start),
      kind,
      count: amount,
    };
  }

  /** Old rows go once per window per instance; a failure waits for the next window. */
  #pruneOnce(window: UsageWindow): void {
    if (this.#prunedWindow === window.start) return;
    this.#prunedWindow = window.start;
    this.prune().catch(() => undefined);
  }
}
