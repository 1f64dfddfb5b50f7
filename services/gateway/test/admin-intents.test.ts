import type { Bus } from '@munim/bus';
import { catalog, type IntentsChanged, messageSchema } from '@munim/contracts';
import type { Database } from '@munim/db';
import { type ScriptedLlm, startScriptedLlm } from '@munim/scripted-llm';
import { type FixtureNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { startGateway } from './helpers.ts';

let testBus: FixtureNats;
const ADMIN_KEY = 'admin-key-intents-000001';
let db: Kysely<Database>;
let gateway: Gateway;
let url: string;
let router: Bus;
const notices: IntentsChanged[] = [];

const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
const post = (path: string, body: unknown = {}) =>
  fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
const patch = (path: string, body: unknown) =>
  fetch(`${url}${path}`, { method: 'PATCH', headers, body: JSON.stringify(body) });

/** Waits until a notice naming the intent arrives (it is sent right after the change). */
async function noticeFor(intentId: string, reason: string) {
  await expect
    .poll(() => notices.some((n) => n.reason === reason && n.intentIds.includes(intentId)))
    .toBe(true);
}

const draft = {
  name: 'Vendor balances',
  description: 'What we owe each vendor',
  trainingPhrases: ['vendor balances', 'how much do we owe vendors'],
  resolutionFlow: [{ tool: 'get_vendor_balances', args: { status: 'open' }, purpose: 'balances' }],
  responseFormat: 'table',
};

test.beforeAll(async ({ nats, db: fileDb }) => {
  testBus = nats;
  db = fileDb;
  await db
    .insertInto('tool_registry')
    .values([{ tool_name: 'get_vendor_balances' }, { tool_name: 'get_invoices' }, { tool_name: 'get_bills' }])
    .execute();
  ({ gateway, url } = await startGateway(testBus, { GATEWAY_ADMIN_KEYS: ADMIN_KEY }, db));
  router = await testBus.bus('router');
  const schema = messageSchema(catalog.intentsChanged.schema);
  router.nc.subscribe(router.subject('intentsChanged'), {
    callback: (_err, msg) => {
      notices.push(schema.parse(msg.json()).data);
    },
  });
  await router.nc.flush();
});

afterAll(async () => {
  await gateway?.stop();
});

describe('intent authoring', () => {
  test('refuses an intent whose flow names a tool the registry does not know, and saves nothing', async () => {
    const response = await post('/v1/admin/intents', {
      ...draft,
      resolutionFlow: [{ tool: 'get_vendor_balances' }, { tool: 'launch_rockets' }],
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: {
        code: 'BAD_REQUEST',
        field: 'resolutionFlow.1.tool',
        message: expect.stringContaining('launch_rockets'),
      },
    });
    const bad = await post('/v1/admin/intents', { ...draft, trainingPhrases: [] });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { field: 'trainingPhrases' } });
    expect(await db.selectFrom('intents').select('id').where('name', '=', draft.name).execute()).toEqual([]);
  });

  test('creates a draft, edits, activates and deactivates it, announcing each change to the routers', async () => {
    const created = await post('/v1/admin/intents', draft);
    expect(created.status).toBe(201);
    const intent = (await created.json()) as { id: string; isActive: boolean };
    expect(intent).toMatchObject({
      id: 'vendor_balances',
      isActive: false,
      trainingPhrases: draft.trainingPhrases,
    });
    await noticeFor(intent.id, 'created');
    expect((await post('/v1/admin/intents', draft)).status).toBe(409);

    const edited = await patch(`/v1/admin/intents/${intent.id}`, {
      trainingPhrases: ['vendor balances', 'payables by vendor'],
    });
    expect(edited.status).toBe(200);
    await noticeFor(intent.id, 'updated');
    const stored = await db
      .selectFrom('intents')
      .select(['training_phrases', 'is_active', 'resolution_flow'])
      .where('id', '=', intent.id)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({
      training_phrases: ['vendor balances', 'payables by vendor'],
      is_active: false,
      resolution_flow: draft.resolutionFlow,
    });

    const activated = await post(`/v1/admin/intents/${intent.id}/activate`);
    expect(await activated.json()).toMatchObject({ isActive: true });
    await noticeFor(intent.id, 'activated');
    const listed = (await (await fetch(`${url}/v1/admin/intents?active=true`, { headers })).json()) as {
      intents: { id: string }[];
    };
    expect(listed.intents.map((i) => i.id)).toContain(intent.id);

    const deactivated = await post(`/v1/admin/intents/${intent.id}/deactivate`);
    expect(await deactivated.json()).toMatchObject({ isActive: false });
    await noticeFor(intent.id, 'deactivated');

    const unknownTool = await patch(`/v1/admin/intents/${intent.id}`, { resolutionFlow: [{ tool: 'nope' }] });
    expect(unknownTool.status).toBe(400);
    expect((await patch('/v1/admin/intents/no_such_intent', { name: 'x' })).status).toBe(404);
    expect((await post('/v1/admin/intents/no_such_intent/activate')).status).toBe(404);
  });

  test('changes only the fields an edit names: an active intent stays active, with its entities and format', async () => {
    const created = await post('/v1/admin/intents', {
      ...draft,
      name: 'Bills by vendor',
      entities: [{ name: 'vendor', type: 'contact', required: false }],
      resolutionFlow: [{ tool: 'get_bills', args: {} }],
      responseFormat: 'report',
      isActive: true,
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const edited = await patch(`/v1/admin/intents/${id}`, { trainingPhrases: ['bills by vendor'] });
    expect(edited.status).toBe(200);
    expect(await edited.json()).toMatchObject({
      isActive: true,
      responseFormat: 'report',
      entities: [{ name: 'vendor', type: 'contact', required: false }],
      trainingPhrases: ['bills by vendor'],
    });
    expect(
      await db
        .selectFrom('intents')
        .select(['is_active', 'response_format', 'entities'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow(),
    ).toEqual({
      is_active: true,
      response_format: 'report',
      entities: [{ name: 'vendor', type: 'contact', required: false }],
    });
  });

  test('lists pending suggested intents and approves one into an active intent, once', async () => {
    const [suggestion] = await db
      .insertInto('suggested_intents')
      .values([
        {
          pattern_hash: 'h1',
          name: 'Bills due',
          training_phrases: JSON.stringify(['bills due this week', 'which bills are due']),
          tools: JSON.stringify(['get_bills']),
        },
        { pattern_hash: 'h2', name: 'Noise', training_phrases: JSON.stringify(['noise']), tools: '[]' },
      ])
      .returning('id')
      .execute();
    const listed = (await (await fetch(`${url}/v1/admin/suggested-intents`, { headers })).json()) as {
      suggestedIntents: { id: number; name: string; tools: string[] }[];
    };
    expect(listed.suggestedIntents.map((s) => s.name).sort()).toEqual(['Bills due', 'Noise']);

    const approved = await post(`/v1/admin/suggested-intents/${suggestion?.id}/approve`, {
      description: 'Bills falling due',
    });
    expect(approved.status).toBe(201);
    const intent = (await approved.json()) as { id: string };
    expect(intent).toMatchObject({
      id: 'bills_due',
      isActive: true,
      description: 'Bills falling due',
      resolutionFlow: [{ tool: 'get_bills', args: {} }],
    });
    await noticeFor('bills_due', 'approved');
    expect(
      await db
        .selectFrom('suggested_intents')
        .select('status')
        .where('id', '=', Number(suggestion?.id))
        .executeTakeFirst(),
    ).toEqual({ status: 'approved' });
    expect((await post(`/v1/admin/suggested-intents/${suggestion?.id}/approve`)).status).toBe(409);

    const noise = listed.suggestedIntents.find((s) => s.name === 'Noise');
    // No tools: not a valid intent, so it stays pending until someone rejects it.
    expect((await post(`/v1/admin/suggested-intents/${noise?.id}/approve`)).status).toBe(400);
    expect((await post(`/v1/admin/suggested-intents/${noise?.id}/reject`)).status).toBe(200);
    const pending = (await (await fetch(`${url}/v1/admin/suggested-intents`, { headers })).json()) as {
      suggestedIntents: unknown[];
    };
    expect(pending.suggestedIntents).toEqual([]);
  });
});

describe('intent generation with the LLM', () => {
  let llm: ScriptedLlm;
  let withLlm: { gateway: Gateway; url: string };

  beforeAll(async () => {
    llm = await startScriptedLlm();
    withLlm = await startGateway(
      testBus,
      { GATEWAY_ADMIN_KEYS: ADMIN_KEY, OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'k', LLM_MODEL: 'm' },
      db,
    );
  });
  afterAll(async () => {
    await withLlm?.gateway.stop();
    await llm?.close();
  });

  const generate = (body: unknown) =>
    fetch(`${withLlm.url}/v1/admin/intents/generate`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
  const intent = (name: string, tool: string) => ({
    name,
    description: `${name} from the books`,
    trainingPhrases: [`show ${name.toLowerCase()}`, `${name.toLowerCase()} please`],
    entities: [],
    resolutionFlow: [{ tool, args: {}, description: name, purpose: 'data' }],
    responseFormat: 'table',
  });

  test('drafts a batch, saving only the intents valid against the schema and the live registry', async () => {
    llm.script({
      match: 'receivables overview',
      turns: [
        {
          content: `\`\`\`json\n${JSON.stringify({
            intents: [
              intent('Unpaid invoices', 'get_invoices'),
              intent('Rocket launches', 'launch_rockets'),
              { name: 'Broken', trainingPhrases: 'not a list' },
            ],
          })}\n\`\`\``,
        },
      ],
    });
    const response = await generate({ description: 'A receivables overview for the finance team', count: 3 });
    expect(response.status).toBe(201);
    const body = (await response.json()) as {
      created: { id: string; isActive: boolean }[];
      rejected: { index: number; issues: { field: string; message: string }[] }[];
    };
    expect(body.created).toEqual([
      expect.objectContaining({ id: 'unpaid_invoices', name: 'Unpaid invoices', isActive: false }),
    ]);
    expect(body.rejected.map((r) => r.index)).toEqual([1, 2]);
    expect(body.rejected[0]?.issues[0]?.message).toContain('launch_rockets');
    expect(body.rejected[1]?.issues.map((i) => i.field)).toContain('trainingPhrases');
    await noticeFor('unpaid_invoices', 'generated');
    const stored = await db
      .selectFrom('intents')
      .select(['is_active', 'resolution_flow'])
      .where('id', '=', 'unpaid_invoices')
      .executeTakeFirstOrThrow();
    expect(stored.is_active).toBe(false);
    // The model was told the registry's tools and how many intents to draft.
    const sent = llm.requestsFor('receivables overview')[0]?.body.messages[0];
    expect(JSON.stringify(sent)).toContain('get_vendor_balances');
    expect(JSON.stringify(sent)).toContain('exactly 3 intent');
  });

  test('answers 502 when the model answers no JSON, and saves nothing', async () => {
    llm.script({ match: 'gibberish please', turns: [{ content: 'Sure! Here are some ideas.' }] });
    const before = await db.selectFrom('intents').select('id').execute();
    const response = await generate({ description: 'gibberish please, nothing useful' });
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: { code: 'LLM_ERROR' } });
    expect(await db.selectFrom('intents').select('id').execute()).toHaveLength(before.length);
  });

  test('refuses a batch above 10 and answers 503 without a model', async () => {
    const tooMany = await generate({ description: 'eleven intents about payables', count: 11 });
    expect(tooMany.status).toBe(400);
    expect(await tooMany.json()).toMatchObject({ error: { field: 'count' } });
    const noModel = await post('/v1/admin/intents/generate', { description: 'anything at all here' });
    expect(noModel.status).toBe(503);
    expect(await noModel.json()).toMatchObject({ error: { code: 'NO_MODEL_CONFIGURED' } });
  });
});
