/**
 * The six services as processes on a nats-server running the shipped infra/nats/nats.conf (TLS with
 * client certificates on top), each logged in as its own user as docker-compose.yml does: what the
 * permission table allows must be all that the real services need.
 */
import { createMigratedTestDatabase, type TestDatabase } from '@munim/db/testing';
import { createDemoBooks } from '@munim/demo-books';
import { type RunningStack, SERVICES, startStack } from '@munim/devstack';
import { type ScriptedLlm, startScriptedLlm } from '@munim/scripted-llm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  makeTls,
  type NatsServer,
  passwordEnv,
  servicePasswords,
  shippedConfWithTls,
  startNatsServer,
  type TlsFiles,
} from '../../packages/bus/test/nats-server.ts';
import { ask } from '../support/sse.ts';

const tenant = { entityId: 'ent-nats-auth', orgId: 'org-nats-auth' };
let tls: TlsFiles;
let nats: NatsServer;
let database: TestDatabase;
let books: { url: string; close(): Promise<void> };
let llm: ScriptedLlm;
let stack: RunningStack;
let db: pg.Pool;
const logs: string[] = [];

beforeAll(async () => {
  tls = makeTls();
  const passwords = servicePasswords();
  nats = await startNatsServer(shippedConfWithTls(tls), passwordEnv(passwords));
  database = await createMigratedTestDatabase();
  books = await createDemoBooks().listen(0, '127.0.0.1');
  llm = await startScriptedLlm({ apiKey: 'sk-test' });
  stack = await startStack({
    env: {
      NATS_URL: nats.url,
      // The prefix the shipped permissions are written for.
      NATS_PREFIX: 'munim',
      NATS_TLS_CA_FILE: tls.ca,
      NATS_TLS_CERT_FILE: tls.clientCert,
      NATS_TLS_KEY_FILE: tls.clientKey,
      DATABASE_URL: database.url,
      MCP_SERVER_URL: books.url,
      OPENAI_BASE_URL: llm.baseURL,
      OPENAI_API_KEY: 'sk-test',
      LLM_MODEL: 'scripted-model',
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
    serviceEnv: Object.fromEntries(SERVICES.map((s) => [s, { NATS_USER: s, NATS_PASSWORD: passwords[s] }])),
    onLine: (instance, line) => logs.push(`[${instance}] ${line}`),
  });
  db = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await stack?.stop();
  await db?.end();
  await llm?.close();
  await books?.close();
  await nats?.stop();
  await database?.drop();
});

describe('the services on the shipped NATS permissions', () => {
  it('became ready: every service answered the gateway over its own user', async () => {
    const res = await fetch(`${stack.gatewayUrl}/readyz`);
    expect(res.status).toBe(200);
  });

  it('answers on the fast path and on the LLM path, and the logger records both, with no permission refused', async () => {
    llm.script({ match: 'show all invoices', turns: [{ content: 'Here are all your invoices.' }] });
    const fast = await ask(stack.gatewayUrl, { query: 'show all invoices', ...tenant });
    expect(fast.events.at(-1)).toMatchObject({
      event: 'complete',
      data: { status: 'answered' },
    });
    expect(fast.events.some((e) => e.event === 'tool_result' && e.data.success === true)).toBe(true);

    const query = 'which bills are due, nats auth?';
    llm.script({
      match: query,
      turns: [{ toolCalls: [{ name: 'get_bills', arguments: {} }] }, { content: 'Here are your bills.' }],
    });
    const slow = await ask(stack.gatewayUrl, { query, ...tenant });
    expect(slow.events.at(-1)).toMatchObject({
      event: 'complete',
      data: { status: 'answered' },
    });
    expect(slow.events.some((e) => e.event === 'tool_result' && e.data.tool === 'get_bills')).toBe(true);

    const requestIds = [fast, slow].map((r) => r.events[0]?.data.requestId);
    await expect
      .poll(async () => {
        const { rows } = await db.query('select status from query_routing_logs where request_id = any($1)', [
          requestIds,
        ]);
        return rows.map((r) => r.status).sort();
      })
      .toEqual(['answered', 'answered']);
    // nats-server logs every publish or subscription it refuses.
    expect(nats.output()).not.toMatch(/Violation/i);
    expect(logs.join('\n')).not.toMatch(/Permissions Violation/i);
  });
});
