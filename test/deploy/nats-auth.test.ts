/**
 * The seven services (messaging with WhatsApp on, against a fixture Graph API) as processes on a nats-server running the shipped infra/nats/nats.conf (TLS with
 * client certificates on top), each logged in as its own user as docker-compose.yml does: what the
 * permission table allows must be all that the real services need. The streams are made by the
 * migration job, as the image runs it (SERVICE=migrate), logged in as the migrate user: a service
 * started before it stops, saying so.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createDemoBooks } from '@munim/demo-books';
import { type RunningStack, SERVICES, startStack } from '@munim/devstack';
import { type ScriptedLlm, startScriptedLlm } from '@munim/scripted-llm';
import {
  type GraphFixture,
  signedWebhook,
  startGraphFixture,
  type TestDatabase,
  test,
  textDelivery,
} from '@munim/testkit';
import pg from 'pg';
import { afterAll, describe, expect } from 'vitest';
import {
  freePort,
  makeTls,
  type NatsServer,
  natsPasswords,
  passwordEnv,
  shippedConfWithTls,
  startNatsServer,
  type TlsFiles,
} from '../../packages/bus/test/nats-server.ts';
import { ask } from '../support/sse.ts';
import { serviceLogins } from '../support/stack.ts';

const tenant = { entityId: 'ent-nats-auth', orgId: 'org-nats-auth' };
let tls: TlsFiles;
let nats: NatsServer;
let database: TestDatabase;
let logins: Awaited<ReturnType<typeof serviceLogins>>;
let books: { url: string; close(): Promise<void> };
let llm: ScriptedLlm;
let stack: RunningStack;
let graph: GraphFixture;
let messagingUrl: string;
const APP_SECRET = randomBytes(20).toString('hex');
const attachmentsDir = mkdtempSync(join(tmpdir(), 'munim-nats-auth-'));
let db: pg.Pool;
const logs: string[] = [];
let passwords: ReturnType<typeof natsPasswords>;
/** What every process here is given: this server, its TLS, the prefix the shipped permissions are written for. */
let natsEnv: Record<string, string>;

const ROOT = resolve(import.meta.dirname, '../..');
/** How much the server had logged when the services started: a refusal before is the test's own. */
let serverLogStart = 0;

/** Runs one of the image's entry files to its end, as the image does; its exit code and output. */
async function run(files: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  let output = '';
  for (const file of files) {
    const child = spawn(process.execPath, [file], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) return { code: code ?? -1, output };
  }
  return { code: 0, output };
}

test.beforeAll(async ({ database: fileDatabase }) => {
  tls = makeTls();
  passwords = natsPasswords();
  nats = await startNatsServer(shippedConfWithTls(tls), passwordEnv(passwords));
  natsEnv = {
    NATS_URL: nats.url,
    NATS_PREFIX: 'munim',
    NATS_TLS_CA_FILE: tls.ca,
    NATS_TLS_CERT_FILE: tls.clientCert,
    NATS_TLS_KEY_FILE: tls.clientKey,
    LOG_LEVEL: 'warn',
  };
  database = fileDatabase;
  logins = await serviceLogins(database.url);
  books = await createDemoBooks().listen(0, '127.0.0.1');
  llm = await startScriptedLlm({ apiKey: 'sk-test' });
  graph = await startGraphFixture();
}, 60_000);

