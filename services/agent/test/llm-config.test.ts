import { randomBytes } from 'node:crypto';
import type { Bus } from '@munim/bus';
import { type Database, encryptSecret, type LlmConfigsTable, sealLlmKey } from '@munim/db';
import { createLogger, EndpointAllowlistSchema, type Logger } from '@munim/kit';
import { type ScriptedLlm, startScriptedLlm } from '@munim/scripted-llm';
import { type TestNats, test } from '@munim/testkit';
import { type Insertable, type Kysely, sql } from 'kysely';
import { afterAll, describe, expect, vi } from 'vitest';
import { createLlm } from '../src/model/llm.ts';
import { createModelSource } from '../src/model/llm-config.ts';

let nats: TestNats;
const secretKey = randomBytes(32);
const log = createLogger('agent', 'silent');
const settings = { timeoutMs: 5_000, maxRetries: 0 };
// The scripted servers listen on loopback, which only an allow-list opens.
const allowlist = EndpointAllowlistSchema.parse('127.0.0.1');
let db: Kysely<Database>;
let agentBus: Bus;
let gatewayBus: Bus;
let serverA: ScriptedLlm;
let serverB: ScriptedLlm;

test.beforeAll(async ({ nats: fileNats, db: fileDb }) => {
  nats = fileNats;
  db = fileDb;
  agentBus = await nats.bus('agent');
  gatewayBus = await nats.bus('gateway');
  serverA = await startScriptedLlm({ apiKey: 'key-a' });
  serverB = await startScriptedLlm({ apiKey: 'key-b' });
  for (const server of [serverA, serverB])
    server.script({
      match: 'hello',
      turns: [{ content: 'hi there' }, { content: 'hi there' }, { content: 'hi there' }],
    });
});

afterAll(async () => {
  await serverA?.close();
  await serverB?.close();
});

/** Inserts a configuration with its key sealed to the new row, as the gateway does. */
async function insertConfig(
  db: Kysely<Database>,
  values: Insertable<LlmConfigsTable>,
  apiKey?: string,
): Promise<{ id: number }> {
  const row = await db.insertInto('llm_configs').values(values).returningAll().executeTakeFirstOrThrow();
  if (apiKey !== undefined) {
    await db
      .updateTable('llm_configs')
      .set({ api_key_encrypted: sealLlmKey(secretKey, row, apiKey) })
      .where('id', '=', row.id)
      .execute();
  }
  return { id: Number(row.id) };
}

/** A logger whose warnings the test reads, each as its message and its error's. */
function capturingLog(): { log: Logger; warnings: () => string[] } {
  const log = createLogger('agent', 'silent');
  const warn = vi.spyOn(log, 'warn');
  const warnings = () =>
    warn.mock.calls.map((call) => {
      const [fields, message] = call as unknown as [{ err?: Error }, string];
      return `${message}: ${fields.err?.message ?? ''}`;
    });
  return { log, warnings };
}

const ask = (llm: { turn: ReturnType<typeof createLlm>['turn'] }) =>
  llm.turn({ messages: [{ role: 'user', content: 'hello' }], maxTokens: 100 });

