// The admin side end to end: intent authoring that the router uses within
// seconds, without a restart; suggested intents learnt from real LLM-path traffic and approved;
// quick suggestions; tool and intent analytics from the logged events; and admin access. The six
// services run as processes on the real NATS and a fresh PostgreSQL, the LLM is scripted and the
// accounting system is the demo books MCP server.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { bearerJson, jsonCaller } from '../support/http.ts';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

const ADMIN_KEY = `admin-${randomBytes(12).toString('hex')}`;
const TENANT_KEY = `tenant-${randomBytes(12).toString('hex')}`;
const JWT_SECRET = randomBytes(32).toString('hex');
const tenant = { entityId: 'ent-admin', orgId: 'org-admin' };
const T0 = new Date(Date.now() - 60_000);

let sys: TestSystem;

const adminJson = bearerJson(ADMIN_KEY);
const tenantJson = bearerJson(TENANT_KEY);
const call = jsonCaller(() => sys.gatewayUrl, adminJson);

/** An HS256 token as an identity provider would sign it. */
function token(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({
    sub: 'someone',
    exp: Math.floor(Date.now() / 1000) + 300,
    ...claims,
  })}`;
  return `${body}.${createHmac('sha256', JWT_SECRET).update(body).digest('base64url')}`;
}

/** The admin API of the tenant's quick suggestions: the entity in the path, the org in the query. */
const suggestionsPath = `/v1/admin/entities/${tenant.entityId}/suggestions`;
const orgQuery = `orgId=${tenant.orgId}`;

/** An entity nobody asked as yet: no cached answer stands in the way. */
const freshEntity = () => `ent-${randomUUID().slice(0, 8)}`;

const only = (events: SseEvent[], type: string) => events.filter((e) => e.event === type);
const payload = (events: SseEvent[], type: string) => only(events, type)[0]?.data;

/** Every stream this file read, for checking the analytics against what the users were shown. */
const streams: { entityId: string; events: SseEvent[] }[] = [];

/** Asks as the tenant (or, with `entityId`, as a user of that entity) and reads the whole stream. */
async function query(text: string, entityId?: string) {
  const who = entityId ? { entityId, orgId: tenant.orgId } : tenant;
  const { status, events } = await ask(
    sys.gatewayUrl,
    { query: text, ...who },
    entityId ? bearerJson(token({ entity_id: entityId, org_id: tenant.orgId })) : tenantJson,
  );
  expect(status).toBe(200);
  streams.push({ entityId: who.entityId, events });
  const route = payload(events, 'route_classified') as { path: string } | undefined;
  const intent = (payload(events, 'intent_detected') as { intent: { id: string } | null } | undefined)
    ?.intent;
  return {
    events,
    path: route?.path,
    intentId: intent?.id ?? null,
    tools: only(events, 'executing_tool').map((e) => String(e.data.tool)),
    complete: events.at(-1),
  };
}

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({
    database,
    nats,
    env: {
      GATEWAY_ADMIN_KEYS: ADMIN_KEY,
      GATEWAY_API_KEYS: `${TENANT_KEY}:${tenant.entityId}:${tenant.orgId}`,
      GATEWAY_JWT_SECRET: JWT_SECRET,
      // Only the intentsChanged notice can make a router see a change within this test's seconds.
      INTENTS_REFRESH_MS: String(3_600_000),
    },
  });
});

afterAll(async () => {
  await sys?.stop();
});

describe('intent authoring: the router follows every change without a restart', () => {
  const phrase = 'vendor ledger digest';
  const ask1 = `show the ${phrase}`;
  let intentId: string;

  test('uses a new intent within seconds of its activation, and not while it is a draft', async () => {
    sys.llm?.script({
      match: phrase,
      repeat: true,
      turns: [{ content: 'From the model: no digest intent.' }],
    });
    const before = await query(ask1);
    expect(before.path).toBe('llm');
    expect(before.intentId).not.toBe('vendor_digest');

    const created = await call('POST', '/v1/admin/intents', {
      name: 'Vendor digest',
      description: 'Every vendor with what we owe them',
      trainingPhrases: [phrase, 'vendor digest', 'digest of vendor ledgers'],
      resolutionFlow: [{ tool: 'get_all_vendors', args: {}, purpose: 'the vendors and balances' }],
    });
    expect(created.status).toBe(201);
    const intent = (await created.json()) as { id: string; isActive: boolean };
    expect(intent).toMatchObject({ id: 'vendor_digest', isActive: false });
    intentId = intent.id;
    // A draft is not routed to (a fresh entity, so no cached answer stands in the way).
    const draft = await query(ask1, freshEntity());
    expect(draft.path).toBe('llm');
    expect(draft.intentId).not.toBe('vendor_digest');

    const activated = await call('POST', `/v1/admin/intents/${intentId}/activate`, {});
    expect(activated.status).toBe(200);
    const at = Date.now();
    await expect.poll(async () => (await query(ask1)).path, { timeout: 10_000, interval: 100 }).toBe('fast');
    expect(Date.now() - at).toBeLessThan(5_000);
    const used = await query(`${phrase} please`, freshEntity());
    expect(used).toMatchObject({ path: 'fast', intentId, tools: ['get_all_vendors'] });
    expect(used.complete).toMatchObject({ event: 'complete', data: { status: 'answered' } });
  });

  test('uses an edited resolution flow at once, also for a question it answered before', async () => {
    const edited = await call('PATCH', `/v1/admin/intents/${intentId}`, {
      resolutionFlow: [{ tool: 'get_bills', args: {}, purpose: 'what we owe, bill by bill' }],
    });
    expect(edited.status).toBe(200);
    // The same tenant and the same words as before the edit: the old answer must not be replayed.
    await expect
      .poll(async () => (await query(ask1)).tools, { timeout: 10_000, interval: 100 })
      .toEqual(['get_bills']);
    // Still active after the edit (an edit changes only what it names), and answered afresh.
    const row = await sys.db.query('select is_active, response_format from intents where id = $1', [
      intentId,
    ]);
    expect(row.rows[0]).toEqual({ is_active: true, response_format: 'table' });
    const fresh = await query(`${phrase} please`, freshEntity());
    expect(fresh).toMatchObject({ path: 'fast', intentId, tools: ['get_bills'] });
  });

  test('stops using a deactivated intent within seconds', async () => {
    const deactivated = await call('POST', `/v1/admin/intents/${intentId}/deactivate`, {});
    expect(deactivated.status).toBe(200);
    await expect
      .poll(async () => (await query(`${phrase} now`, freshEntity())).path, {
        timeout: 10_000,
        interval: 100,
      })
      .toBe('llm');
  });

  test('drafts an intent with the LLM, validated against the live tool registry, and routes to it once active', async () => {
    const draftOf = (name: string, tool: string, phrases: string[]) => ({
      name,
      description: `${name} from the books`,
      trainingPhrases: phrases,
      entities: [],
      resolutionFlow: [{ tool, args: {}, description: name, purpose: 'data' }],
      responseFormat: 'table',
    });
    sys.llm?.script({
      match: 'snapshot for the accountant',
      turns: [
        {
          content: `\`\`\`json\n${JSON.stringify({
            intents: [
              draftOf('Trial balance snapshot', 'get_trial_balance', [
                'trial balance snapshot',
                'snapshot of the trial balance',
              ]),
              draftOf('Rocket fuel', 'launch_rockets', ['rocket fuel levels', 'fuel for rockets']),
            ],
          })}\n\`\`\``,
        },
      ],
    });
    const generated = await call('POST', '/v1/admin/intents/generate', {
      description: 'A trial balance snapshot for the accountant',
      count: 2,
    });
    expect(generated.status).toBe(201);
    const body = (await generated.json()) as {
      created: { id: string; isActive: boolean }[];
      rejected: { index: number; issues: { message: string }[] }[];
    };
    expect(body.created).toEqual([
      expect.objectContaining({ id: 'trial_balance_snapshot', isActive: false }),
    ]);
    expect(body.rejected).toEqual([
      expect.objectContaining({
        index: 1,
        issues: [expect.objectContaining({ message: expect.stringContaining('launch_rockets') })],
      }),
    ]);
    // The model was given the tools the executor lists from the accounting system.
    const prompt = JSON.stringify(sys.llm?.requestsFor('trial balance snapshot')[0]?.body.messages[0]);
    expect(prompt).toContain('get_trial_balance');
    expect(prompt).toContain('get_all_vendors');

    // The fast path has the model write up what the intent's tool found.
    sys.llm?.script({
      match: 'trial balance snapshot',
      repeat: true,
      turns: [{ content: 'Debits and credits agree.' }],
    });
    expect((await call('POST', '/v1/admin/intents/trial_balance_snapshot/activate', {})).status).toBe(200);
    await expect
      .poll(async () => (await query('show me the trial balance snapshot', freshEntity())).intentId, {
        timeout: 10_000,
        interval: 100,
      })
      .toBe('trial_balance_snapshot');
    const used = await query('trial balance snapshot');
    expect(used).toMatchObject({
      path: 'fast',
      intentId: 'trial_balance_snapshot',
      tools: ['get_trial_balance'],
      complete: { event: 'complete', data: { status: 'answered', response: 'Debits and credits agree.' } },
    });
  });

  test('learns a suggested intent from a repeated LLM-path question, and routes to it once approved', async () => {
    // No word of a write ("pay", "record", …): only read questions are learnt from.
    const repeated = 'which vendors had the largest balances at the end of last quarter';
    // Offered tools, the model looks the vendors up, then answers; asked to write up data it was
    // given (the fast path), it just answers.
    sys.llm?.script({
      match: repeated,
      repeat: true,
      turns: [
        (req) =>
          (req.tools?.length ?? 0) > 0 && !req.messages.some((m) => m.role === 'tool')
            ? { toolCalls: [{ name: 'get_all_vendors', arguments: {} }] }
            : { content: 'Sharma Traders have the largest balance.' },
      ],
    });
    // Ten users ask it (each entity has its own cache, so each one reaches the model).
    for (let i = 0; i < 10; i += 1) {
      const asked = await query(repeated, `ent-learn-${i}`);
      expect(asked).toMatchObject({ path: 'llm', tools: ['get_all_vendors'] });
    }
    type Suggested = { id: number; name: string; trainingPhrases: string[]; tools: string[] };
    let suggested: Suggested | undefined;
    await expect
      .poll(async () => {
        const res = await call('GET', '/v1/admin/suggested-intents');
        const list = ((await res.json()) as { suggestedIntents: Suggested[] }).suggestedIntents;
        suggested = list.find((s) => s.tools.includes('get_all_vendors'));
        return suggested !== undefined;
      })
      .toBe(true);
    expect(suggested?.trainingPhrases).toEqual([repeated]);

    const approved = await call('POST', `/v1/admin/suggested-intents/${suggested?.id}/approve`, {
      name: 'Top paid vendors',
    });
    expect(approved.status).toBe(201);
    const intent = (await approved.json()) as { id: string; isActive: boolean };
    expect(intent).toMatchObject({ id: 'top_paid_vendors', isActive: true });
    await expect
      .poll(async () => (await query(repeated, freshEntity())).intentId, {
        timeout: 10_000,
        interval: 100,
      })
      .toBe('top_paid_vendors');
    // The intent's pipeline runs the tool; the model only writes the answer, offered no tools.
    const before = sys.llm?.requestsFor(repeated).length ?? 0;
    const used = await query(repeated, freshEntity());
    expect(used).toMatchObject({ path: 'fast', tools: ['get_all_vendors'] });
    expect(used.complete?.data.response).toBe('Sharma Traders have the largest balance.');
    const asked = sys.llm?.requestsFor(repeated).slice(before) ?? [];
    expect(asked.length).toBeLessThanOrEqual(1);
    expect(asked.every((r) => (r.body.tools?.length ?? 0) === 0)).toBe(true);
    expect((await call('POST', `/v1/admin/suggested-intents/${suggested?.id}/approve`, {})).status).toBe(409);
  });
});

