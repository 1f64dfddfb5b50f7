// Model failover: the default configuration's fallbacks answer when it fails, each way a provider
// fails, with the rows in a real PostgreSQL and real scripted OpenAI-compatible servers.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import type { Bus } from '@munim/bus';
import { type Database, type LlmConfigsTable, sealLlmKey } from '@munim/db';
import { createLogger, EndpointAllowlistSchema, type Logger } from '@munim/kit';
import { type ScriptedLlm, startScriptedLlm, type TurnAnswer } from '@munim/scripted-llm';
import { test } from '@munim/testkit';
import fc from 'fast-check';
import type { Insertable, Kysely } from 'kysely';
import { afterAll, describe, expect, vi } from 'vitest';
import { Breakers } from '../src/model/breaker.ts';
import { failoverReason } from '../src/model/failover.ts';
import { LlmError, type LlmTurn } from '../src/model/llm.ts';
import { createModelSource } from '../src/model/llm-config.ts';

const secretKey = randomBytes(32);
const allowlist = EndpointAllowlistSchema.parse('127.0.0.1');
const CHUNK_TIMEOUT_MS = 600;
const settings = { timeoutMs: 2_000, maxRetries: 2, chunkTimeoutMs: CHUNK_TIMEOUT_MS };
let db: Kysely<Database>;
let bus: Bus;
let primary: ScriptedLlm;
let second: ScriptedLlm;
let third: ScriptedLlm;
/** An address where nothing listens: the connection is refused. */
let refusedURL: string;

test.beforeAll(async ({ nats, db: fileDb }) => {
  db = fileDb;
  bus = await nats.bus('agent');
  primary = await startScriptedLlm({ apiKey: 'key-1' });
  second = await startScriptedLlm({ apiKey: 'key-2' });
  third = await startScriptedLlm({ apiKey: 'key-3' });
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as { port: number };
  await new Promise((resolve) => closed.close(resolve));
  refusedURL = `http://127.0.0.1:${port}/v1`;
});

afterAll(async () => {
  await Promise.all([primary?.close(), second?.close(), third?.close()]);
});

async function insertConfig(values: Insertable<LlmConfigsTable>, apiKey: string): Promise<number> {
  const row = await db.insertInto('llm_configs').values(values).returningAll().executeTakeFirstOrThrow();
  await db
    .updateTable('llm_configs')
    .set({ api_key_encrypted: sealLlmKey(secretKey, row, apiKey) })
    .where('id', '=', row.id)
    .execute();
  return Number(row.id);
}

/** Makes `endpoint` the default with these fallbacks (rows made fresh, names unique). */
async function chain(
  head: { endpoint: string; key: string; model: string },
  tail: { endpoint: string; key: string; model: string }[],
): Promise<number[]> {
  const tag = randomBytes(3).toString('hex');
  const ids: number[] = [];
  for (const [i, c] of tail.entries())
    ids.push(
      await insertConfig(
        { name: `fb-${i}-${tag}`, provider: 'scripted', model: c.model, endpoint: c.endpoint },
        c.key,
      ),
    );
  await db.updateTable('llm_configs').set({ is_default: false }).execute();
  const head_id = await insertConfig(
    {
      name: `head-${tag}`,
      provider: 'scripted',
      model: head.model,
      endpoint: head.endpoint,
      is_default: true,
      fallback_ids: ids,
    },
    head.key,
  );
  return [head_id, ...ids];
}

/** A logger whose warnings the test reads. */
function capturingLog(): {
  log: Logger;
  lines: () => { fields: Record<string, unknown>; message: string }[];
} {
  const log = createLogger('agent', 'silent');
  const warn = vi.spyOn(log, 'warn');
  const info = vi.spyOn(log, 'info');
  const lines = () =>
    [...warn.mock.calls, ...info.mock.calls].map((call) => {
      const [fields, message] = call as unknown as [Record<string, unknown>, string];
      return { fields, message };
    });
  return { log, lines };
}

const A = () => ({ endpoint: primary.baseURL, key: 'key-1', model: 'model-a' });
const B = () => ({ endpoint: second.baseURL, key: 'key-2', model: 'model-b' });
const C = () => ({ endpoint: third.baseURL, key: 'key-3', model: 'model-c' });

