/**
 * The migration job's stream step, after the database's (`npm run migrate`, the image's
 * SERVICE=migrate, the `npm start` launcher): creates or updates munim's JetStream streams with the
 * NATS_STREAM_* settings the services are given, logged in as the NATS user `migrate`. The
 * services' users may only look at the streams. Without NATS_URL there is nothing to do.
 */
import { type BusLogger, migrateStreams } from '@munim/bus';
import { BaseEnvSchema, ConfigError, natsAuthFromEnv, parseEnv, streamSettingsFromEnv } from './env.ts';
import { createLogger } from './log.ts';

/** Creates or updates the streams on the NATS that `source` names; false when it names none. */
export async function migrateStreamsFromEnv(source: NodeJS.ProcessEnv, log?: BusLogger): Promise<boolean> {
  if (!source.NATS_URL) return false;
  const env = parseEnv(BaseEnvSchema, source);
  await migrateStreams({
    servers: env.NATS_URL,
    prefix: env.NATS_PREFIX,
    auth: natsAuthFromEnv(env),
    streams: streamSettingsFromEnv(env),
    ...(log ? { log } : {}),
  });
  return true;
}

if (import.meta.main) {
  const log = createLogger('migrate', process.env.LOG_LEVEL || 'info');
  try {
    if (await migrateStreamsFromEnv(process.env, log))
      log.info({ prefix: process.env.NATS_PREFIX || 'munim' }, 'the JetStream streams are current');
    else
      log.info({}, 'NATS_URL is not set: no streams made (the services make them on a NATS without users)');
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`migrate: ${error.message}\n`);
      process.exit(2);
    }
    log.fatal({ err: error }, 'the JetStream streams could not be made');
    process.exitCode = 1;
  }
}
