/**
 * The system under load, started as `npm start` starts it (scripts/start.ts): a database migrated
 * once before any service starts, the demo books MCP server, and the six services through
 * @munim/devstack's `startStack`, on the machine's NATS under a prefix of its own. Unlike
 * `npm start`, the demo books (and the scripted model, when asked for) run in processes of their
 * own, so their CPU time is theirs; and the database is a fresh one, dropped at the end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createDb, localServiceLogins, migrateToLatest } from '@munim/db';
import { createTestDatabase } from '@munim/db/testing';
import { type RunningStack, type ServiceName, startStack, stopProcess } from '@munim/devstack';
// Not from @munim/testkit's index: that one holds vitest fixtures, which only load inside vitest.
import { freePort } from '@munim/testkit/ports';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { migrateWithBase } from './base.ts';
import type { CpuLimits } from './cgroup.ts';
import { forkScriptedLlm } from './llm.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LLM_KEY = 'sk-bench';

export interface LoadSystem {
  gatewayUrl: string;
  /** Every gateway's URL, one per instance (the first is `gatewayUrl`). */
  gatewayUrls: string[];
  prefix: string;
  databaseUrl: string;
  databaseName: string;
  /** Every process of the system but NATS and PostgreSQL, by the name it is reported under. */
  processes(): Map<number, string>;
  /** The last lines each process wrote (for a failure's explanation), and the error lines. */
  tail(): string[];
  errorLines(): number;
  stop(): Promise<void>;
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

const stopChild = (child: ChildProcess) => stopProcess(child, 'SIGTERM', 10_000);

/** The demo books MCP server (infra/demo-books, as `npm start` serves it) in its own process. */
async function startBooks(
  root: string,
  lines: (line: string) => void,
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['infra/demo-books/src/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', MCP_AUTH_TOKEN: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (b: Buffer) => lines(b.toString()));
  child.stderr?.on('data', (b: Buffer) => lines(b.toString()));
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && running(child)) {
    if (
      await fetch(`${origin}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url: `${origin}/mcp`, child };
    await new Promise((r) => setTimeout(r, 100));
  }
  await stopChild(child);
  throw new Error('the demo books MCP server did not start');
}

/**
 * Starts the whole system; `env` goes to every service over the launcher's settings. With `root`,
 * the services, the demo books and the migrations are those of that checkout (an A/B run's base).
 */
export async function startLoadSystem(opts: {
  llm: boolean;
  env: Record<string, string>;
  root?: string | undefined;
  /** Instances per service (one each when not given); each gateway gets a port of its own. */
  scale?: Partial<Record<ServiceName, number>>;
  /**
   * A CPU limit for every service instance, as its pod would have (not the demo books: they stand
   * in for a customer's MCP server, outside the system). None when not given.
   */
  cpuLimits?: CpuLimits | undefined;
}): Promise<LoadSystem> {
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const prefix = `bench${randomBytes(4).toString('hex')}`;
  const tails = new Map<string, string[]>();
  let errors = 0;
  const onLine = (instance: string, line: string) => {
    const tail = tails.get(instance) ?? [];
    tail.push(line.slice(0, 500));
    tails.set(instance, tail.slice(-20));
    if (/"level":(5|6)\d/.test(line)) errors += 1;
  };
  const cleanup: (() => Promise<void>)[] = [];
  const unwind = async () => {
    for (const step of cleanup.reverse()) await step().catch(() => {});
  };
  try {
    const database = await createTestDatabase();
    cleanup.push(() => database.drop());
    if (opts.root) await migrateWithBase(opts.root, database.url);
    else {
      const db = createDb(database.url, { max: 1 });
      try {
        await migrateToLatest(db);
      } finally {
        await db.destroy();
      }
    }
    // Each service as its own database role, as deployed; a base checkout from before the roles
    // runs its services as the owner, as it always did.
    const owner = createDb(database.url, { max: 1 });
    let serviceEnv: Record<string, Record<string, string>> = {};
    try {
      const rows = await owner
        .selectFrom('kysely_migration' as never)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('name' as never, '=', '0024_service_roles' as never)
        .execute();
      if (Number(rows[0]?.n) > 0) {
        const urls = await localServiceLogins(owner, database.url);
        serviceEnv = Object.fromEntries(Object.entries(urls).map(([s, url]) => [s, { DATABASE_URL: url }]));
      }
    } finally {
      await owner.destroy();
    }
    cleanup.push(() => deleteStreams(natsUrl, prefix));
    const books = await startBooks(opts.root ?? ROOT, (text) => {
      for (const line of text.split('\n')) if (line) onLine('demo-books', line);
    });
    cleanup.push(() => stopChild(books.child));
    const llm = opts.llm ? await forkScriptedLlm(LLM_KEY) : undefined;
    if (llm) cleanup.push(() => llm.stop());
    const gatewayPorts = await Promise.all(
      Array.from({ length: Math.max(0, (opts.scale?.gateway ?? 1) - 1) }, () => freePort()),
    );
    const limitFailures: string[] = [];
    const stack: RunningStack = await startStack({
      env: {
        NATS_URL: natsUrl,
        NATS_PREFIX: prefix,
        DATABASE_URL: database.url,
        MCP_SERVER_URL: books.url,
        MCP_AUTH_TOKEN: undefined,
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        // The model is the scripted one or none, whatever this shell says.
        OPENAI_BASE_URL: llm?.baseURL,
        OPENAI_API_KEY: llm ? LLM_KEY : undefined,
        LLM_MODEL: llm ? 'scripted-model' : undefined,
        ...opts.env,
      },
      serviceEnv,
      scale: opts.scale,
      // The first gateway has the PORT above; each other one its own (two cannot share a port).
      instanceEnv: (service, index) =>
        service === 'gateway' && index >= 2 ? { PORT: String(gatewayPorts[index - 2]) } : undefined,
      onLine,
      onSpawn: ({ child, name, service }) => {
        if (!opts.cpuLimits || !child.pid) return;
        try {
          opts.cpuLimits.limit(child.pid, name, service);
        } catch (error) {
          limitFailures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
        }
      },
      ...(opts.root ? { root: opts.root } : {}),
    });
    cleanup.push(() => stack.stop());
    if (limitFailures.length > 0) throw new Error(`could not put a CPU limit on ${limitFailures.join(', ')}`);
    return {
      gatewayUrl: stack.gatewayUrl,
      gatewayUrls: stack.gatewayUrls,
      prefix,
      databaseUrl: database.url,
      databaseName: database.name,
      processes: () => {
        const out = new Map<number, string>();
        for (const p of stack.processes) if (p.child.pid && running(p.child)) out.set(p.child.pid, p.service);
        if (books.child.pid) out.set(books.child.pid, 'demo-books');
        if (llm?.child.pid) out.set(llm.child.pid, 'scripted-llm');
        return out;
      },
      tail: () => [...tails].flatMap(([instance, lines]) => lines.map((l) => `[${instance}] ${l}`)),
      errorLines: () => errors,
      stop: unwind,
    };
  } catch (error) {
    await unwind();
    throw error;
  }
}

/** The system's JetStream streams on the shared NATS. */
async function deleteStreams(natsUrl: string, prefix: string): Promise<void> {
  const nc = await connect({ servers: natsUrl.split(',').map((s) => s.trim()) });
  try {
    const jsm = await jetstreamManager(nc);
    for (const name of ['WORK', 'EVENTS'])
      await jsm.streams.delete(`${prefix.toUpperCase()}_${name}`).catch(() => {});
  } finally {
    await nc.close();
  }
}
