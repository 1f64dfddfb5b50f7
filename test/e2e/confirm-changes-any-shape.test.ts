// End to end, on a server in another naming style (snake_case fields, numbers like
// `INV/2026/0007`, payments listed inside the invoice, dates as `payment_date`): a void card says
// what else the void touches, and "yes but make it Rs 4,000 and date it 2 Dec" is asked again on a
// new card with the changed call — the server receives nothing but reads until it is confirmed.
import { randomUUID } from 'node:crypto';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { type Args, type FixtureSpec, jsonResult } from '../support/mcp-fixture.ts';
import { ask, type SseEvent } from '../support/sse.ts';
import { type FixtureSystem, startOverFixtures } from '../support/stack.ts';

const tenant = { entityId: 'ent-confirm-any-shape', orgId: 'org-confirm-any-shape' };
const SERVER = 'snakebooks';
const str = { type: 'string' };
const num = { type: 'number' };

const invoices = [
  {
    invoice_id: 'inv_7f3a9c2e41',
    invoice_number: 'INV/2026/0007',
    customer_id: 'cus_51ab',
    customer_name: 'Crux Traders',
    date: '2026-11-02',
    total: 11800,
    tax_total: 1800,
    gst_breakup: { cgst: 900, sgst: 900 },
    balance: 6800,
    payments: [{ payment_number: 'RCPT-12', amount: 5000, date: '2026-11-10' }],
  },
];

const TOOLS: { tool: Tool; run: (args: Args) => unknown }[] = [
  {
    tool: {
      name: 'list_invoices',
      description: 'Lists invoices.',
      inputSchema: { type: 'object', properties: {} },
    },
    run: () => ({ invoices }),
  },
  {
    tool: {
      name: 'get_invoice',
      description: 'One invoice by its id.',
      inputSchema: { type: 'object', properties: { invoice_id: str }, required: ['invoice_id'] },
    },
    run: (args) => invoices.find((i) => i.invoice_id === args.invoice_id),
  },
  {
    tool: {
      name: 'void_invoice',
      description: 'Voids an invoice.',
      inputSchema: { type: 'object', properties: { invoice_id: str }, required: ['invoice_id'] },
    },
    run: (args) => ({ voided: args.invoice_id }),
  },
  {
    tool: {
      name: 'delete_customer',
      description: 'Deletes a customer.',
      inputSchema: { type: 'object', properties: { customer_id: str }, required: ['customer_id'] },
    },
    run: (args) => ({ deleted: args.customer_id }),
  },
  {
    tool: {
      name: 'record_customer_payment',
      description: 'Records a payment received from a customer against invoices.',
      inputSchema: {
        type: 'object',
        properties: {
          customer_id: str,
          amount: num,
          payment_date: str,
          reference: str,
          invoices: {
            type: 'array',
            items: { type: 'object', properties: { invoice_id: str, amount_applied: num } },
          },
        },
        required: ['customer_id', 'amount'],
      },
    },
    run: (args) => ({ payment_number: 'RCPT-13', amount: args.amount }),
  },
];

const snakeBooks: FixtureSpec = {
  name: SERVER,
  tools: () => TOOLS.map((t) => t.tool),
  call(name: string, args: Args): CallToolResult {
    const entry = TOOLS.find((t) => t.tool.name === name);
    return entry
      ? jsonResult(entry.run(args))
      : { isError: true, content: [{ type: 'text', text: `Unknown tool: ${name}` }] };
  },
};

let fixtures: FixtureSystem;

test.beforeAll(async ({ database, nats }) => {
  fixtures = await startOverFixtures(
    [{ name: SERVER, http: snakeBooks }],
    TOOLS.map((t) => t.tool.name),
    {},
    { database, nats },
  );
}, 120_000);

afterAll(async () => {
  await fixtures?.stop();
});

const card = (events: SseEvent[]) => events.find((e) => e.event === 'mcq')?.data;
const detail = (data: Record<string, unknown> | undefined, label: string) =>
  (data?.details as { label: string; value: string }[] | undefined)?.find((d) => d.label === label)?.value;
const writes = () =>
  fixtures
    .received(SERVER)
    .filter((c) => ['void_invoice', 'delete_customer', 'record_customer_payment'].includes(c.tool));