/** A turn as the agent makes it, with what the reader was shown: chunks, and replacements with their reason. */
async function ask(llm: NonNullable<Awaited<ReturnType<typeof createModelSource>>['llm']>, question: string) {
  let shown = '';
  const restarts: string[] = [];
  const result = await llm
    .turn({
      messages: [{ role: 'user', content: question }],
      tools: [{ type: 'function', function: { name: 'get_invoices', parameters: { type: 'object' } } }],
      maxTokens: 100,
      onText: async (text) => {
        shown += text;
      },
      onRestart: async (reason) => {
        restarts.push(reason);
        shown = '';
      },
    })
    .then(
      (turn): { turn?: LlmTurn; error?: unknown } => ({ turn }),
      (error: unknown): { turn?: LlmTurn; error?: unknown } => ({ error }),
    );
  return { ...result, shown, restarts };
}

const modelSource = (log: Logger, extra: Partial<Parameters<typeof createModelSource>[0]> = {}) =>
  createModelSource({ db, bus, log, fallback: null, secretKey, settings, allowlist, ...extra });

const source = async (log: Logger, extra: Partial<Parameters<typeof createModelSource>[0]> = {}) => {
  const models = await modelSource(log, extra);
  if (!models.llm) throw new Error('expected a model');
  return models.llm;
};

const ANSWER = 'Invoices: 3 overdue, ₹45,000 in all.';

