// End to end: a confirmation names the record on servers whose records are shaped
// unlike ours — "ledgerly" (the number in `InvoiceId`, the customer in `Customer`) and "quickly"
// (QuickBooks Online's `DocNumber`, `CustomerRef.name`, `TotalAmt`, `TxnDate`, payments linked
// through `LinkedTxn`). Each shape is served over Streamable HTTP and spawned over stdio, all four
// in one system (MCP_SERVERS), through the public HTTP API with the scripted LLM: the turn lists
// the invoices, then asks for a void or a payment; the card names the invoice's number, customer,
// amount and date from what the turn read, never says "not looked up", and the server receives
// nothing but reads until the user confirms — then the write, once.
import { randomUUID } from 'node:crypto';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import type { ReceivedCall } from '../support/mcp-fixture.ts';
import { oddBooks, oddToolNames, type Shape } from '../support/odd-books.ts';
import { ask, type SseEvent } from '../support/sse.ts';
import { type FixtureSystem, startOverFixtures, type TestSystem } from '../support/stack.ts';

type Args = Record<string, unknown>;

const tenant = { entityId: 'ent-cards-any-shape', orgId: 'org-cards-any-shape' };
const TRANSPORTS = ['Streamable HTTP', 'stdio'] as const;
type Transport = (typeof TRANSPORTS)[number];

/** One server of the system: its configured name, and the prefix its tools get when a name repeats. */
const serverName = (shape: Shape, transport: Transport) => (transport === 'stdio' ? `${shape}_stdio` : shape);
/** A tool as the system offers it: the first server keeps the bare name, a later one gets `<server>__`. */
const offered = (shape: Shape, transport: Transport, tool: string) =>
  transport === 'stdio' ? `${serverName(shape, transport)}__${tool}` : tool;

interface Flow {
  what: string;
  query: string;
  /** The read the turn makes first, then the write it asks for. */
  read: string;
  write: { tool: string; args: Args };
  /** The card names these, in the business's currency and date format. */
  names: string[];
  /** Reads the card may make to name what the turn did not read. */
  lookups: string[];
  word?: string;
}

const FLOWS: Record<Shape, Flow[]> = {
  ledgerly: [
    {
      what: 'a void',
      query: 'Void invoice INV-043',
      read: 'list_invoices',
      write: { tool: 'void_invoice', args: { InvoiceId: 'INV-043' } },
      names: ['This will void the invoice INV-043 of Acme Corp (₹12,000.00, dated 10/01/2026).'],
      lookups: [],
      word: 'VOID',
    },
    {
      what: 'a payment',
      query: 'Record ₹5000 payment from Acme Corp',
      read: 'list_invoices',
      write: { tool: 'record_payment', args: { InvoiceId: 'INV-043', AccountId: 'ACC-BANK', Amount: 5000 } },
      names: [
        'record the payment of ₹5,000.00 for Acme Corp, against invoice INV-043 (₹12,000.00, dated 10/01/2026) (account: HDFC Bank)',
      ],
      lookups: ['list_accounts'],
    },
  ],
  quickly: [
    {
      what: 'a void',
      query: 'Void invoice 1037',
      read: 'list_sales_invoices',
      write: { tool: 'void_sales_invoice', args: { Id: '130', SyncToken: '0' } },
      names: [
        'This will void the sales invoice 1037 of Sonnenschein Family Store (₹36,207.50, dated 03/02/2026)',
      ],
      lookups: [],
      word: 'VOID',
    },
    {
      what: 'a payment',
      query: 'Record ₹5000 payment from Sonnenschein Family Store',
      read: 'list_sales_invoices',
      write: {
        tool: 'receive_payment',
        args: {
          CustomerRef: { value: '24' },
          TotalAmt: 5000,
          Line: [{ Amount: 5000, LinkedTxn: [{ TxnId: '130', TxnType: 'Invoice' }] }],
        },
      },
      names: ['receive the payment of ₹5,000.00 for Sonnenschein Family Store, against invoice 1037'],
      lookups: [],
    },
  ],
};

const only = (events: SseEvent[], type: string) => events.filter((e) => e.event === type);

describe('confirmation cards on servers with unfamiliar record shapes, over Streamable HTTP and stdio', () => {
  let fixtures: FixtureSystem;
  let sys: TestSystem;

  /** What a server has received so far. */
  const received = (shape: Shape, transport: Transport): ReceivedCall[] =>
    fixtures.received(serverName(shape, transport));

  test.beforeAll(async ({ database, nats }) => {
    const shapes = ['ledgerly', 'quickly'] as const;
    const script = new URL('../support/odd-books.ts', import.meta.url);
    fixtures = await startOverFixtures(
      [
        ...shapes.map((shape) => ({ name: serverName(shape, 'Streamable HTTP'), http: oddBooks(shape) })),
        ...shapes.map((shape) => ({ name: serverName(shape, 'stdio'), stdio: script, args: [shape] })),
      ],
      shapes.flatMap((shape) =>
        TRANSPORTS.flatMap((t) => oddToolNames(shape).map((tool) => offered(shape, t, tool))),
      ),
      {},
      { database, nats },
    );
    sys = fixtures.sys;
  }, 120_000);

  afterAll(async () => {
    await fixtures?.stop();
  });

  describe.each(TRANSPORTS)('over %s', (transport) => {
    describe.each(['ledgerly', 'quickly'] as const)('%s', (shape) => {
      test.each(FLOWS[shape])(
        '$what: "$query" names the record; nothing is sent before the confirmation',
        async (flow) => {
          const read = offered(shape, transport, flow.read);
          const write = offered(shape, transport, flow.write.tool);
          const before = received(shape, transport).length;
          const query = `${flow.query} (${transport} ${randomUUID().slice(0, 8)})`;
          sys.llm?.script({
            match: query,
            turns: [
              { toolCalls: [{ name: read, arguments: {} }] },
              { toolCalls: [{ name: write, arguments: flow.write.args }] },
              { content: 'Done.' },
            ],
          });
          const { events } = await ask(sys.gatewayUrl, { query, ...tenant });
          const mcq = only(events, 'mcq').at(-1)?.data;
          expect(mcq, JSON.stringify(events.map((e) => [e.event, e.data]).slice(-4))).toBeDefined();
          expect(mcq).toMatchObject({ pending_tool: write, pending_args: flow.write.args });
          expect(mcq?.confirm_text ?? undefined).toBe(flow.word);
          const question = String(mcq?.question);
          for (const name of flow.names) expect(question).toContain(name);
          expect(question).not.toMatch(/not looked up|could not|not checked/);
          expect(events.at(-1)).toMatchObject({
            event: 'complete',
            data: { status: 'awaiting_confirmation' },
          });
          // The server has seen the turn's read and the card's lookups, and not the write.
          expect(
            received(shape, transport)
              .slice(before)
              .map((c) => c.tool),
          ).toEqual([flow.read, ...flow.lookups]);

          const after = await ask(sys.gatewayUrl, {
            ...tenant,
            conversationId: String(events[0]?.data.conversationId),
            mcqResponse: {
              actionId: String(mcq?.actionId),
              value: 'confirm',
              ...(mcq?.confirm_text ? { typedConfirmation: String(mcq.confirm_text) } : {}),
            },
          });
          const results = only(after.events, 'tool_result').map((e) => [e.data.tool, e.data.success]);
          expect(results).toEqual([[write, true]]);
          const writes = received(shape, transport).filter((c) => c.tool === flow.write.tool);
          expect(writes).toEqual([{ tool: flow.write.tool, args: flow.write.args }]);
        },
      );
    });
  });
});