describe('quick suggestions', () => {
  const served = async (headers: Record<string, string> = tenantJson) => {
    const res = await fetch(`${sys.gatewayUrl}/v1/suggestions`, { headers });
    expect(res.status).toBe(200);
    return (await res.json()) as { source: string; suggestions: { text: string }[] };
  };

  test('falls back to the active intents’ phrases, then serves what an administrator configured', async () => {
    const fallback = await served();
    expect(fallback.source).toBe('intents');
    // The intents activated above are among them, by their first training phrase.
    expect(fallback.suggestions.map((s) => s.text)).toContain('trial balance snapshot');

    const base = `${suggestionsPath}?${orgQuery}`;
    for (const [text, sortOrder] of [
      ['Show overdue invoices', 2],
      ['What is my cash position?', 1],
    ] as const) {
      expect((await call('POST', base, { text, sortOrder })).status).toBe(201);
    }
    expect(
      (await call('POST', `/v1/admin/entities/ent-other/suggestions?${orgQuery}`, { text: 'Not yours' }))
        .status,
    ).toBe(201);
    expect(await served()).toEqual({
      source: 'configured',
      suggestions: [{ text: 'What is my cash position?' }, { text: 'Show overdue invoices' }],
    });

    // A suggestion is a question the system answers: asking it works like typing it.
    sys.llm?.script({ match: 'cash position', turns: [{ content: 'Your cash position is healthy.' }] });
    const asked = await query('What is my cash position?');
    expect(asked.complete).toMatchObject({ event: 'complete', data: { status: 'answered' } });
  });
});

