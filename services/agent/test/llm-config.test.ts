import { randomBytes } from 'node:crypto';
import type { Bus } from '@munim/bus';
import { TestNats } from '@munim/bus/testing';
import { createDb, type Database, encryptSecret, migrateToLatest } from '@munim/db';
import { createTestDatabase, type TestDatabase } from '@munim/db/testing';
import { createLogger } from '@munim/kit';
import { type ScriptedLlm, startScriptedLlm } from '@munim/scripted-llm';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLlm } from '../src/llm.ts';
import { createModelSource } from '../src/llm-config.ts';

const nats = new TestNats();
const secretKey = randomBytes(32);
const log = createLogger('agent', 'silent');
const settings = { timeoutMs: 5_000, maxRetries: 0 };
let database: TestDatabase;
let db: Kysely<Database>;
let agentBus: Bus;
let gatewayBus: Bus;
let serverA: ScriptedLlm;
let serverB: ScriptedLlm;

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb(database.url, { max: 3 });
  await migrateToLatest(db);
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
  try {
    await serverA?.close();
    await serverB?.close();
    await nats.cleanup();
  } finally {
    await db?.destroy();
    await database?.drop();
  }
});

const ask = (llm: { turn: ReturnType<typeof createLlm>['turn'] }) =>
  llm.turn({ messages: [{ role: 'user', content: 'hello' }], maxTokens: 100 });

describe('model configurations in the agent', () => {
  it('has no model when neither the database nor the environment has one', async () => {
    const source = await createModelSource({ db, bus: agentBus, log, fallback: null, secretKey, settings });
    expect(source.llm).toBeNull();
  });

  it('uses the default row (decrypting its key), switches on llmConfigChanged, and falls back to the environment', async () => {
    const envLlm = createLlm({
      baseURL: serverA.baseURL,
      apiKey: 'key-a',
      model: 'env-model',
      provider: 'env',
      timeoutMs: 5_000,
    });
    const b = await db
      .insertInto('llm_configs')
      .values({
        name: 'b',
        provider: 'scripted',
        model: 'b-model',
        endpoint: serverB.baseURL,
        api_key_encrypted: encryptSecret(secretKey, 'key-b'),
        max_tokens: 50,
        is_default: true,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const source = await createModelSource({ db, bus: agentBus, log, fallback: envLlm, secretKey, settings });
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
        return trx
          .insertInto('llm_configs')
          .values({
            name: 'a',
            provider: 'scripted',
            model: 'a-model',
            endpoint: serverA.baseURL,
            api_key_encrypted: encryptSecret(secretKey, 'key-a'),
            is_default: true,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
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

  it('uses the environment model when the default row has a key but no decryption key is set', async () => {
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
    });
    expect(source.llm?.label).toBe('env/env-model');
  });

  it('notices a change whose announcement it missed at its next check, and not its own usage totals', async () => {
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
