import { BaseEnvSchema, DatabaseUrlSchema, parseEnv } from '@munim/kit';
import { z } from 'zod';

export const EnvSchema = BaseEnvSchema.extend({
  DATABASE_URL: DatabaseUrlSchema,
  /**
   * Batches written at once by this instance. Each takes a share of the requests, so more of them
   * means smaller batches: 2 wrote a flood faster than 4 (`npm run bench -- logger`) and took half
   * the statements per answer under load (`npm run bench -- load`) on 2 cores.
   */
  LOGGER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(2),
  /** Largest number of events written in one transaction. */
  LOGGER_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(2000),
  /**
   * How long a batch that is not full waits for more events: a little delay in storing for far
   * fewer transactions under load (`npm run bench -- load`).
   */
  LOGGER_LINGER_MS: z.coerce.number().int().min(0).max(1000).default(50),
  /** How long an event handed to an instance that went away waits before another instance gets it. */
  LOGGER_ACK_WAIT_MS: z.coerce.number().int().min(500).default(30_000),
  /** Days `request_events` are kept; 0 keeps them forever. */
  EVENTS_RETENTION_DAYS: z.coerce.number().int().min(0).default(30),
  /** How often feedback not yet learnt (a thumbs up or down) is applied to the routing stats. */
  LOGGER_LEARN_INTERVAL_MS: z.coerce.number().int().min(100).default(2000),
});

/** Parses the logger's environment; a bad variable throws a ConfigError naming it. */
export const loadEnv = (source: NodeJS.ProcessEnv = process.env) => parseEnv(EnvSchema, source);
