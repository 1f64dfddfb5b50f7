import type { Bus, MessageContext, RunningConsumer } from '@munim/bus';
import type { AgentEvent, Message } from '@munim/contracts';
import { type Database, migrateToLatest, pingDb } from '@munim/db';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { storeEvent } from './store.ts';

export { fold, foldEvent, type RoutingLog, WRITE_PREFLIGHT_BLOCK } from './fold.ts';
export { StoreEventError, storeEvent } from './store.ts';

/** Durable consumer shared by every logger instance. */
export const LOGGER_DURABLE = 'logger';

export interface LoggerConfig {
  /** Events stored at once by this instance. */
  concurrency: number;
  /**
   * Deliveries of one event before it is given up. High, because an event given up is an
   * event missing from the database: with the bus's backoff capped at 30 s, 50 deliveries
   * ride out a database outage of about 20 minutes.
   */
  maxDeliver?: number;
  ackWaitMs?: number;
}

export interface LoggerDeps {
  bus: Bus;
  log: Logger;
  db: Kysely<Database>;
  config: LoggerConfig;
}

export interface LoggerApp {
  /** Migrates the database, then consumes every event. */
  start(): Promise<void>;
  /** Stops consuming and waits for the events being stored. */
  stop(): Promise<void>;
  /** The logger's own dependencies, for `serveHealth`. */
  health(): Promise<Record<string, boolean>>;
}

/** The logger: every event of every request into `request_events`, folded into `query_routing_logs`. */
export async function buildLogger(deps: LoggerDeps): Promise<LoggerApp> {
  const { bus, log, db, config } = deps;
  let consumer: RunningConsumer | undefined;
  // Events of one request are stored one after another, in the order this instance received
  // them (stream order), so the fold sees them in causal order; different requests run in parallel.
  const chains = new Map<string, Promise<unknown>>();

  const handle = (message: Message<AgentEvent>, ctx: MessageContext): Promise<void> => {
    const key = message.requestId;
    const run = (chains.get(key) ?? Promise.resolve()).then(async () => {
      const stored = await storeEvent(db, message, { seq: ctx.seq, traceparent: ctx.traceparent });
      log.debug(
        { requestId: key, eventId: message.id, type: message.data.type, seq: ctx.seq, stored },
        'event',
      );
    });
    const settled = run.catch(() => undefined);
    chains.set(key, settled);
    void settled.then(() => {
      if (chains.get(key) === settled) chains.delete(key);
    });
    return run;
  };

  return {
    async start() {
      await migrateToLatest(db);
      consumer = await bus.consume('requestEvents', handle, {
        durable: LOGGER_DURABLE,
        concurrency: config.concurrency,
        maxDeliver: config.maxDeliver ?? 50,
        ...(config.ackWaitMs !== undefined && { ackWaitMs: config.ackWaitMs }),
        onGiveUp: async (message, error) => {
          log.error(
            { err: error, eventId: message.id, requestId: message.requestId },
            'event given up, not stored',
          );
        },
      });
    },
    async stop() {
      await consumer?.stop();
      consumer = undefined;
    },
    health: async () => ({ postgres: await pingDb(db) }),
  };
}
