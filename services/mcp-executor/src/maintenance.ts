import type { ExecutorContext } from './context.ts';

/** The executor's periodic work, running. */
export interface Maintenance {
  /** Stops the schedules. */
  stop(): void;
}

/** Adds the call counts gathered so far to `tool_registry.usage_count`; a failure is logged. */
export function flushUsage(ctx: ExecutorContext): Promise<void> | undefined {
  return ctx.usage
    ?.flush()
    .catch((error: unknown) => ctx.log.warn({ err: error }, 'could not store tool usage counts'));
}

/**
 * Starts the periodic work: the tool registry refreshed, expired idempotency keys deleted (once
 * now, then on schedule), call counts stored.
 */
export function startMaintenance(ctx: ExecutorContext): Maintenance {
  const { config, log, pool, idempotency } = ctx;
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, work: () => void) => {
    const timer = setInterval(work, ms);
    timer.unref();
    timers.push(timer);
  };
  every(config.registryRefreshMs ?? 5 * 60_000, () => void pool.refresh('periodic'));
  const purge = () =>
    void idempotency
      .purge()
      .then((purged) => purged > 0 && log.info({ purged }, 'expired idempotency keys deleted'))
      .catch((error: unknown) => log.warn({ err: error }, 'idempotency purge failed'));
  purge();
  every(config.idempotencyPurgeMs ?? 3_600_000, purge);
  every(config.usageFlushMs ?? 5_000, () => void flushUsage(ctx));
  return {
    stop() {
      for (const timer of timers) clearInterval(timer);
    },
  };
}
