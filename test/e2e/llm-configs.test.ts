// Model configurations in the database, end to end: the six
// services as processes on the real NATS and a fresh PostgreSQL, two scripted OpenAI-compatible
// servers as two models. The agent starts on model A (the environment's OPENAI_* settings); an
// administrator switches it to model B and back through the gateway, and no process restarts.
import { randomBytes } from 'node:crypto';
import { type ScriptedLlm, startScriptedLlm } from '@munim/scripted-llm';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { bearerJson, jsonCaller } from '../support/http.ts';
import { ask } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

const ADMIN_KEY = `admin-${randomBytes(12).toString('hex')}`;
const TENANT_KEY = `tenant-${randomBytes(12).toString('hex')}`;
const KEY_A = 'sk-test'; // what startSystem gives the services as OPENAI_API_KEY
const KEY_B = `sk-b-${randomBytes(12).toString('hex')}`;
const tenant = { entityId: 'ent-models', orgId: 'org-models' };

let sys: TestSystem;
let modelA: ScriptedLlm;
let modelB: ScriptedLlm;

type Config = {
  id: number;
  name: string;
  model: string;
  endpoint: string;
  isDefault: boolean;
  hasApiKey: boolean;
  usage: { inputTokens: number; outputTokens: number; requests: number };
};

const admin = bearerJson(ADMIN_KEY);
const asTenant = bearerJson(TENANT_KEY);
const call = jsonCaller(() => sys.gatewayUrl, admin);
async function configs(): Promise<Config[]> {
  const res = await call('GET', '/v1/admin/llm-configs');
  expect(res.status).toBe(200);
  return ((await res.json()) as { configs: Config[] }).configs;
}

/** What an administrator set on a configuration (not its usage, which answers change). */
const settings = (c: Config) => [c.id, c.name, c.model, c.endpoint, c.isDefault, c.hasApiKey];

/**
 * Asks an LLM-path question (no intent matches it, so the router sends it to the model) and
 * returns the final event; both servers answer it, each naming itself.
 */
let round = 0;
async function askModel() {
  round += 1;
  // A new question each time: a repeated one could be answered from the response cache.
  const query = `which customer grew the most in quarter ${round} compared with last year`;
  const { status, events } = await ask(sys.gatewayUrl, { query, ...tenant }, asTenant);
  expect(status).toBe(200);
  expect(events.find((e) => e.event === 'route_classified')?.data).toMatchObject({ path: 'llm' });
  const last = events.at(-1);
  expect(last?.event).toBe('complete');
  return { query, complete: last?.data as { response: string; llmModel: string; status: string } };
}

test.beforeAll(async ({ database, nats }) => {
  // Model B is a second OpenAI-compatible server with its own key; A is startSystem's own.
  modelB = await startScriptedLlm({ apiKey: KEY_B, model: 'model-b' });
  sys = await startSystem({
    database,
    nats,
    env: {
      GATEWAY_ADMIN_KEYS: ADMIN_KEY,
      GATEWAY_API_KEYS: `${TENANT_KEY}:${tenant.entityId}:${tenant.orgId}`,
      LLM_CONFIG_KEY: randomBytes(32).toString('base64'),
      // Both scripted models listen on loopback, which saved endpoints may use only when allowed.
      LLM_ENDPOINT_ALLOWLIST: '127.0.0.1',
    },
  });
  if (!sys.llm) throw new Error('startSystem gave no scripted model');
  modelA = sys.llm;
  for (const [server, name] of [
    [modelA, 'model A'],
    [modelB, 'model B'],
  ] as const) {
    server.script({ match: /grew the most/, repeat: true, turns: [{ content: `Answered by ${name}.` }] });
  }
});

afterAll(async () => {
  await sys?.stop();
  await modelB?.close();
});

