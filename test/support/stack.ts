import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { createTestDatabase } from '@munim/db/testing';
import { createDemoBooks } from '@munim/demo-books';
import { type RunningStack, type ServiceName, startStack } from '@munim/devstack';
import { type ScriptedLlm, startScriptedLlm } from '@munim/scripted-llm';
import pg from 'pg';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface TestSystem {
  stack: RunningStack;
  gatewayUrl: string;
  books: ReturnType<typeof createDemoBooks>;
  llm: ScriptedLlm | undefined;
  db: pg.Pool;
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
  opts: { llm?: boolean; scale?: Partial<Record<ServiceName, number>>; env?: Record<string, string> } = {},
) {
  const prefix = `e2e${randomBytes(4).toString('hex')}`;
  const database = await createTestDatabase();
  const books = createDemoBooks();
  const booksServer = await books.listen(0, '127.0.0.1');
  const llm = opts.llm === false ? undefined : await startScriptedLlm({ apiKey: 'sk-test' });
  const port = await freePort();
  const logs: string[] = [];
  const stack = await startStack({
    env: {
      NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
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
    scale: opts.scale,
    onLine: (instance, line) => logs.push(`[${instance}] ${line}`),
  });
  const db = new pg.Pool({ connectionString: database.url, max: 2 });
  const system: TestSystem = {
    stack,
    gatewayUrl: stack.gatewayUrl,
    books,
    llm,
    db,
    prefix,
    logs,
    async stop() {
      await stack.stop();
      await db.end();
      await llm?.close();
      await booksServer.close();
      await cleanupStreams(prefix);
      await database.drop();
    },
  };
  return system;
}

async function cleanupStreams(prefix: string) {
  const { connect } = await import('@nats-io/transport-node');
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
  const jsm = await jetstreamManager(nc);
  for (const name of ['WORK', 'EVENTS'])
    await jsm.streams.delete(`${prefix.toUpperCase()}_${name}`).catch(() => {});
  await nc.close();
}