describe('failing over to the fallbacks', () => {
  /** Each way the default fails, what it is scripted to do, and whether text went out first. */
  const failures: [string, string, TurnAnswer | 'refused', boolean][] = [
    ['429 rate limit', 'rate_limited', { error: { status: 429, headers: { 'retry-after': '20' } } }, false],
    ['500 server error', 'server_error', { error: { status: 500 } }, false],
    ['503 overloaded', 'server_error', { error: { status: 503, message: 'overloaded' } }, false],
    ['401 refused key', 'auth', { error: { status: 401 } }, false],
    ['connection refused', 'connection', 'refused', false],
    ['request timeout', 'timeout', { content: 'late', delayMs: 3_000 }, false],
    ['stall before the first chunk', 'stalled', { content: 'late', delayMs: 1_500 }, false],
    ['stall mid-stream', 'stalled', { content: 'Invoices: 2 overdue, ₹9', stallAfterDeltas: 3 }, true],
    [
      'connection dropped mid-stream',
      'connection',
      { content: 'Invoices: 2 overdue, ₹9', dropAfterDeltas: 3 },
      true,
    ],
  ];

  test.for(failures)(
    'answers from the fallback when the default fails with %s',
    async ([, reason, fault, streamedFirst]) => {
      const question = `overdue invoices ${randomUUID()}`;
      // The request timeout is shorter than the delay, the chunk timeout longer than it would be.
      const timing =
        reason === 'timeout' ? { settings: { ...settings, timeoutMs: 1_000, chunkTimeoutMs: 10_000 } } : {};
      if (fault !== 'refused') primary.script({ match: question, repeat: true, turns: [fault] });
      second.script({ match: question, turns: [{ content: ANSWER }] });
      const ids = await chain(fault === 'refused' ? { ...A(), endpoint: refusedURL } : A(), [B()]);
      const { log, lines } = capturingLog();
      const llm = await source(log, timing);
      const started = Date.now();
      const { turn, error, shown, restarts } = await ask(llm, question);
      expect(error).toBeUndefined();
      expect(turn?.content).toBe(ANSWER);
      expect(turn?.label).toBe('scripted/model-b');
      // What the reader ends with is the fallback's whole answer, never the half before it.
      expect(shown).toBe(ANSWER);
      expect(restarts).toEqual(
        streamedFirst ? ['The model stopped answering; answered by scripted/model-b instead.'] : [],
      );
      // The same messages and tools went to the fallback, once.
      const [asked] = second.requestsFor(question);
      expect(second.requestsFor(question)).toHaveLength(1);
      expect(asked?.body.messages).toEqual([{ role: 'user', content: question }]);
      expect(asked?.body.tools).toHaveLength(1);
      // No retry on the default: it fails over at once (the 429's Retry-After is not waited for).
      if (fault !== 'refused') expect(primary.requestsFor(question)).toHaveLength(1);
      expect(Date.now() - started).toBeLessThan(reason === 'stalled' ? CHUNK_TIMEOUT_MS + 1_500 : 2_500);
      // The failover is logged by name, and the usage is the fallback's.
      expect(lines().find((l) => l.message === 'model failed over')?.fields).toMatchObject({
        from: 'scripted/model-a',
        to: 'scripted/model-b',
        reason,
        fromConfigId: ids[0],
        toConfigId: ids[1],
      });
      const rows = await db
        .selectFrom('llm_configs')
        .select(['id', 'total_requests'])
        .where('id', 'in', ids)
        .execute();
      const totals = Object.fromEntries(rows.map((r) => [Number(r.id), Number(r.total_requests)]));
      expect(totals).toEqual({ [ids[0] as number]: 0, [ids[1] as number]: 1 });
    },
  );

  test('goes down the list in order, each configuration once', async () => {
    const question = `overdue bills ${randomUUID()}`;
    primary.script({ match: question, repeat: true, turns: [{ error: { status: 502 } }] });
    second.script({
      match: question,
      repeat: true,
      turns: [{ content: 'Bills: 1 overdue', stallAfterDeltas: 2 }],
    });
    third.script({ match: question, turns: [{ content: 'Bills: 4 overdue.' }] });
    await chain(A(), [B(), C()]);
    const llm = await source(capturingLog().log);
    const { turn, shown, restarts } = await ask(llm, question);
    expect(turn?.content).toBe('Bills: 4 overdue.');
    expect(turn?.label).toBe('scripted/model-c');
    expect(shown).toBe('Bills: 4 overdue.');
    expect(restarts).toEqual(['The model stopped answering; answered by scripted/model-c instead.']);
    expect([primary, second, third].map((s) => s.requestsFor(question).length)).toEqual([1, 1, 1]);
  });

  test('does not fail over on a 400: the same request would be refused anywhere', async () => {
    const question = `bad request ${randomUUID()}`;
    primary.script({ match: question, turns: [{ error: { status: 400, message: 'content filtered' } }] });
    second.script({ match: question, turns: [{ content: 'should not be asked' }] });
    await chain(A(), [B()]);
    const { log, lines } = capturingLog();
    const { error } = await ask(await source(log), question);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).status).toBe(400);
    expect(second.requestsFor(question)).toEqual([]);
    expect(lines().some((l) => l.message === 'model failed over')).toBe(false);
  });

  test('fails with a clear LlmError when every configuration fails, taking back what was streamed', async () => {
    const question = `cash position ${randomUUID()}`;
    primary.script({ match: question, turns: [{ error: { status: 503 } }] });
    second.script({ match: question, turns: [{ content: 'Cash is ₹1', dropAfterDeltas: 2 }] });
    await chain(A(), [B()]);
    const { log, lines } = capturingLog();
    const { error, shown, restarts } = await ask(await source(log), question);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).message).toContain('no model configuration answered');
    expect(shown).toBe('');
    expect(restarts).toEqual(['The model stopped answering.']);
    expect(
      lines().find((l) => l.message === 'model failed; no configuration left to fail over to')?.fields,
    ).toMatchObject({ from: 'scripted/model-b', to: null, reason: 'connection' });
  });

  test('without fallbacks, the one model keeps its client retries', async () => {
    const question = `flaky alone ${randomUUID()}`;
    primary.script({
      match: question,
      turns: [{ error: { status: 500 } }, { content: 'fine now' }],
    });
    await chain(A(), []);
    const { turn } = await ask(await source(capturingLog().log), question);
    expect(turn?.content).toBe('fine now');
    expect(primary.requestsFor(question)).toHaveLength(2);
  });
});