describe('tool and intent analytics', () => {
  test('counts a failing tool and blocked writes from real requests', async () => {
    sys.llm?.script({
      match: 'invoice inv-does-not-exist',
      turns: [
        { toolCalls: [{ name: 'get_invoice', arguments: { InvoiceNumber: 'INV-DOES-NOT-EXIST' } }] },
        { content: 'I could not find that invoice.' },
      ],
    });
    const failed = await query('show invoice INV-DOES-NOT-EXIST');
    expect(only(failed.events, 'tool_result')[0]?.data).toMatchObject({
      tool: 'get_invoice',
      success: false,
    });

    sys.llm?.script({
      match: 'record a payment for the newest invoice',
      repeat: true,
      turns: [{ toolCalls: [{ name: 'create_payment', arguments: { Amount: 100 } }] }],
    });
    const blocked = await query('record a payment for the newest invoice');
    expect(only(blocked.events, 'write_validation').map((e) => e.data.status)).toEqual([
      'blocked',
      'blocked',
      'blocked',
    ]);
  });

  test('reports per tool and per intent exactly what the streams showed, for the window and entity asked', async () => {
    const mine = streams.filter((s) => s.entityId === tenant.entityId).map((s) => s.events);
    const perTool = new Map<
      string,
      { calls: number; failures: number; validations: number; blocks: number }
    >();
    const tally = (tool: string) => {
      const entry = perTool.get(tool) ?? { calls: 0, failures: 0, validations: 0, blocks: 0 };
      perTool.set(tool, entry);
      return entry;
    };
    const perIntent = new Map<string, { requests: number; fastPath: number }>();
    for (const events of mine) {
      for (const e of only(events, 'executing_tool')) tally(String(e.data.tool)).calls += 1;
      for (const e of only(events, 'tool_result'))
        if (e.data.success === false) tally(String(e.data.tool)).failures += 1;
      for (const e of only(events, 'write_validation')) {
        tally(String(e.data.tool)).validations += 1;
        if (e.data.status === 'blocked') tally(String(e.data.tool)).blocks += 1;
      }
      // The logger keeps the detected intent, or for a cached answer the intent it was built with.
      const route = payload(events, 'route_classified') as { path: string };
      const detected = payload(events, 'intent_detected') as { intent: { id: string } | null } | undefined;
      const matched = payload(events, 'complete')?.matchedIntent as { id: string } | null | undefined;
      const intent = detected?.intent ?? matched;
      if (intent) {
        const entry = perIntent.get(intent.id) ?? { requests: 0, fastPath: 0 };
        entry.requests += 1;
        if (route.path === 'fast') entry.fastPath += 1;
        perIntent.set(intent.id, entry);
      }
    }
    expect(perTool.get('get_invoice')).toMatchObject({ calls: 1, failures: 1 });
    expect(perTool.get('create_payment')).toMatchObject({ calls: 0, validations: 3, blocks: 3 });
    expect(perTool.get('get_bills')?.calls).toBeGreaterThan(0);

    type Analytics = {
      tools: {
        tool: string;
        calls: number;
        failures: number;
        failureRate: number;
        validations: number;
        blocks: number;
        blockRate: number;
        latencyMs: { p50: number | null; p95: number | null };
      }[];
      intents: {
        intentId: string;
        name: string;
        requests: number;
        fastPath: number;
        failureRate: number;
        latencyMs: { p50: number | null };
      }[];
    };
    const window = `from=${T0.toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`;
    const read = async () => {
      const res = await call('GET', `/v1/admin/analytics?${window}&entityId=${tenant.entityId}`);
      expect(res.status).toBe(200);
      return (await res.json()) as Analytics;
    };
    // The logger stores the events a moment after the streams end.
    await expect
      .poll(async () =>
        Object.fromEntries(
          (await read()).tools.map((t) => [
            t.tool,
            { calls: t.calls, failures: t.failures, validations: t.validations, blocks: t.blocks },
          ]),
        ),
      )
      .toEqual(Object.fromEntries(perTool));
    const body = await read();
    const invoice = body.tools.find((t) => t.tool === 'get_invoice');
    expect(invoice).toMatchObject({ failureRate: 1, blockRate: 0 });
    expect(invoice?.latencyMs.p50).toEqual(expect.any(Number));
    expect(body.tools.find((t) => t.tool === 'create_payment')).toMatchObject({ blockRate: 1, calls: 0 });
    expect(body.tools.find((t) => t.tool === 'get_bills')).toMatchObject({ failures: 0, failureRate: 0 });

    await expect
      .poll(async () =>
        Object.fromEntries(
          (await read()).intents.map((i) => [i.intentId, { requests: i.requests, fastPath: i.fastPath }]),
        ),
      )
      .toEqual(Object.fromEntries(perIntent));
    const digest = body.intents.find((i) => i.intentId === 'vendor_digest');
    expect(digest).toMatchObject({ name: 'Vendor digest', failureRate: 0 });
    expect(digest?.latencyMs.p50).toEqual(expect.any(Number));

    // Other entities' traffic is outside this entity's numbers, inside the whole system's.
    const all = (await (await call('GET', `/v1/admin/analytics?${window}`)).json()) as Analytics;
    const vendorsEverywhere = all.tools.find((t) => t.tool === 'get_all_vendors')?.calls ?? 0;
    expect(vendorsEverywhere).toBeGreaterThan(perTool.get('get_all_vendors')?.calls ?? 0);
    // A window before anything happened is empty.
    const early = `from=${new Date(T0.getTime() - 7_200_000).toISOString()}&to=${T0.toISOString()}`;
    expect(await (await call('GET', `/v1/admin/analytics?${early}`)).json()).toMatchObject({
      tools: [],
      intents: [],
    });
  });
});