describe('model configurations in the agent', () => {
  test('has no model when neither the database nor the environment has one', async () => {
    const source = await createModelSource({
      db,
      bus: agentBus,
      log,
      fallback: null,
      secretKey,
      settings,
      allowlist,
    });
    expect(source.llm).toBeNull();
  });

  test('uses the default row (decrypting its key), switches on llmConfigChanged, and falls back to the environment', async () => {
    const envLlm = createLlm({
      baseURL: serverA.baseURL,
      apiKey: 'key-a',
      model: 'env-model',
      provider: 'env',
      timeoutMs: 5_000,
    });
    const b = await insertConfig(
      db,
      {
        name: 'b',
        provider: 'scripted',
        model: 'b-model',
        endpoint: serverB.baseURL,
        max_tokens: 50,
        is_default: true,
      },
      'key-b',
    );
    const source = await createModelSource({
      db,
      bus: agentBus,
      log,
      fallback: envLlm,
      secretKey,
      settings,
      allowlist,
    });
    source.start();
    try {
      const llm = source.llm;
      if (!llm) throw new Error('expected a model');
      expect(llm.label).toBe('scripted/b-model');
      const first = await ask(llm);
      expect(first.content).toBe('hi there');
      expect(serverB.requests.map((r) => r.body.model)).toEqual(['b-model']);
      expect(serverB.requests[0]?.body.max_tokens).toBe(50);
      expect(serverA.requests).toHaveLength(0);
      const totals = await db
        .selectFrom('llm_configs')
        .select(['total_requests', 'total_input_tokens', 'total_output_tokens'])
        .where('id', '=', b.id)
        .executeTakeFirstOrThrow();
      expect(Number(totals.total_requests)).toBe(1);
      expect(Number(totals.total_input_tokens)).toBe(first.usage.input_tokens);
      expect(Number(totals.total_output_tokens)).toBe(first.usage.output_tokens);

      // An admin makes a new configuration the default: the same object now talks to server A.
      const a = await db.transaction().execute(async (trx) => {
        await trx.updateTable('llm_configs').set({ is_default: false }).execute();
        return insertConfig(
          trx,
          { name: 'a', provider: 'scripted', model: 'a-model', endpoint: serverA.baseURL, is_default: true },
          'key-a',
        );
      });
      gatewayBus.broadcast('llmConfigChanged', { reason: 'default', configId: Number(a.id) });
      await expect.poll(() => llm.label).toBe('scripted/a-model');
      await ask(llm);
      expect(serverA.requests.map((r) => r.body.model)).toEqual(['a-model']);
      expect(serverB.requests).toHaveLength(1);

      // No default any more: back to the environment's model.
      await db.updateTable('llm_configs').set({ is_default: false }).execute();
      gatewayBus.broadcast('llmConfigChanged', { reason: 'updated', configId: Number(a.id) });
      await expect.poll(() => llm.label).toBe('env/env-model');
      await ask(llm);
      expect(serverA.requests.map((r) => r.body.model)).toEqual(['a-model', 'env-model']);
    } finally {
      await source.stop();
    }
  });

  test('uses the environment model when the default row has a key but no decryption key is set', async () => {
    await db.updateTable('llm_configs').set({ is_default: true }).where('name', '=', 'b').execute();
    const envLlm = createLlm({
      baseURL: serverA.baseURL,
      apiKey: 'key-a',
      model: 'env-model',
      provider: 'env',
      timeoutMs: 5_000,
    });
    const source = await createModelSource({
      db,
      bus: agentBus,
      log,
      fallback: envLlm,
      secretKey: null,
      settings,
      allowlist,
    });
    expect(source.llm?.label).toBe('env/env-model');
  });

  test('notices a change whose announcement it missed at its next check, and not its own usage totals', async () => {
    await db.updateTable('llm_configs').set({ is_default: false }).execute();
    await db
      .updateTable('llm_configs')
      .set({ is_default: true, updated_at: sql<Date>`now()` })
      .where('name', '=', 'b')
      .execute();
    const source = await createModelSource({
      db,
      bus: agentBus,
      log,
      fallback: null,
      secretKey,
      settings,
      refreshMs: 50,
      allowlist,
    });
    source.start();
    try {
      const llm = source.llm;
      if (!llm) throw new Error('expected a model');
      expect(llm.label).toBe('scripted/b-model');
      const use = vi.spyOn(llm, 'use');
      // Answering adds to the row's totals: that is no change of the configuration.
      await ask(llm);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(use).not.toHaveBeenCalled();

      // An edit whose notice never arrived (the agent was reconnecting when it went out).
      await db
        .updateTable('llm_configs')
        .set({ model: 'b-model-2', updated_at: sql<Date>`now()` })
        .where('name', '=', 'b')
        .execute();
      await expect.poll(() => llm.label).toBe('scripted/b-model-2');
      expect(use).toHaveBeenCalledTimes(1);
      await ask(llm);
      expect(serverB.requests.at(-1)?.body.model).toBe('b-model-2');
    } finally {
      await source.stop();
    }
  });
});