describe('the fallbacks the agent loads', () => {
  test('takes a change of the fallbacks alone at its timed check, and skips a fallback it may not reach', async () => {
    const question = `which list ${randomUUID()}`;
    primary.script({ match: question, repeat: true, turns: [{ error: { status: 500 } }] });
    second.script({ match: question, repeat: true, turns: [{ content: 'from B' }] });
    third.script({ match: question, repeat: true, turns: [{ content: 'from C' }] });
    // The second fallback's host is not allow-listed: it is left out, the others serve.
    const outside = await insertConfig(
      {
        name: `outside-${randomBytes(3).toString('hex')}`,
        provider: 'scripted',
        model: 'x',
        endpoint: 'http://10.9.9.9/v1',
      },
      'key-x',
    );
    const [head, b] = await chain(A(), [B()]);
    const c = await insertConfig(
      {
        name: `c-${randomBytes(3).toString('hex')}`,
        provider: 'scripted',
        model: 'model-c',
        endpoint: third.baseURL,
      },
      'key-3',
    );
    await db
      .updateTable('llm_configs')
      .set({ fallback_ids: [outside, b as number] })
      .where('id', '=', head as number)
      .execute();
    const { log, lines } = capturingLog();
    const models = await modelSource(log, { refreshMs: 50 });
    models.start();
    try {
      const llm = models.llm;
      if (!llm) throw new Error('expected a model');
      expect(lines().find((l) => l.message === 'model fallback unusable; skipped')?.fields).toMatchObject({
        configId: outside,
      });
      expect((await ask(llm, question)).turn?.label).toBe('scripted/model-b');
      // An administrator points the default at C instead: only the default's list changed.
      await db
        .updateTable('llm_configs')
        .set({ fallback_ids: [c], updated_at: new Date() })
        .where('id', '=', head as number)
        .execute();
      await expect.poll(async () => (await ask(llm, question)).turn?.label).toBe('scripted/model-c');
      // An edit of the fallback row alone (its model) is seen too.
      await db
        .updateTable('llm_configs')
        .set({ model: 'model-c2', updated_at: new Date(Date.now() + 1_000) })
        .where('id', '=', c)
        .execute();
      await expect.poll(async () => (await ask(llm, question)).turn?.label).toBe('scripted/model-c2');
    } finally {
      await models.stop();
    }
  });
});

describe('the circuit breaker per endpoint', () => {
  test('opens after failures in a row, skips the endpoint, probes it after the cool-down and closes', async () => {
    let now = 1_000_000;
    const question = `breaker ${randomUUID()}`;
    // The default fails until told otherwise; the fallback always answers.
    let healthy = false;
    primary.script({
      match: question,
      repeat: true,
      turns: [() => (healthy ? { content: 'from A' } : { error: { status: 500 } })],
    });
    second.script({ match: question, repeat: true, turns: [{ content: 'from B' }] });
    await chain(A(), [B()]);
    const { log, lines } = capturingLog();
    const llm = await source(log, { breaker: { failures: 2, coolDownMs: 30_000, now: () => now } });
    const asked = () => primary.requestsFor(question).length;

    for (const expected of [1, 2]) {
      expect((await ask(llm, question)).turn?.content).toBe('from B');
      expect(asked()).toBe(expected);
    }
    expect(lines().some((l) => l.message === 'model endpoint keeps failing: its circuit is open')).toBe(true);
    // Open: the default is not called at all, and the skip is named.
    now += 29_000;
    expect((await ask(llm, question)).turn?.content).toBe('from B');
    expect(asked()).toBe(2);
    expect(
      lines()
        .filter((l) => l.fields.reason === 'circuit_open')
        .at(-1)?.fields,
    ).toMatchObject({
      from: 'scripted/model-a',
      to: 'scripted/model-b',
    });
    // The cool-down ends: one probe goes, fails, and the circuit opens again at once.
    now += 2_000;
    expect((await ask(llm, question)).turn?.content).toBe('from B');
    expect(asked()).toBe(3);
    expect((await ask(llm, question)).turn?.content).toBe('from B');
    expect(asked()).toBe(3);
    // Next cool-down: the probe succeeds and the circuit closes; the default answers again.
    now += 31_000;
    healthy = true;
    expect((await ask(llm, question)).turn?.content).toBe('from A');
    expect(lines().some((l) => l.message === 'model endpoint answers again')).toBe(true);
    expect((await ask(llm, question)).turn?.content).toBe('from A');
    expect(asked()).toBe(5);
  });

  test('with every endpoint open, each is still tried once in order: nothing else could answer', async () => {
    const question = `all down ${randomUUID()}`;
    let recovered = false;
    primary.script({ match: question, repeat: true, turns: [{ error: { status: 503 } }] });
    second.script({
      match: question,
      repeat: true,
      turns: [() => (recovered ? { content: 'B is back' } : { error: { status: 429 } })],
    });
    await chain(A(), [B()]);
    const llm = await source(capturingLog().log, { breaker: { failures: 1, coolDownMs: 60_000 } });
    const first = await ask(llm, question);
    expect(first.error).toBeInstanceOf(LlmError);
    expect((first.error as LlmError).message).toContain('no model configuration answered');
    // Both circuits are open now: the next turn still tries each once, and B answers when it can.
    recovered = true;
    const counts = () => [primary.requestsFor(question).length, second.requestsFor(question).length];
    const before = counts();
    expect((await ask(llm, question)).turn?.content).toBe('B is back');
    expect(counts()).toEqual([(before[0] as number) + 1, (before[1] as number) + 1]);
    // B answering closed its circuit; A's stays open and is skipped while B can be called.
    expect((await ask(llm, question)).turn?.content).toBe('B is back');
    expect(counts()).toEqual([(before[0] as number) + 1, (before[1] as number) + 2]);
  });

  test('a single model is never skipped: its circuit cannot stop the only way to answer', async () => {
    const question = `only one ${randomUUID()}`;
    let healthy = false;
    primary.script({
      match: question,
      repeat: true,
      turns: [() => (healthy ? { content: 'answered' } : { error: { status: 500 } })],
    });
    await chain(A(), []);
    const llm = await source(capturingLog().log, {
      settings: { ...settings, maxRetries: 0 },
      breaker: { failures: 1, coolDownMs: 60_000 },
    });
    for (let i = 0; i < 3; i++) expect((await ask(llm, question)).error).toBeInstanceOf(LlmError);
    healthy = true;
    expect((await ask(llm, question)).turn?.content).toBe('answered');
    expect(primary.requestsFor(question)).toHaveLength(4);
  });
});

