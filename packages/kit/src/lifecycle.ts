import type { Logger } from 'pino';
import { ConfigError } from './env.ts';
import type { HealthServer } from './health.ts';
import { createLogger } from './log.ts';
import { startTelemetry } from './telemetry.ts';

export type Stop = () => Promise<void>;

/**
 * The stop of a service's main: its own parts in the order given (consumers, servers, timers), then
 * its bus, drained so the replies and events of the work that was in flight still leave, then its
 * database pool, which that work used until the end.
 */
export function stopService(
  parts: readonly { stop(): Promise<void> }[],
  bus: { close(): Promise<void> },
  db?: { destroy(): Promise<void> } | undefined,
): Stop {
  return async () => {
    for (const part of parts) await part.stop();
    await bus.close();
    await db?.destroy();
  };
}

/** What a started service hands back: how to stop it, within how long, and its probe server (if any). */
export interface Running {
  stop: Stop;
  shutdownTimeoutMs?: number;
  /** From `serveHealthHttp`: reports not ready as soon as shutdown starts, and closes after `stop`. */
  probes?: HealthServer | undefined;
}

/**
 * Runs a service's main: starts it, then on SIGINT/SIGTERM stops it within the deadline.
 * A bad configuration ends the process with exit code 2 and a message naming the variable.
 */
export async function runMain(service: string, start: (log: Logger) => Promise<Running>): Promise<void> {
  const log = createLogger(service, process.env.LOG_LEVEL || 'info');
  let running: Running;
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
      // Not ready first, so the kubelet takes the pod out of service while in-flight work finishes;
      // still live until the end, so it is not restarted mid-shutdown.
      running.probes?.drain();
      await running.stop();
      await running.probes?.close();
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