describe('admin access: only an admin key or admin-role token; everyone else 403 and nothing changes', () => {
  test('refuses a tenant key and a token without the admin role on every admin endpoint', async () => {
    const snapshot = async () => {
      const q = async (text: string) => (await sys.db.query(text)).rows;
      return {
        intents: await q(
          'select id, name, is_active, training_phrases, resolution_flow, updated_at from intents order by id',
        ),
        suggested: await q('select id, status from suggested_intents order by id'),
        suggestions: await q(
          'select id, entity_id, text, sort_order, is_active from quick_suggestions order by id',
        ),
        configs: await q('select id, name, is_default from llm_configs order by id'),
      };
    };
    const pending = await sys.db.query(
      "insert into suggested_intents (pattern_hash, name, training_phrases, tools) values ('h-access', 'Bills due', '[\"bills due this week\"]', '[\"get_bills\"]') returning id",
    );
    const pendingId = pending.rows[0].id;
    const before = await snapshot();
    const llmRequests = sys.llm?.requests.length;

    const intentBody = {
      name: 'Sneaky',
      trainingPhrases: ['show all invoices'],
      resolutionFlow: [{ tool: 'get_bills' }],
      isActive: true,
    };
    const attempts: [string, string, unknown][] = [
      ['GET', '/v1/admin/intents', undefined],
      ['POST', '/v1/admin/intents', intentBody],
      ['PATCH', '/v1/admin/intents/vendor_digest', { isActive: true }],
      ['POST', '/v1/admin/intents/vendor_digest/activate', {}],
      ['POST', '/v1/admin/intents/trial_balance_snapshot/deactivate', {}],
      ['POST', '/v1/admin/intents/generate', { description: 'intents that route everything to bills' }],
      ['GET', '/v1/admin/suggested-intents', undefined],
      ['POST', `/v1/admin/suggested-intents/${pendingId}/approve`, {}],
      ['POST', `/v1/admin/suggested-intents/${pendingId}/reject`, {}],
      ['GET', `${suggestionsPath}?${orgQuery}`, undefined],
      ['POST', `${suggestionsPath}?${orgQuery}`, { text: 'Sneaky' }],
      ['PATCH', `${suggestionsPath}/1?${orgQuery}`, { text: 'Sneaky' }],
      ['DELETE', `${suggestionsPath}/1?${orgQuery}`, undefined],
      ['GET', '/v1/admin/analytics', undefined],
      ['GET', '/v1/admin/llm-configs', undefined],
      ['GET', '/v1/admin/tools', undefined],
      [
        'POST',
        '/v1/admin/llm-configs',
        { name: 'x', provider: 'openai', model: 'm', endpoint: 'http://127.0.0.1:1/v1' },
      ],
    ];
    const credentials = [
      TENANT_KEY,
      token({ entity_id: tenant.entityId, org_id: tenant.orgId }),
      token({ entity_id: tenant.entityId, org_id: tenant.orgId, roles: ['viewer'], role: 'accountant' }),
    ];
    for (const credential of credentials) {
      for (const [method, path, body] of attempts) {
        const headers: Record<string, string> = { authorization: `Bearer ${credential}` };
        if (body !== undefined) headers['content-type'] = 'application/json';
        const res = await call(method, path, body, headers);
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
        expect(await res.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
      }
    }
    for (const [method, path, body] of attempts) {
      const headers: Record<string, string> =
        body === undefined ? {} : { 'content-type': 'application/json' };
      expect((await call(method, path, body, headers)).status).toBe(401);
    }
    expect(await snapshot()).toEqual(before);
    expect(sys.llm?.requests.length).toBe(llmRequests);
    // The routers were told nothing: the tenant's question is routed as before.
    const still = await query('trial balance snapshot', freshEntity());
    expect(still).toMatchObject({ path: 'fast', intentId: 'trial_balance_snapshot' });
  });

  test('admits a token with the admin role, and the admin key', async () => {
    const adminToken = token({ roles: ['viewer', 'admin'] });
    const res = await call('GET', '/v1/admin/intents?active=true', undefined, {
      authorization: `Bearer ${adminToken}`,
    });
    expect(res.status).toBe(200);
    const ids = ((await res.json()) as { intents: { id: string }[] }).intents.map((i) => i.id);
    expect(ids).toEqual(expect.arrayContaining(['trial_balance_snapshot', 'top_paid_vendors']));
    expect(ids).not.toContain('vendor_digest');
    const rejected = await call(
      'POST',
      '/v1/admin/suggested-intents/999999/reject',
      {},
      bearerJson(adminToken),
    );
    expect(rejected.status).toBe(404);
  });

  test('shows how every tool of the accounting system was classified, and why', async () => {
    const res = await call('GET', '/v1/admin/tools?kind=write');
    expect(res.status).toBe(200);
    const { tools } = (await res.json()) as {
      tools: { name: string; server: string; kind: string; reason: string; detail: string; tier: number }[];
    };
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('void_invoice')).toMatchObject({
      server: 'mcp',
      kind: 'write',
      reason: 'verb',
      tier: 3,
    });
    expect(byName.get('update_invoice')).toMatchObject({ kind: 'write', reason: 'verb', tier: 2 });
    expect(byName.get('create_payment')).toMatchObject({ kind: 'write', tier: 1 });
    expect(byName.get('create_payment')?.detail).toContain('"create"');
    expect(tools.every((t) => t.kind === 'write')).toBe(true);
    expect(byName.has('get_all_invoices')).toBe(false);
    const reads = await call('GET', '/v1/admin/tools?kind=read');
    const read = ((await reads.json()) as { tools: { name: string; reason: string; tier: number }[] }).tools;
    expect(read.find((t) => t.name === 'get_all_invoices')).toMatchObject({ reason: 'verb', tier: 0 });
    const bad = await call('GET', '/v1/admin/tools?kind=maybe');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('kind');
  });
});