describe('the breaker, against a model of it (generated sequences)', () => {
  type Op = { kind: 'ok' | 'fail' | 'neutral' | 'twice' } | { kind: 'wait'; ms: number };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.constantFrom<Op>({ kind: 'ok' }, { kind: 'fail' }, { kind: 'neutral' }, { kind: 'twice' }),
    fc.integer({ min: 0, max: 20_000 }).map((ms): Op => ({ kind: 'wait', ms })),
  );

  test('skips an endpoint exactly while it is open, lets one probe through after the cool-down', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(op, { maxLength: 60 }), (failures, ops) => {
        const coolDownMs = 10_000;
        let now = 0;
        const breakers = new Breakers({ failures, coolDownMs, now: () => now });
        // The model: failures in a row while closed, and when it opened.
        let inARow = 0;
        let openedAt: number | null = null;
        const allows = () => openedAt === null || now - openedAt >= coolDownMs;
        for (const step of ops) {
          if (step.kind === 'wait') {
            now += step.ms;
            continue;
          }
          expect(breakers.allows('e')).toBe(allows());
          const probing = openedAt !== null;
          const taken = breakers.acquire('e');
          expect(taken).toBe(allows() ? (probing ? 'probe' : 'closed') : null);
          // Refused: the call may still be forced (nothing else could answer); it keeps the circuit open.
          const how = taken ?? 'forced';
          // While a probe is out, no other call is let through; while closed, any number are.
          if (step.kind === 'twice' && taken) {
            const second = breakers.acquire('e');
            expect(second).toBe(probing ? null : 'closed');
            if (second) breakers.released('e', second);
          }
          if (step.kind === 'ok') {
            breakers.succeeded('e');
            inARow = 0;
            openedAt = null;
          } else if (step.kind === 'fail') {
            breakers.failed('e', how);
            inARow += 1;
            if (how === 'probe' || (openedAt === null && inARow >= failures)) openedAt = now;
          } else breakers.released('e', how);
          expect(breakers.state('e')).toBe(openedAt === null ? 'closed' : allows() ? 'half_open' : 'open');
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('which failures fail over', () => {
  test.each([
    [429, 'rate_limited'],
    [500, 'server_error'],
    [502, 'server_error'],
    [503, 'server_error'],
    [401, 'auth'],
    [403, 'auth'],
    [404, 'not_found'],
    [408, 'timeout'],
    [400, null],
    [413, null],
    [422, null],
  ])('status %i: %s', (status, reason) => {
    expect(failoverReason(new LlmError('x', status))).toBe(reason);
  });

  test('any status: a 5xx or an endpoint-specific 4xx fails over, any other 4xx does not', () => {
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 599 }), (status) => {
        const moves = status >= 500 || [401, 403, 404, 408, 429].includes(status);
        expect(failoverReason(new LlmError('x', status)) !== null).toBe(moves);
      }),
    );
  });

  test('a failure that is not the model’s (the sink’s own) never fails over', () => {
    expect(failoverReason(new Error('the bus is gone'))).toBeNull();
    expect(failoverReason(new LlmError('x', undefined))).toBe('connection');
    expect(failoverReason(new LlmError('x', undefined, { kind: 'stalled' }))).toBe('stalled');
  });
});
