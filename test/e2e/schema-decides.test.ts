// "The server's schema decides what is required" (docs/mcp-servers.md), through the public HTTP API with the
// scripted LLM: payment tools whose schemas leave the deposit account, the paid-through account and
// the bills optional (as QuickBooks' and Zoho Books' servers do) are not blocked for leaving them
// out. The call is proposed for confirmation as it is, the server sees nothing before the person
// confirms, and then receives exactly that call once. A payment of zero on the same server is still
// blocked and never sent. One system holds both servers: snake_case names over Streamable HTTP,
// camelCase names spawned over stdio.
import { randomUUID } from 'node:crypto';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import type { ReceivedCall } from '../support/mcp-fixture.ts';
import { type OptionalBooksStyle, optionalBooks, optionalBooksNames } from '../support/optional-books.ts';
import { ask, type SseEvent } from '../support/sse.ts';
import { type FixtureSystem, startOverFixtures, type TestSystem } from '../support/stack.ts';

type Args = Record<string, unknown>;

const tenant = { entityId: 'ent-schema-decides', orgId: 'org-schema-decides' };
const TRANSPORTS = { 'Streamable HTTP': 'snake', stdio: 'camel' } as const satisfies Record<
  string,
  OptionalBooksStyle
>;

const only = (events: SseEvent[], type: string) => events.filter((e) => e.event === type);
const last = (events: SseEvent[]) => events.at(-1);
const resultsOf = (events: SseEvent[], tool: string) =>
  only(events, 'tool_result')
    .filter((e) => e.data.tool === tool)
    .map((e) => e.data.success);
const validationsOf = (events: SseEvent[], tool: string) =>
  only(events, 'write_validation')
    .map((e) => e.data)
    .filter((v) => v.tool === tool);

const SERVER_OF = { snake: 'qbo-http', camel: 'books-stdio' } as const;

let fixtures: FixtureSystem;
let sys: TestSystem;

/** What the server of a style has received so far. */
const received = (style: OptionalBooksStyle): ReceivedCall[] => fixtures.received(SERVER_OF[style]);

test.beforeAll(async ({ database, nats }) => {
  fixtures = await startOverFixtures(
    [
      { name: SERVER_OF.snake, http: optionalBooks('snake') },
      {
        name: SERVER_OF.camel,
        stdio: new URL('../support/optional-books.ts', import.meta.url),
        args: ['camel'],
      },
    ],
    Object.values(TRANSPORTS).flatMap((style) => {
      const names = optionalBooksNames(style);
      return [names.receivePayment, names.createVendorPayment];
    }),
    {},
    { database, nats },
  );
  sys = fixtures.sys;
}, 120_000);

afterAll(async () => {
  await fixtures?.stop();
});

/** Asks a new question for which the LLM calls `tool` with `args`, then says `closing`. */
async function run(tool: string, args: Args, closing: string): Promise<SseEvent[]> {
  const query = `record ${tool} in my books ${randomUUID().slice(0, 8)}`;
  sys.llm?.script({
    match: query,
    turns: [{ toolCalls: [{ name: tool, arguments: args }] }, { content: closing }],
  });
  return (await ask(sys.gatewayUrl, { query, ...tenant })).events;
}

/** Confirms the proposal the stream `events` ended with. */
async function confirm(events: SseEvent[]): Promise<SseEvent[]> {
  const mcq = only(events, 'mcq').at(-1)?.data;
  const res = await ask(sys.gatewayUrl, {
    ...tenant,
    conversationId: String(events[0]?.data.conversationId),
    mcqResponse: { actionId: String(mcq?.actionId), value: 'confirm' },
  });
  return res.events;
}

describe.each(Object.entries(TRANSPORTS))(
  'an optional field is not demanded, over %s',
  (_transport, style) => {
    const names = optionalBooksNames(style);
    const f = names.field;
    const sent = (tool: string) => received(style).filter((c) => c.tool === tool);

    const writes = [
      {
        what: 'a customer payment without the deposit account its schema leaves to QuickBooks',
        tool: names.receivePayment,
        args: { [f('customer_id')]: '58', amount: 5000, [f('invoice_id')]: '145' },
      },
      {
        what: 'an advance to a vendor, with neither the paid-through account nor bills',
        tool: names.createVendorPayment,
        args: { [f('vendor_id')]: '460000000026051', amount: 2300, date: '2025-06-02' },
      },
    ];

    test.each(writes)(
      '$what ($tool) is proposed as it is, sent only once confirmed, exactly',
      async ({ tool, args }) => {
        const before = sent(tool).length;
        const events = await run(tool, args, 'Recorded.');
        expect(validationsOf(events, tool)).toEqual([expect.objectContaining({ status: 'passed' })]);
        const mcq = only(events, 'mcq');
        expect(mcq).toHaveLength(1);
        expect(mcq[0]?.data).toMatchObject({ pending_tool: tool, pending_args: args });
        expect(last(events)).toMatchObject({ event: 'complete', data: { status: 'awaiting_confirmation' } });
        expect(resultsOf(events, tool)).toEqual([]);
        expect(sent(tool)).toHaveLength(before);

        const after = await confirm(events);
        expect(resultsOf(after, tool)).toEqual([true]);
        expect(last(after)).toMatchObject({ event: 'complete', data: { status: 'answered' } });
        const calls = sent(tool);
        expect(calls).toHaveLength(before + 1);
        expect(calls.at(-1)?.args).toEqual(args);
      },
    );

    test(`a payment of zero (${names.receivePayment}) on the same server is still blocked and never sent`, async () => {
      const tool = names.receivePayment;
      const before = sent(tool).length;
      const events = await run(tool, { [f('customer_id')]: '58', amount: 0 }, 'I need the amount first.');
      const [blocked] = validationsOf(events, tool);
      expect(blocked).toMatchObject({ status: 'blocked' });
      expect(JSON.stringify(blocked?.errors)).toContain('amount');
      expect(only(events, 'mcq')).toEqual([]);
      expect(resultsOf(events, tool)).toEqual([]);
      expect(sent(tool)).toHaveLength(before);
    });
  },
);
