import { randomBytes } from 'node:crypto';
import type { Bus } from '@munim/bus';
import { catalog, type LlmConfigChanged, messageSchema } from '@munim/contracts';
import { type Database, openLlmKey, parseSecretKey } from '@munim/db';
import { type FixtureNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { startGateway } from './helpers.ts';

let testBus: FixtureNats;
const ADMIN_KEY = 'admin-key-llm-configs-0001';
const CONFIG_KEY = randomBytes(32).toString('base64');
const SECRET = `sk-test-${randomBytes(12).toString('hex')}`;
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
type Config = {
  id: number;
  name: string;
  model: string;
  endpoint: string;
  isDefault: boolean;
  hasApiKey: boolean;
};

/** The stored key of a configuration, opened as the agent opens it (bound to the row as it is now). */
async function storedKey(id: number): Promise<string> {
  const row = await db
    .selectFrom('llm_configs')
    .select(['id', 'provider', 'endpoint', 'api_key_encrypted'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return openLlmKey(parseSecretKey(CONFIG_KEY), row, row.api_key_encrypted ?? '');
}

const base = {
  name: 'primary',
  provider: 'azure_openai',
  model: 'gpt-4o',
  endpoint: 'https://example-resource.openai.azure.com/openai/v1/',
  apiStyle: 'openai',
  temperature: 0.2,
  maxTokens: 4096,
};

test.beforeAll(async ({ nats, db: fileDb }) => {
  testBus = nats;
  db = fileDb;
  ({ gateway, url } = await startGateway(
    testBus,
    {
      GATEWAY_ADMIN_KEYS: ADMIN_KEY,
      LLM_CONFIG_KEY: CONFIG_KEY,
      // No DNS in tests: the example host is allowed by name, and one private range on purpose.
      LLM_ENDPOINT_ALLOWLIST:
        'example-resource.openai.azure.com, other-resource.openai.azure.com, 10.20.0.0/16',
    },
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
  await gateway?.stop();
});

describe('model configurations', () => {
  let primaryId: number;
  let secondId: number;

  test('creates a configuration with a key that no endpoint returns and the table holds only encrypted', async () => {
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
    expect(await storedKey(primaryId)).toBe(SECRET);
  });

  test('sets another configuration as the only default and announces it', async () => {
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

  test('keeps the default when an unknown configuration is set as default', async () => {
    const response = await post('/v1/admin/llm-configs/999999/default');
    expect(response.status).toBe(404);
    const defaults = (await list()).body.configs.filter((c) => c.isDefault).map((c) => c.id);
    expect(defaults).toEqual([secondId]);
  });

  test('updates a configuration, replacing its key without showing it', async () => {
    const newSecret = `sk-new-${randomBytes(8).toString('hex')}`;
    const response = await patch(`/v1/admin/llm-configs/${primaryId}`, {
      model: 'gpt-4.1',
      apiKey: newSecret,
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(newSecret);
    expect(JSON.parse(text)).toMatchObject({ id: primaryId, model: 'gpt-4.1', hasApiKey: true });
    expect(await storedKey(primaryId)).toBe(newSecret);
    await expect
      .poll(() => notices.some((n) => n.configId === primaryId && n.reason === 'updated'))
      .toBe(true);
  });

  test('changes only the fields an edit names: an Azure-style configuration stays Azure-style', async () => {
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

  test.each([
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

  test('refuses a duplicate name with 409', async () => {
    const response = await post('/v1/admin/llm-configs', base);
    expect(response.status).toBe(409);
  });

  test('refuses callers without a credential (401), changing nothing', async () => {
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

describe('model endpoints and their keys', () => {
  const create = async (body: Record<string, unknown>) => {
    const response = await post('/v1/admin/llm-configs', {
      ...base,
      name: `cfg-${randomBytes(4).toString('hex')}`,
      ...body,
    });
    expect(response.status).toBe(201);
    return (await response.json()) as Config;
  };
  const snapshot = async () =>
    db
      .selectFrom('llm_configs')
      .select(['id', 'name', 'endpoint', 'provider', 'api_key_encrypted'])
      .execute();

  test.each([
    ['loopback', 'http://127.0.0.1:11434/v1'],
    ['loopback by name', 'http://localhost:11434/v1'],
    ['IPv6 loopback', 'http://[::1]:8000/v1'],
    ['a private address', 'http://192.168.1.20/v1'],
    ['a private address outside the allowed range', 'http://10.30.0.1/v1'],
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data'],
    ['carrier-grade NAT', 'http://100.64.0.9/v1'],
    ['a unique-local IPv6 address', 'http://[fd00::5]/v1'],
    ['the unspecified address', 'http://0.0.0.0:8000/v1'],
    ['a multicast address', 'http://224.0.0.251/v1'],
    ['a host that does not resolve', 'https://no-such-host.invalid/v1'],
  ])('refuses %s on save with a 400 naming endpoint, and saves nothing', async (_what, endpoint) => {
    const before = await snapshot();
    const created = await post('/v1/admin/llm-configs', { ...base, name: 'internal', endpoint });
    expect(created.status).toBe(400);
    const body = (await created.json()) as { error: { code: string; field: string; message: string } };
    expect(body.error).toMatchObject({ code: 'BAD_REQUEST', field: 'endpoint' });
    expect(body.error.message).toMatch(/non-public address|does not resolve/);
    const changed = await patch(`/v1/admin/llm-configs/${primaryIdOf(before)}`, { endpoint });
    expect(changed.status).toBe(400);
    expect(await changed.json()).toMatchObject({ error: { field: 'endpoint' } });
    expect(await snapshot()).toEqual(before);
  });

  test('accepts a non-public endpoint that LLM_ENDPOINT_ALLOWLIST allows', async () => {
    const config = await create({ endpoint: 'http://10.20.3.4:8000/v1' });
    expect(config.endpoint).toBe('http://10.20.3.4:8000/v1');
    await db.deleteFrom('llm_configs').where('id', '=', config.id).execute();
  });

  test('needs the key again to move a configuration with a key to another origin; with it, accepts', async () => {
    const key = `sk-move-${randomBytes(6).toString('hex')}`;
    const config = await create({ apiKey: key });
    const before = await snapshot();
    const moved = 'https://other-resource.openai.azure.com/openai/v1/';
    const refused = await patch(`/v1/admin/llm-configs/${config.id}`, { endpoint: moved, model: 'gpt-x' });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { field: string; message: string } };
    expect(body.error.field).toBe('apiKey');
    expect(body.error.message).toMatch(/another origin/);
    expect(await snapshot()).toEqual(before);
    // Another port is another origin too.
    const port = await patch(`/v1/admin/llm-configs/${config.id}`, {
      endpoint: 'https://example-resource.openai.azure.com:8443/openai/v1/',
    });
    expect(port.status).toBe(400);

    // The same origin, another path: the key stays, still bound to the row.
    const samePlace = await patch(`/v1/admin/llm-configs/${config.id}`, {
      endpoint: 'https://example-resource.openai.azure.com/openai/deployments/',
    });
    expect(samePlace.status).toBe(200);
    expect(await storedKey(config.id)).toBe(key);

    const newKey = `sk-other-${randomBytes(6).toString('hex')}`;
    const accepted = await patch(`/v1/admin/llm-configs/${config.id}`, { endpoint: moved, apiKey: newKey });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ endpoint: moved, hasApiKey: true });
    expect(await storedKey(config.id)).toBe(newKey);

    // Removing the key moves it as well; a configuration without a key moves freely.
    const removed = await patch(`/v1/admin/llm-configs/${config.id}`, {
      endpoint: 'https://example-resource.openai.azure.com/openai/v1/',
      apiKey: null,
    });
    expect(removed.status).toBe(200);
    expect(await removed.json()).toMatchObject({ hasApiKey: false });
    const keyless = await patch(`/v1/admin/llm-configs/${config.id}`, { endpoint: moved });
    expect(keyless.status).toBe(200);
    await db.deleteFrom('llm_configs').where('id', '=', config.id).execute();
  });

  test('binds a stored key to its row: a change of provider re-seals it, a copy into another row does not open', async () => {
    const key = `sk-bound-${randomBytes(6).toString('hex')}`;
    const config = await create({ apiKey: key });
    const other = await create({});
    const renamed = await patch(`/v1/admin/llm-configs/${config.id}`, { provider: 'openai' });
    expect(renamed.status).toBe(200);
    expect(await storedKey(config.id)).toBe(key);

    const { api_key_encrypted: copied } = await db
      .selectFrom('llm_configs')
      .select('api_key_encrypted')
      .where('id', '=', config.id)
      .executeTakeFirstOrThrow();
    await db
      .updateTable('llm_configs')
      .set({ api_key_encrypted: copied })
      .where('id', '=', other.id)
      .execute();
    await expect(storedKey(other.id)).rejects.toThrow(/cannot be decrypted/);
    // Re-sealing a key that does not open for its row is refused; sending the key again mends it.
    const refused = await patch(`/v1/admin/llm-configs/${other.id}`, { provider: 'openai' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { field: 'apiKey' } });
    const mended = await patch(`/v1/admin/llm-configs/${other.id}`, { provider: 'openai', apiKey: key });
    expect(mended.status).toBe(200);
    expect(await storedKey(other.id)).toBe(key);
    await db.deleteFrom('llm_configs').where('id', 'in', [config.id, other.id]).execute();
  });
});

describe('fallbacks of a model configuration', () => {
  const fallbacksOf = async (id: number) =>
    (await list()).body.configs.find((c) => c.id === id) as Config & { fallbacks: number[] };
  const made: number[] = [];
  const create = async (name: string, extra: object = {}) => {
    const response = await post('/v1/admin/llm-configs', { ...base, name, ...extra });
    expect(response.status).toBe(201);
    const config = (await response.json()) as Config & { fallbacks: number[] };
    made.push(config.id);
    return config;
  };
  afterAll(async () => {
    await db.deleteFrom('llm_configs').where('id', 'in', made).execute();
  });

  test('lists fallbacks in order; two configurations may name each other; a change replaces the list', async () => {
    const a = await create('fallback-a');
    expect(a.fallbacks).toEqual([]);
    const b = await create('fallback-b', { fallbacks: [a.id] });
    expect(b.fallbacks).toEqual([a.id]);
    const c = await create('fallback-c', { fallbacks: [b.id, a.id] });
    expect(c.fallbacks).toEqual([b.id, a.id]);
    // Only the default's own list is used, so a pair naming each other is a primary and a secondary.
    const mutual = await patch(`/v1/admin/llm-configs/${a.id}`, { fallbacks: [b.id] });
    expect(mutual.status).toBe(200);
    expect(await mutual.json()).toMatchObject({ id: a.id, fallbacks: [b.id] });
    await expect.poll(() => notices.some((n) => n.configId === a.id && n.reason === 'updated')).toBe(true);
    const cleared = await patch(`/v1/admin/llm-configs/${c.id}`, { fallbacks: [] });
    expect(await cleared.json()).toMatchObject({ fallbacks: [] });
    // A change that does not name fallbacks keeps them.
    await patch(`/v1/admin/llm-configs/${b.id}`, { temperature: 0.5 });
    expect((await fallbacksOf(b.id)).fallbacks).toEqual([a.id]);
  });

  test('refuses unknown ids, the configuration itself and duplicates with 400 naming the field, changing nothing', async () => {
    const a = await create('fallback-d');
    const b = await create('fallback-e', { fallbacks: [a.id] });
    const before = (await list()).body.configs.length;
    const refusals = [
      await post('/v1/admin/llm-configs', { ...base, name: 'fallback-unknown', fallbacks: [a.id, 999_999] }),
      await post('/v1/admin/llm-configs', { ...base, name: 'fallback-twice', fallbacks: [a.id, a.id] }),
      await post('/v1/admin/llm-configs', { ...base, name: 'fallback-zero', fallbacks: [0] }),
      await post('/v1/admin/llm-configs', {
        ...base,
        name: 'fallback-many',
        fallbacks: [1, 2, 3, 4, 5, 6, 7, 8, 9],
      }),
      await patch(`/v1/admin/llm-configs/${b.id}`, { fallbacks: [b.id] }),
      await patch(`/v1/admin/llm-configs/${b.id}`, { fallbacks: [a.id, 999_999] }),
      await patch(`/v1/admin/llm-configs/${b.id}`, { fallbacks: [a.id, a.id] }),
    ];
    for (const response of refusals) {
      expect(response.status).toBe(400);
      // The list, or the entry of it that is wrong (`fallbacks.0`).
      expect(await response.json()).toMatchObject({ error: { field: expect.stringMatching(/^fallbacks/) } });
    }
    expect((await list()).body.configs.length).toBe(before);
    expect((await fallbacksOf(b.id)).fallbacks).toEqual([a.id]);
  });

  test('accepts a list exactly when it names other existing configurations, each once (generated lists)', async () => {
    const pool = [await create('fallback-p1'), await create('fallback-p2'), await create('fallback-p3')];
    const target = await create('fallback-target');
    const candidates = [...pool.map((c) => c.id), target.id, 999_991, 999_992];
    // Lists drawn with a fixed seed (the gateway has no fast-check): repeats, unknown ids, itself.
    let seed = 0x5eed;
    const draw = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    for (let run = 0; run < 40; run++) {
      const ids = Array.from({ length: draw(6) }, () => candidates[draw(candidates.length)] as number);
      const previous = (await fallbacksOf(target.id)).fallbacks;
      const response = await patch(`/v1/admin/llm-configs/${target.id}`, { fallbacks: ids });
      const valid = new Set(ids).size === ids.length && ids.every((id) => pool.some((c) => c.id === id));
      expect(response.status, JSON.stringify(ids)).toBe(valid ? 200 : 400);
      expect((await fallbacksOf(target.id)).fallbacks).toEqual(valid ? ids : previous);
    }
  });
});

/** The id of the configuration named primary in a snapshot. */
function primaryIdOf(rows: { id: number; name: string }[]): number {
  const row = rows.find((r) => r.name === 'primary');
  if (!row) throw new Error('no primary configuration');
  return Number(row.id);
}
