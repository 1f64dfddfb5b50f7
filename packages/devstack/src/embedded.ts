import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createConnection } from 'node:net';

/** Whether something accepts TCP connections at host:port. */
export function isListening(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function waitListening(host: string, port: number, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await isListening(host, port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not start listening on ${host}:${port}`);
}

export interface Embedded {
  url: string;
  stop(): Promise<void>;
}

/**
 * The local NATS: the one at 127.0.0.1:4222 if something answers there, otherwise a
 * `nats-server` from PATH with JetStream, storing under `dataDir`.
 */
export async function ensureNats(dataDir: string): Promise<Embedded> {
  const url = 'nats://127.0.0.1:4222';
  if (await isListening('127.0.0.1', 4222)) return { url, stop: async () => {} };
  mkdirSync(dataDir, { recursive: true });
  let child: ChildProcess;
  try {
    child = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', '4222', '-sd', dataDir], {
      stdio: 'ignore',
    });
  } catch (error) {
    throw new Error('no NATS answers at 127.0.0.1:4222 and nats-server is not on PATH; set NATS_URL', {
      cause: error,
    });
  }
  const failed = new Promise<never>((_, reject) =>
    child.once('error', (e) =>
      reject(
        new Error('no NATS answers at 127.0.0.1:4222 and nats-server could not be started; set NATS_URL', {
          cause: e,
        }),
      ),
    ),
  );
  await Promise.race([waitListening('127.0.0.1', 4222, 'nats-server'), failed]);
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
    },
  };
}

/** An embedded PostgreSQL: PGlite stored under `dataDir`, served over the wire protocol. */
export async function startPglite(dataDir: string, port: number): Promise<Embedded> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir);
  const server = new PGLiteSocketServer({ db, port, host: '127.0.0.1', maxConnections: 32 });
  await server.start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}