describe('what the agent refuses in a configuration row', () => {
  const envLlm = () =>
    createLlm({
      baseURL: serverA.baseURL,
      apiKey: 'key-a',
      model: 'env-model',
      provider: 'env',
      timeoutMs: 5_000,
    });
  /** Makes `values` the only default row (planted straight in the table, as a tampered database would). */
  const plant = (values: Omit<Insertable<LlmConfigsTable>, 'name'>, apiKey?: string) =>
    db.transaction().execute(async (trx) => {
      await trx.updateTable('llm_configs').set({ is_default: false }).execute();
      return insertConfig(
        trx,
        { name: `planted-${randomBytes(3).toString('hex')}`, ...values, is_default: true },
        apiKey,
      );
    });
  const source = (log: Logger, extra: Partial<Parameters<typeof createModelSource>[0]> = {}) =>
    createModelSource({
      db,
      bus: agentBus,
      log,
      fallback: envLlm(),
      secretKey,
      settings,
      allowlist,
      ...extra,
    });

  test.each([
    ['cloud metadata (link-local)', 'http://169.254.169.254/latest/v1'],
    ['a private address', 'http://10.0.0.7:8000/v1'],
    ['carrier-grade NAT', 'http://100.64.1.2/v1'],
    ['an IPv6 unique-local address', 'http://[fd12:3456::1]/v1'],
    ['the unspecified address', 'http://0.0.0.0:11434/v1'],
  ])(
    'falls back to the environment model with a warning when the endpoint is %s',
    async (_what, endpoint) => {
      const { id } = await plant({ provider: 'scripted', model: 'planted-model', endpoint }, 'key-p');
      const { log, warnings } = capturingLog();
      const models = await source(log);
      expect(models.llm?.label).toBe('env/env-model');
      expect(models.llm?.configId).toBeNull();
      const [warning] = warnings();
      expect(warning).toContain('using the environment model');
      expect(warning).toContain(`model configuration ${id}: endpoint host`);
      expect(warning).toContain('non-public');
      expect(warning).not.toContain('key-p');
    },
  );

  test('resolves a host name before use and refuses it when any address is not public', async () => {
    await plant({ provider: 'scripted', model: 'planted-model', endpoint: 'https://models.example/v1' });
    const { log, warnings } = capturingLog();
    const resolve = vi.fn(async () => ['8.8.4.4', '169.254.169.254']);
    const models = await source(log, { resolve });
    expect(resolve).toHaveBeenCalledWith('models.example');
    expect(models.llm?.label).toBe('env/env-model');
    expect(warnings()[0]).toContain('169.254.169.254 is a linkLocal address');
    // Public addresses only: the row is used.
    const publicOnly = await source(capturingLog().log, { resolve: async () => ['8.8.8.8'] });
    expect(publicOnly.llm?.label).toBe('scripted/planted-model');
  });

  test('refuses a loopback endpoint unless LLM_ENDPOINT_ALLOWLIST allows it', async () => {
    await plant({ provider: 'scripted', model: 'b-model', endpoint: serverB.baseURL }, 'key-b');
    const { log, warnings } = capturingLog();
    const closed = await source(log, { allowlist: undefined });
    expect(closed.llm?.label).toBe('env/env-model');
    expect(warnings()[0]).toContain('127.0.0.1 is a loopback address');
    const open = await source(capturingLog().log);
    expect(open.llm?.label).toBe('scripted/b-model');
  });

  test('does not decrypt a key copied from another row, nor a key stored without associated data', async () => {
    const donor = await insertConfig(
      db,
      {
        name: `donor-${randomBytes(3).toString('hex')}`,
        provider: 'scripted',
        model: 'x',
        endpoint: serverB.baseURL,
      },
      'key-b',
    );
    const { api_key_encrypted: copied } = await db
      .selectFrom('llm_configs')
      .select('api_key_encrypted')
      .where('id', '=', donor.id)
      .executeTakeFirstOrThrow();
    const { id } = await plant({
      provider: 'scripted',
      model: 'b-model',
      endpoint: serverB.baseURL,
      api_key_encrypted: copied,
    });
    const { log, warnings } = capturingLog();
    const models = await source(log);
    expect(models.llm?.label).toBe('env/env-model');
    expect(warnings()[0]).toContain('cannot be decrypted');

    // A key stored without associated data (v1, bound to nothing; migration 0023 seals those) is refused.
    await db
      .updateTable('llm_configs')
      .set({ api_key_encrypted: encryptSecret(secretKey, 'key-b') })
      .where('id', '=', id)
      .execute();
    const legacy = capturingLog();
    const refused = await source(legacy.log);
    expect(refused.llm?.label).toBe('env/env-model');
    expect(legacy.warnings()[0]).toContain('stored without associated data, so it is refused');
  });
});