describe('model configurations through the whole stack', () => {
  let configB: Config;

  test('answers with the environment’s model A while the table is empty', async () => {
    expect(await configs()).toEqual([]);
    const { query, complete } = await askModel();
    expect(complete).toMatchObject({ status: 'answered', response: 'Answered by model A.' });
    const [request] = modelA.requestsFor(query);
    expect(request?.headers.authorization).toBe(`Bearer ${KEY_A}`);
    expect(request?.body.model).toBe('scripted-model');
    expect(modelB.requestsFor(query)).toEqual([]);
  });

  test('switches the agent to model B once an administrator makes B the default, with no restart', async () => {
    const created = await call('POST', '/v1/admin/llm-configs', {
      name: 'model-b',
      provider: 'openai',
      model: 'model-b-large',
      endpoint: modelB.baseURL,
      apiKey: KEY_B,
      temperature: 0.1,
      maxTokens: 500,
    });
    expect(created.status).toBe(201);
    const createdText = await created.text();
    expect(createdText).not.toContain(KEY_B);
    configB = JSON.parse(createdText) as Config;
    expect(configB).toMatchObject({ isDefault: false, hasApiKey: true });
    // The key is at rest only encrypted.
    const { rows } = await sys.db.query('select api_key_encrypted from llm_configs where id = $1', [
      configB.id,
    ]);
    expect(rows[0].api_key_encrypted).toEqual(expect.any(String));
    expect(rows[0].api_key_encrypted).not.toContain(KEY_B);

    // Created but not the default: the agent stays on A.
    const before = await askModel();
    expect(before.complete.response).toBe('Answered by model A.');
    expect(modelB.requestsFor(before.query)).toEqual([]);

    const made = await call('POST', `/v1/admin/llm-configs/${configB.id}/default`, {});
    expect(made.status).toBe(200);
    expect(await made.json()).toMatchObject({ id: configB.id, isDefault: true });

    // The notice reaches the agent over core NATS right away; allow it a moment to reload.
    await expect
      .poll(async () => (await askModel()).complete.response, { timeout: 15_000, interval: 200 })
      .toBe('Answered by model B.');
    const last = modelB.requests.at(-1);
    expect(last?.headers.authorization).toBe(`Bearer ${KEY_B}`);
    expect(last?.body.model).toBe('model-b-large');
    expect(last?.body.temperature).toBe(0.1);
    expect(Number(last?.body.max_tokens)).toBeLessThanOrEqual(500);

    // Once on B, A gets nothing more.
    const settled = modelA.requests.length;
    const { query, complete } = await askModel();
    expect(complete.response).toBe('Answered by model B.');
    expect(complete.llmModel).toContain('model-b-large');
    expect(modelB.requestsFor(query)).toHaveLength(1);
    expect(modelA.requestsFor(query)).toEqual([]);
    expect(modelA.requests.length).toBe(settled);
  });

  test('adds every answered turn to B’s usage totals', async () => {
    const start = (await configs()).find((c) => c.id === configB.id)?.usage;
    expect(start?.requests).toBeGreaterThan(0);
    expect(start?.inputTokens).toBeGreaterThan(0);
    expect(start?.outputTokens).toBeGreaterThan(0);
    await askModel();
    const after = (await configs()).find((c) => c.id === configB.id)?.usage;
    expect(after?.requests).toBe((start?.requests ?? 0) + 1);
    expect(after?.inputTokens).toBeGreaterThan(start?.inputTokens ?? 0);
    expect(after?.outputTokens).toBeGreaterThan(start?.outputTokens ?? 0);
    // The logger records which model answered.
    await expect
      .poll(async () => {
        const { rows } = await sys.db.query(
          "select llm_model from query_routing_logs where entity_id = $1 and status = 'answered' order by created_at desc limit 1",
          [tenant.entityId],
        );
        return rows[0]?.llm_model;
      })
      .toContain('model-b-large');
  });

  test('refuses an endpoint that cannot serve chat completions with 400 naming endpoint, changing nothing', async () => {
    const snapshot = await configs();
    for (const endpoint of [
      'https://api.anthropic.com/v1/messages',
      'ftp://models.example.com/v1',
      'https://abcdefgh.supabase.co/functions/v1/chat',
    ]) {
      const created = await call('POST', '/v1/admin/llm-configs', {
        name: `bad-${randomBytes(3).toString('hex')}`,
        provider: 'openai',
        model: 'x',
        endpoint,
        isDefault: true,
      });
      expect(created.status).toBe(400);
      expect(await created.json()).toMatchObject({ error: { code: 'BAD_REQUEST', field: 'endpoint' } });
      const changed = await call('PATCH', `/v1/admin/llm-configs/${configB.id}`, { endpoint });
      expect(changed.status).toBe(400);
      expect(await changed.json()).toMatchObject({ error: { field: 'endpoint' } });
    }
    expect((await configs()).map(settings)).toEqual(snapshot.map(settings));
    const { complete } = await askModel();
    expect(complete.response).toBe('Answered by model B.');
  });

  test('refuses a tenant (non-admin) caller with 403 and changes nothing', async () => {
    const snapshot = await configs();
    const attempts: [string, string, unknown][] = [
      ['GET', '/v1/admin/llm-configs', undefined],
      [
        'POST',
        '/v1/admin/llm-configs',
        { name: 'sneaky', provider: 'openai', model: 'm', endpoint: modelA.baseURL, isDefault: true },
      ],
      ['PATCH', `/v1/admin/llm-configs/${configB.id}`, { endpoint: modelA.baseURL, model: 'hijacked' }],
      ['POST', `/v1/admin/llm-configs/${configB.id}/default`, {}],
    ];
    for (const [method, path, body] of attempts) {
      const res = await call(method, path, body, asTenant);
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
      // Without any credential: 401, likewise changing nothing.
      const anonymous = await call(method, path, body, { 'content-type': 'application/json' });
      expect(anonymous.status).toBe(401);
    }
    expect((await configs()).map(settings)).toEqual(snapshot.map(settings));
    const { complete } = await askModel();
    expect(complete.response).toBe('Answered by model B.');
  });

  test('follows an edit of the default configuration, then a switch back to model A', async () => {
    const edited = await call('PATCH', `/v1/admin/llm-configs/${configB.id}`, { model: 'model-b-mini' });
    expect(edited.status).toBe(200);
    await expect
      .poll(async () => (await askModel()).complete.llmModel, { timeout: 15_000, interval: 200 })
      .toContain('model-b-mini');
    expect(modelB.requests.at(-1)?.body.model).toBe('model-b-mini');

    // Model A as a database configuration, with A's key, made the default.
    const created = await call('POST', '/v1/admin/llm-configs', {
      name: 'model-a',
      provider: 'openai',
      model: 'scripted-model',
      endpoint: modelA.baseURL,
      apiKey: KEY_A,
      isDefault: true,
    });
    expect(created.status).toBe(201);
    const configA = (await created.json()) as Config;
    expect(configA.isDefault).toBe(true);
    const defaults = (await configs()).filter((c) => c.isDefault).map((c) => c.id);
    expect(defaults).toEqual([configA.id]);

    await expect
      .poll(async () => (await askModel()).complete.response, { timeout: 15_000, interval: 200 })
      .toBe('Answered by model A.');
    const bSettled = modelB.requests.length;
    const { query } = await askModel();
    const [request] = modelA.requestsFor(query);
    expect(request?.headers.authorization).toBe(`Bearer ${KEY_A}`);
    expect(request?.body.model).toBe('scripted-model');
    expect(modelB.requests.length).toBe(bSettled);
    const usageA = (await configs()).find((c) => c.id === configA.id)?.usage;
    expect(usageA?.requests).toBeGreaterThan(0);
  });
});