describe('a server in another naming style', () => {
  test('the void card lists the payment applied, the balance and the tax that reverses', async () => {
    const query = `void INV/2026/0007 ${randomUUID().slice(0, 8)}`;
    fixtures.sys.llm?.script({
      match: query,
      turns: [
        { toolCalls: [{ name: 'void_invoice', arguments: { invoice_id: 'inv_7f3a9c2e41' } }] },
        { content: 'Voided.' },
      ],
    });
    const proposal = await ask(fixtures.sys.gatewayUrl, {
      query,
      conversationId: `conv-${randomUUID()}`,
      ...tenant,
    });
    const shown = card(proposal.events);
    expect(detail(shown, 'Payments applied')).toMatch(/RCPT-12 \(₹5,000\.00, dated 10\/11\/2026\)/);
    expect(detail(shown, 'Balance due')).toBe('₹6,800.00');
    expect(detail(shown, 'Tax that reverses')).toBe('₹1,800.00 (CGST ₹900.00, SGST ₹900.00)');
    expect(String(shown?.question)).toMatch(/INV\/2026\/0007 of Crux Traders/);
    expect(String(shown?.question)).not.toMatch(/inv_7f3a9c2e41/);
    expect(writes()).toHaveLength(0);
  });

  test("a customer's delete says the books cannot tell its open documents when no list reads them by customer", async () => {
    const query = `delete Crux Traders ${randomUUID().slice(0, 8)}`;
    fixtures.sys.llm?.script({
      match: query,
      turns: [
        { toolCalls: [{ name: 'delete_customer', arguments: { customer_id: 'cus_51ab' } }] },
        { content: 'Deleted.' },
      ],
    });
    const proposal = await ask(fixtures.sys.gatewayUrl, {
      query,
      conversationId: `conv-${randomUUID()}`,
      ...tenant,
    });
    const shown = card(proposal.events);
    expect(detail(shown, 'Open documents')).toBe('the books do not say (no list of its documents)');
    expect(String(shown?.question)).toMatch(/open documents: the books do not say/);
    expect(writes()).toHaveLength(0);
  });

  test('"yes but make it Rs 4,000 and date it 2 Dec" is asked again, and only the confirmed call is sent', async () => {
    const query = `record Crux Traders payment ${randomUUID().slice(0, 8)}`;
    fixtures.sys.llm?.script({
      match: query,
      turns: [
        {
          toolCalls: [
            {
              name: 'record_customer_payment',
              arguments: {
                customer_id: 'cus_51ab',
                amount: 5000,
                reference: 'NEFT-881',
                invoices: [{ invoice_id: 'inv_7f3a9c2e41', amount_applied: 5000 }],
              },
            },
          ],
        },
        { content: 'Recorded.' },
      ],
    });
    const conversationId = `conv-${randomUUID()}`;
    const first = card((await ask(fixtures.sys.gatewayUrl, { query, conversationId, ...tenant })).events);
    const changed = await ask(fixtures.sys.gatewayUrl, {
      query: 'yes but make it Rs 4,000 and date it 2 Dec',
      conversationId,
      ...tenant,
    });
    const again = card(changed.events);
    expect(changed.events.at(-1)).toMatchObject({ data: { status: 'awaiting_confirmation' } });
    expect(again?.actionId).not.toBe(first?.actionId);
    expect(again?.pending_args).toEqual({
      customer_id: 'cus_51ab',
      amount: 4000,
      reference: 'NEFT-881',
      payment_date: expect.stringMatching(/^\d{4}-12-02$/),
      invoices: [{ invoice_id: 'inv_7f3a9c2e41', amount_applied: 4000 }],
    });
    expect(String(again?.question)).toMatch(/changed the date to 02\/12\/\d{4} and the amount to ₹4,000.00/);
    expect(String(again?.question)).toMatch(/4,000/);
    expect(writes()).toHaveLength(0);

    const confirmed = await ask(fixtures.sys.gatewayUrl, {
      ...tenant,
      conversationId,
      mcqResponse: {
        actionId: String(again?.actionId),
        value: 'confirm',
        ...(again?.confirm_text ? { typedConfirmation: again.confirm_text } : {}),
      },
    });
    expect(confirmed.events.at(-1)).toMatchObject({ event: 'complete' });
    expect(writes()).toHaveLength(1);
    expect(writes()[0]?.args).toMatchObject({ amount: 4000, invoices: [{ amount_applied: 4000 }] });
  });
});
