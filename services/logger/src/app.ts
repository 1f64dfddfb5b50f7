import type { Bus } from '@munim/bus';
import { assertSchemaCurrent, type Database, pingDb } from '@munim/db';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { type Ingest, startIngest } from './ingest.ts';
import { type Learner, startLearner } from './learn.ts';
import { type Retention, startRetention } from './retention.ts';
import type { BatchResult } from './store.ts';

export type { IncomingEvent } from './event-records.ts';
export { fold, foldEvent, type RoutingLog, WRITE_PREFLIGHT_BLOCK } from './fold.ts';
export { deleteOldEvents } from './retention.ts';
export { type BatchResult, StoreEventError, storeBatch, storeEvent } from './store.ts';

/** Durable consumer shared by every logger instance. */
export const LOGGER_DURABLE = 'logger';

export interface LoggerConfig {
  /** Batches written at once by this instance; a request's events always go to the same one. */
  concurrency: number;
  /** Largest number of events written in one transaction (default 1,000). */
  batchSize?: number;
  /** How long a batch that is not full waits for more events (default 0: what arrived in the same tick). */
  lingerMs?: number;
  /** Unacked events the durable consumer hands out over all instances (default 10 000). */
  maxAckPending?: number;
  ackWaitMs?: number;
  /** Days `request_events` are kept; 0 (the default here; the service defaults to 30) keeps them forever. */
  retentionDays?: number;
  /** How often old events are deleted (default hourly). */
  retentionIntervalMs?: number;
  /** How often feedback not yet learnt is looked for (default 2 s); new implicit feedback is learnt at once. */
  learnIntervalMs?: number;
  /** Called after each committed batch. */
  onBatch?: (result: BatchResult, size: number) => void;
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

/**
 * The logger: every event of every request into `request_events`, folded into `query_routing_logs`;
 * the feedback on each answer learnt into the routing stats.
 */
export async function buildLogger(deps: LoggerDeps): Promise<LoggerApp> {
  const { bus, log, db, config } = deps;
  let ingest: Ingest | undefined;
  let learner: Learner | undefined;
  let retention: Retention | undefined;

  return {
    async start() {
      await assertSchemaCurrent(db);
      const started = startLearner(db, log, config.learnIntervalMs ?? 2000);
      learner = started;
      ingest = await startIngest(bus, db, log, {
        durable: LOGGER_DURABLE,
        batchSize: config.batchSize ?? 1000,
        lingerMs: config.lingerMs ?? 0,
        partitions: config.concurrency,
        maxAckPending: config.maxAckPending ?? 10_000,
        ackWaitMs: config.ackWaitMs ?? 30_000,
        onBatch: (result, size) => {
          if (result.feedback > 0) started.kick();
          config.onBatch?.(result, size);
        },
      });
      retention = startRetention(db, log, config.retentionDays ?? 0, config.retentionIntervalMs ?? 3_600_000);
    },
    async stop() {
      await retention?.stop();
      retention = undefined;
      await ingest?.stop();
      ingest = undefined;
      await learner?.stop();
      learner = undefined;
    },
    health: async () => ({ postgres: await pingDb(db) }),
  };
}
