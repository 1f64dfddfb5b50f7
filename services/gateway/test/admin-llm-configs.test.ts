import { randomBytes } from 'node:crypto';
import type { Bus } from '@munim/bus';
import { catalog, type LlmConfigChanged, messageSchema } from '@munim/contracts';
import { type Database, decryptSecret, parseSecretKey } from '@munim/db';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { startGateway, TestBus, testDatabase } from './helpers.ts';

const testBus = new TestBus();
const ADMIN_KEY = 'admin-key-llm-configs-0001';
const CONFIG_KEY = randomBytes(32).toString('base64');
const SECRET = `sk-test-${randomBytes(12).toString('hex')}`;
let database: Awaited<ReturnType<typeof testDatabase>>;
let db: Kysely<Database>;
let gateway: Gateway;
let url: string;
let agent: Bus;
const notices: LlmConfigChanged[] = [];

const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
const post = (path: string, body: unknown = {}, h: Record<string, string> = headers) =>
  fetch(`${url}${path}`, { method: 'POST', headers: h, body: JSON.stringify(body) });
const patch = (path: string, body: unknown) =>
  fetch(`${url}${path}`, { method: 'PATCH', headers, body: JSON.stringify(body) });
const list = async () => {
  const response = await fetch(`${url}/v1/admin/llm-configs`, { headers });
  expect(response.status).toBe(200);
  return { text: await response.clone().text(), body: (await response.json()) as { configs: Config[] } };
};
type Config = { id: number; name: string; model: string; isDefault: boolean; hasApiKey: boolean };

const base = {
  name: 'primary',
  provider: 'azure_openai',
  model: 'gpt-4o',
  endpoint: 'https://example-resource.openai.azure.com/openai/v1/',
  apiStyle: 'openai',
  temperature: 0.2,
  maxTokens: 4096,
};

beforeAll(async () => {
  database = await testDatabase();
  db = database.db;
  ({ gateway, url } = await startGateway(
    testBus,
    { GATEWAY_ADMIN_KEYS: ADMIN_KEY, LLM_CONFIG_KEY: CONFIG_KEY },
    db,
  ));
  agent = await testBus.bus('agent');
  const schema = messageSchema(catalog.llmConfigChanged.schema);
  agent.nc.subscribe(agent.subject('llmConfigChanged'), {
    callback: (_err, msg) => {
      notices.push(schema.parse(msg.json()).data);
    },
  });
  await agent.nc.flush();
});

afterAll(async () => {
  try {
    await gateway?.stop();
  } finally {
    await testBus.close();
    await database?.close();
  }
});

