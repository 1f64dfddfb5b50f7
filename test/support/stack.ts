import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, localServiceLogins } from '@munim/db';
import { createMigratedTestDatabase } from '@munim/db/testing';
import { createDemoBooks } from '@munim/demo-books';
import { type RunningStack, type ServiceName, type StackOptions, startStack } from '@munim/devstack';
import { type ScriptedLlm, startScriptedLlm } from '@munim/scripted-llm';
// The addresses and ports entries: the package's index holds vitest fixtures, which load only inside vitest (the benches use this file).
import { natsUrl as testNatsUrl } from '@munim/testkit/addresses';
import { freePort } from '@munim/testkit/ports';
import pg from 'pg';
import { type FixtureServer, type ReceivedCall, serveFixtures } from './mcp-fixture.ts';

export { freePort };

/** `application_name` of a test system's own database sessions (`TestSystem.db`). */
export const TEST_SESSION = 'munim-test';

export interface TestSystem {
  stack: RunningStack;
  gatewayUrl: string;
  /** Every gateway started with the system (more than one with `scale.gateway` and `instanceEnv`). */
  gatewayUrls: string[];
  books: ReturnType<typeof createDemoBooks>;
  llm: ScriptedLlm | undefined;
  db: pg.Pool;
  /** The test database's owner login (what \`db\` uses); the services log in as their own roles. */
  databaseUrl: string;
  prefix: string;
  /** Output of every service, for diagnosing a failure. */
  logs: string[];
  stop(): Promise<void>;
}

/**
 * The whole system as separate processes on the real NATS and a fresh PostgreSQL database,
 * with the demo books MCP server and (optionally) the scripted LLM in this process.
 */
export async function startSystem(
  opts: {
    llm?: boolean;
    scale?: Partial<Record<ServiceName, number>>;
    env?: Record<string, string>;
    /** Settings of one instance (e.g. a second gateway's own PORT). */
    instanceEnv?: StackOptions['instanceEnv'];
    /** The test file's `database` fixture: the fixture drops it, not `stop`. */
    database?: { url: string };
    /** The test file's `nats` fixture: the services use its prefix, and the fixture deletes their streams. */
    nats?: { prefix: string };
  } = {},
) {
  const prefix = opts.nats?.prefix ?? `e2e${randomBytes(4).toString('hex')}`;
  const owned = opts.database ? undefined : await createMigratedTestDatabase();
  const database = opts.database ?? owned!;
  // Each service logs in as its own role, as deployed: a grant it lacks fails the test.
  const logins = await serviceLogins(database.url);
  const books = createDemoBooks();
  const booksServer = await books.listen(0, '127.0.0.1');
  const llm = opts.llm === false ? undefined : await startScriptedLlm({ apiKey: 'sk-test' });
  const port = await freePort();
  const logs: string[] = [];
  // The system's own NATS (a test's cluster, say): its streams are cleaned up there too.
  const natsUrl = opts.env?.NATS_URL ?? testNatsUrl();
  const stack = await startStack({
    env: {
      NATS_URL: natsUrl,
      NATS_PREFIX: prefix,
      DATABASE_URL: database.url,
      MCP_SERVER_URL: booksServer.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...(llm
        ? { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-test', LLM_MODEL: 'scripted-model' }
        : {}),
      ...opts.env,
    },
    serviceEnv: opts.env?.DATABASE_URL ? {} : logins,
    scale: opts.scale,
    ...(opts.instanceEnv ? { instanceEnv: opts.instanceEnv } : {}),
    onLine: (instance, line) => logs.push(`[${instance}] ${line}`),
  });
  // Named, so a test can tell the services' sessions from its own.
  const db = new pg.Pool({ connectionString: database.url, max: 2, application_name: TEST_SESSION });
  // The database fixture drops the database once the test is done: an idle connection it ends is no failure.
  db.on('error', () => undefined);
  const system: TestSystem = {
    stack,
    gatewayUrl: stack.gatewayUrl,
    gatewayUrls: stack.gatewayUrls,
    books,
    llm,
    db,
    databaseUrl: database.url,
    prefix,
    logs,
    async stop() {
      await stack.stop();
      await db.end();
      await llm?.close();
      await booksServer.close();
      if (!opts.nats) await cleanupStreams(prefix, natsUrl);
      await owned?.drop();
    },
  };
  return system;
}

/**
 * Each database service's own DATABASE_URL on the (migrated) database of `ownerUrl`: its own
 * role, as deployed, so a grant it lacks fails the test (and a superuser would not start).
 */
export async function serviceLogins(ownerUrl: string): Promise<Record<string, Record<string, string>>> {
  const db = createDb(ownerUrl, { max: 1 });
  try {
    const urls = await localServiceLogins(db, ownerUrl);
    return Object.fromEntries(Object.entries(urls).map(([service, url]) => [service, { DATABASE_URL: url }]));
  } finally {
    await db.destroy();
  }
}

/** Waits until the executor has recorded every tool of `names` in `tool_registry` (it lists servers as they connect). */
export async function waitForTools(
  sys: TestSystem,
  names: readonly string[],
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await sys.db.query<{ tool_name: string }>('select tool_name from tool_registry');
    const have = new Set(rows.map((r) => r.tool_name));
    const missing = names.filter((name) => !have.has(name));
    if (missing.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`tools never listed: ${missing.join(', ')}\n${sys.logs.slice(-20).join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A system over a test's own MCP servers, every tool offered as itself, started once `tools` are listed. */
export interface FixtureSystem {
  sys: TestSystem;
  /** What the server of that name has received so far. */
  received(name: string): ReceivedCall[];
  stop(): Promise<void>;
}

/** Starts `servers` and the system over them; resolves once the executor lists every tool of `tools`. */
export async function startOverFixtures(
  servers: readonly FixtureServer[],
  tools: readonly string[],
  env: Record<string, string> = {},
  /** The test file's `database` and `nats` fixtures, for the system (see `startSystem`). */
  kit: { database?: { url: string }; nats?: { prefix: string } } = {},
): Promise<FixtureSystem> {
  const dir = mkdtempSync(join(tmpdir(), 'fixtures-'));
  const fixtures = await serveFixtures(servers, dir);
  const sys = await startSystem({
    ...kit,
    env: {
      TOOL_STRATEGY: 'direct_llm_all_mcp_tools',
      TOOL_COLLAPSE: 'never',
      TOOLS_CACHE_MS: '2000',
      MCP_SERVERS: JSON.stringify(fixtures.entries),
      ...env,
    },
  });
  await waitForTools(sys, tools);
  return {
    sys,
    received: fixtures.received,
    async stop() {
      await sys.stop();
      await fixtures.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function cleanupStreams(prefix: string, natsUrl: string) {
  const { connect } = await import('@nats-io/transport-node');
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const nc = await connect({ servers: natsUrl.split(',').map((s) => s.trim()) });
  const jsm = await jetstreamManager(nc);
  for (const name of ['WORK', 'EVENTS'])
    await jsm.streams.delete(`${prefix.toUpperCase()}_${name}`).catch(() => {});
  await nc.close();
}