describe('endpoints an administrator may not save, and rows the agent will not use', () => {
  const port = () => new URL(modelA.baseURL).port;

  test('refuses loopback (not allow-listed), private, link-local/metadata and CGNAT endpoints with 400 naming endpoint', async () => {
    const snapshot = await configs();
    const configB = snapshot.find((c) => c.name === 'model-b');
    if (!configB) throw new Error('model-b is missing');
    for (const endpoint of [
      `http://127.0.0.2:${port()}/v1`,
      `http://[::1]:${port()}/v1`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.8:8000/v1',
      'http://192.168.0.20/v1',
      'http://100.100.1.1/v1',
      'http://0.0.0.0:8000/v1',
    ]) {
      const created = await call('POST', '/v1/admin/llm-configs', {
        name: `internal-${randomBytes(3).toString('hex')}`,
        provider: 'openai',
        model: 'x',
        endpoint,
        isDefault: true,
      });
      expect(created.status).toBe(400);
      expect(await created.json()).toMatchObject({ error: { code: 'BAD_REQUEST', field: 'endpoint' } });
      const changed = await call('PATCH', `/v1/admin/llm-configs/${configB.id}`, { endpoint });
      expect(changed.status).toBe(400);
      expect(await changed.json()).toMatchObject({ error: { field: 'endpoint' } });
    }
    expect((await configs()).map(settings)).toEqual(snapshot.map(settings));
  });

  test('never sends a stored key to a new host: moving to another origin needs the key again', async () => {
    const configB = (await configs()).find((c) => c.name === 'model-b');
    if (!configB) throw new Error('model-b is missing');
    const refused = await call('PATCH', `/v1/admin/llm-configs/${configB.id}`, { endpoint: modelA.baseURL });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: 'BAD_REQUEST', field: 'apiKey' } });
    expect((await configs()).find((c) => c.id === configB.id)?.endpoint).toBe(modelB.baseURL);

    const moved = await call('PATCH', `/v1/admin/llm-configs/${configB.id}`, {
      endpoint: modelA.baseURL,
      apiKey: KEY_A,
    });
    expect(moved.status).toBe(200);
    expect(await moved.json()).toMatchObject({ endpoint: modelA.baseURL, hasApiKey: true });
    // Back where it was, with its own key again.
    const back = await call('PATCH', `/v1/admin/llm-configs/${configB.id}`, {
      endpoint: modelB.baseURL,
      apiKey: KEY_B,
    });
    expect(back.status).toBe(200);
  });

  test('falls back to the environment model, with a warning, when the default row in the table points at cloud metadata', async () => {
    // Planted straight in the table (a tampered database), so the gateway's own check never saw it.
    await sys.db.query('update llm_configs set is_default = false where is_default');
    const { rows } = await sys.db.query(
      `insert into llm_configs (name, provider, model, endpoint, is_default)
       values ('planted', 'openai', 'planted-model', 'http://169.254.169.254/v1', true) returning id`,
    );
    const plantedId = Number(rows[0].id);
    // Any change notice makes the agents reload the default row.
    const configB = (await configs()).find((c) => c.name === 'model-b');
    expect(
      (await call('PATCH', `/v1/admin/llm-configs/${configB?.id}`, { model: 'model-b-large' })).status,
    ).toBe(200);
    await expect
      .poll(
        () =>
          sys.logs.some(
            (line) =>
              line.includes('using the environment model') &&
              line.includes(`model configuration ${plantedId}: endpoint host 169.254.169.254`),
          ),
        { timeout: 15_000, interval: 200 },
      )
      .toBe(true);
    const { complete } = await askModel();
    expect(complete).toMatchObject({ status: 'answered', response: 'Answered by model A.' });
    expect(complete.llmModel).not.toContain('planted-model');
  });
});