/** Starts the seven services, each as its own NATS user. */
async function startServices(): Promise<void> {
  serverLogStart = nats.output().length;
  const messagingPort = await freePort();
  messagingUrl = `http://127.0.0.1:${messagingPort}`;
  stack = await startStack({
    env: {
      ...natsEnv,
      DATABASE_URL: database.url,
      MCP_SERVER_URL: books.url,
      OPENAI_BASE_URL: llm.baseURL,
      OPENAI_API_KEY: 'sk-test',
      LLM_MODEL: 'scripted-model',
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
    },
    serviceEnv: {
      ...Object.fromEntries(
        SERVICES.map((s) => [s, { ...logins[s], NATS_USER: s, NATS_PASSWORD: passwords[s] }]),
      ),
      messaging: {
        ...logins.messaging,
        NATS_USER: 'messaging',
        NATS_PASSWORD: passwords.messaging,
        MESSAGING_PORT: String(messagingPort),
        WHATSAPP_APP_SECRET: APP_SECRET,
        WHATSAPP_VERIFY_TOKEN: `verify-${randomBytes(8).toString('hex')}`,
        WHATSAPP_ACCESS_TOKEN: graph.accessToken,
        WHATSAPP_PHONE_NUMBER_ID: graph.phoneNumberId,
        WHATSAPP_GRAPH_URL: graph.url,
        ATTACHMENTS_DIR: attachmentsDir,
      },
    },
    scale: { messaging: 1 },
    onLine: (instance, line) => logs.push(`[${instance}] ${line}`),
  });
  db = new pg.Pool({ connectionString: database.url, max: 2 });
}

afterAll(async () => {
  await stack?.stop();
  await db?.end();
  await llm?.close();
  await books?.close();
  await graph?.close();
  await nats?.stop();
  rmSync(attachmentsDir, { recursive: true, force: true });
});

describe('the services on the shipped NATS permissions', () => {
  test('a service started before the migration job stops at once, naming the missing stream and the job', async () => {
    const validator = await run(['services/validator/src/main.ts'], {
      ...natsEnv,
      NATS_USER: 'validator',
      NATS_PASSWORD: passwords.validator,
    });
    expect(validator.code).toBe(1);
    expect(validator.output).toContain(
      'stream MUNIM_WORK is missing, and the NATS user of validator may not create or update streams: run the migration job first',
    );
    await expect
      .poll(() => nats.output())
      .toContain('Publish Violation - User "validator", Subject "$JS.API.STREAM.CREATE.MUNIM_WORK"');
  });

  test("the image's migration job (SERVICE=migrate) brings the schema up to date and makes the streams as the migrate user", async () => {
    // The files the image's entrypoint runs for SERVICE=migrate, the second only if the first succeeds.
    const files = /SERVICE\\" = migrate \]; then node (\S+) && exec node (\S+);/
      .exec(readFileSync(resolve(ROOT, 'Dockerfile'), 'utf8'))
      ?.slice(1);
    expect(files).toEqual(['packages/db/src/migrate-main.ts', 'packages/kit/src/migrate-streams.ts']);
    const migrate = await run(files ?? [], {
      ...natsEnv,
      LOG_LEVEL: 'info',
      DATABASE_URL: database.url,
      NATS_USER: 'migrate',
      NATS_PASSWORD: passwords.migrate,
    });
    expect(migrate, migrate.output).toMatchObject({ code: 0 });
    expect(migrate.output).toContain('the JetStream streams are current');
  });

  // Six processes start here: on a loaded machine that takes longer than one test's usual 30 s.
  test('became ready: every service answered the gateway over its own user', async () => {
    await startServices();
    const res = await fetch(`${stack.gatewayUrl}/readyz`);
    expect(res.status).toBe(200);
    // The gateway's readiness does not wait for the optional messaging service: its own does.
    await expect
      .poll(async () => (await fetch(`${messagingUrl}/readyz`).catch(() => undefined))?.status, {
        timeout: 30_000,
      })
      .toBe(200);
  }, 90_000);

  test('answers on the fast path and on the LLM path, and the logger records both, with no permission refused', async () => {
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

    // A WhatsApp message crosses the bus as the messaging user: a number nobody registered is told so.
    const phone = `9198${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
    const delivery = signedWebhook(
      textDelivery({ from: phone, text: 'hello', phoneNumberId: graph.phoneNumberId }),
      APP_SECRET,
    );
    const posted = await fetch(`${messagingUrl}/v1/channels/whatsapp/webhook`, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
    });
    expect(posted.status).toBe(200);
    expect(await graph.waitForMessages(1, { to: phone, timeoutMs: 20_000 })).toHaveLength(1);

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
    expect(nats.output().slice(serverLogStart)).not.toMatch(/Violation/i);
    expect(logs.join('\n')).not.toMatch(/Permissions Violation/i);
  });
});
