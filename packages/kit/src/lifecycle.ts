import type { Logger } from 'pino';
import { ConfigError } from './env.ts';
import { createLogger } from './log.ts';
import { startTelemetry } from './telemetry.ts';

export type Stop = () => Promise<void>;

/**
 * Runs a service's main: starts it, then on SIGINT/SIGTERM stops it within the deadline.
 * A bad configuration ends the process with exit code 2 and a message naming the variable.
 */
export async function runMain(
  service: string,
  start: (log: Logger) => Promise<{ stop: Stop; shutdownTimeoutMs?: number }>,
): Promise<void> {
  const log = createLogger(service, process.env.LOG_LEVEL || 'info');
  let running: { stop: Stop; shutdownTimeoutMs?: number };
  const telemetry = await startTelemetry(service);
  try {
    running = await start(log);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${service}: ${error.message}\n`);
      process.exit(2);
    }
    log.fatal({ err: error }, 'failed to start');
    process.exit(1);
  }
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const deadline = running.shutdownTimeoutMs ?? 10_000;
    log.info({ signal, deadlineMs: deadline }, 'shutting down');
    const timer = setTimeout(() => {
      log.error({ deadlineMs: deadline }, 'shutdown deadline passed; exiting');
      process.exit(1);
    }, deadline);
    timer.unref();
    try {
      await running.stop();
      // Telemetry last: the spans of the shutdown itself are flushed too.
      await telemetry
        .shutdown()
        .catch((error: unknown) => log.warn({ err: error }, 'telemetry flush failed'));
      log.info({}, 'stopped');
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}