describe('model configurations', () => {
  let primaryId: number;
  let secondId: number;

  it('creates a configuration with a key that no endpoint returns and the table holds only encrypted', async () => {
    const created = await post('/v1/admin/llm-configs', { ...base, apiKey: SECRET, isDefault: true });
    expect(created.status).toBe(201);
    const text = await created.text();
    expect(text).not.toContain(SECRET);
    const config = JSON.parse(text) as Config;
    expect(config).toMatchObject({ name: 'primary', model: 'gpt-4o', hasApiKey: true, isDefault: true });
    primaryId = config.id;
    await expect
      .poll(() => notices.some((n) => n.configId === primaryId && n.reason === 'created'))
      .toBe(true);

    const listed = await list();
    expect(listed.text).not.toContain(SECRET);
    expect(listed.body.configs.map((c) => c.name)).toEqual(['primary']);

    const row = await db
      .selectFrom('llm_configs')
      .select('api_key_encrypted')
      .where('id', '=', primaryId)
      .executeTakeFirstOrThrow();
    expect(row.api_key_encrypted).not.toBeNull();
    expect(row.api_key_encrypted).not.toContain(SECRET);
    expect(decryptSecret(parseSecretKey(CONFIG_KEY), row.api_key_encrypted ?? '')).toBe(SECRET);
  });

  it('sets another configuration as the only default and announces it', async () => {
    const created = await post('/v1/admin/llm-configs', { ...base, name: 'cheap', model: 'gpt-4o-mini' });
    expect(created.status).toBe(201);
    secondId = ((await created.json()) as Config).id;
    const response = await post(`/v1/admin/llm-configs/${secondId}/default`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: secondId, isDefault: true, hasApiKey: false });
    await expect
      .poll(() => notices.some((n) => n.configId === secondId && n.reason === 'default'))
      .toBe(true);
    const defaults = (await list()).body.configs.filter((c) => c.isDefault).map((c) => c.id);
    expect(defaults).toEqual([secondId]);
  });

  it('keeps the default when an unknown configuration is set as default', async () => {
    const response = await post('/v1/admin/llm-configs/999999/default');
    expect(response.status).toBe(404);
    const defaults = (await list()).body.configs.filter((c) => c.isDefault).map((c) => c.id);
    expect(defaults).toEqual([secondId]);
  });

  it('updates a configuration, replacing its key without showing it', async () => {
    const newSecret = `sk-new-${randomBytes(8).toString('hex')}`;
    const response = await patch(`/v1/admin/llm-configs/${primaryId}`, {
      model: 'gpt-4.1',
      apiKey: newSecret,
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(newSecret);
    expect(JSON.parse(text)).toMatchObject({ id: primaryId, model: 'gpt-4.1', hasApiKey: true });
    const row = await db
      .selectFrom('llm_configs')
      .select('api_key_encrypted')
      .where('id', '=', primaryId)
      .executeTakeFirstOrThrow();
    expect(decryptSecret(parseSecretKey(CONFIG_KEY), row.api_key_encrypted ?? '')).toBe(newSecret);
    await expect
      .poll(() => notices.some((n) => n.configId === primaryId && n.reason === 'updated'))
      .toBe(true);
  });

  it('changes only the fields an edit names: an Azure-style configuration stays Azure-style', async () => {
    const created = await post('/v1/admin/llm-configs', {
      ...base,
      name: 'azure-deployments',
      apiStyle: 'azure',
      endpoint: 'https://example-resource.openai.azure.com/openai',
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as Config;
    const response = await patch(`/v1/admin/llm-configs/${id}`, { model: 'gpt-4.1-mini' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      model: 'gpt-4.1-mini',
      apiStyle: 'azure',
      temperature: 0.2,
    });
    const row = await db
      .selectFrom('llm_configs')
      .select(['api_style', 'max_tokens'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ api_style: 'azure', max_tokens: 4096 });
    // Out of the way of the checks below, which count the configurations.
    await db.deleteFrom('llm_configs').where('id', '=', id).execute();
  });

  it.each([
    ['a Supabase URL', 'https://abcdefgh.supabase.co/functions/v1/chat'],
    ['an Anthropic-style endpoint', 'https://api.anthropic.com/v1/messages'],
    ['a non-http URL', 'ftp://models.example.com/v1'],
    ['text that is not a URL', 'not a url'],
  ])('refuses %s with a 400 naming endpoint, and saves nothing', async (_what, endpoint) => {
    const response = await post('/v1/admin/llm-configs', {
      ...base,
      name: `bad-${randomBytes(4).toString('hex')}`,
      endpoint,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'BAD_REQUEST', field: 'endpoint' } });
    const changed = await patch(`/v1/admin/llm-configs/${primaryId}`, { endpoint });
    expect(changed.status).toBe(400);
    expect((await list()).body.configs.map((c) => c.name).sort()).toEqual(['cheap', 'primary']);
  });

  it('refuses a duplicate name with 409', async () => {
    const response = await post('/v1/admin/llm-configs', base);
    expect(response.status).toBe(409);
  });

  it('refuses callers without a credential (401), changing nothing', async () => {
    const response = await post(
      `/v1/admin/llm-configs/${primaryId}/default`,
      {},
      { 'content-type': 'application/json' },
    );
    expect(response.status).toBe(401);
    const defaults = (await list()).body.configs.filter((c) => c.isDefault).map((c) => c.id);
    expect(defaults).toEqual([secondId]);
  });
});
