// Tool classification (docs/mcp-servers.md) on any accounting MCP server: five servers that name the same book's tools in five
// styles (snake_case, kebab-case, camelCase, dotted, server-prefixed), with no annotations but one
// misleading readOnlyHint, and failures reported as plain text without isError. Through the public
// HTTP API, with the scripted LLM calling their tools: every write is validated and confirmed at its
// tier before the server sees it, bad writes never reach it, reads run at once, and a failed write is
// not reported as done. Once with the servers over Streamable HTTP, once spawned over stdio.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';
import {
  type ReceivedCall,
  STYLES,
  type Style,
  type StyledBooks,
  startStyledBooks,
  styledToolNames,
} from '../support/styled-books.ts';

type Args = Record<string, unknown>;

interface Call {
  tool: string;
  args: Args;
}

/** A valid write: confirmed at `tier` (tier 3 by typing `word`). */
interface Write extends Call {
  what: string;
  tier: 1 | 2 | 3;
  word?: string;
}

interface StyleCases {
  read: Call;
  writes: Write[];
  /** A write without one of its schema's required fields. */
  missing: Call & { field: string };
  /** A payment of zero (`field` is its amount). */
  zeroPayment: Call & { field: string };
  unbalanced: Call;
  /** A write the server refuses with a plain-text error; the LLM then claims `claim`. */
  failing: Call & { claim: string };
}

const CASES: Record<Style, StyleCases> = {
  snake: {
    read: { tool: 'list_invoices', args: { status: 'open' } },
    writes: [
      {
        what: 'an edit',
        tool: 'edit_invoice',
        args: { invoice_id: 'INV-1', reference: 'PO-778' },
        tier: 2,
      },
      {
        what: 'a delete',
        tool: 'delete_entity',
        args: { entity_type: 'contact', entity_id: 'C-CRUX' },
        tier: 3,
        word: 'DELETE',
      },
      {
        what: 'a payment',
        tool: 'receive_payment',
        args: { invoice_id: 'INV-2', account_id: 'ACC-BANK', amount: 4000 },
        tier: 1,
      },
      {
        what: 'a transfer',
        tool: 'create_transfer',
        args: { from_account_id: 'ACC-BANK', to_account_id: 'ACC-CASH', amount: 2000 },
        tier: 1,
      },
      {
        what: 'a balanced journal (debit/credit pairs)',
        tool: 'post_journal',
        args: {
          narration: 'May rent',
          lines: [
            { account_id: 'ACC-RENT', debit: 500, credit: 0 },
            { account_id: 'ACC-BANK', debit: 0, credit: 500 },
          ],
        },
        tier: 1,
      },
    ],
    missing: { tool: 'receive_payment', args: { invoice_id: 'INV-2', amount: 1000 }, field: 'account_id' },
    zeroPayment: {
      tool: 'receive_payment',
      args: { invoice_id: 'INV-2', account_id: 'ACC-BANK', amount: 0 },
      field: 'amount',
    },
    unbalanced: {
      tool: 'post_journal',
      args: {
        narration: 'May rent',
        lines: [
          { account_id: 'ACC-RENT', debit: 500, credit: 0 },
          { account_id: 'ACC-BANK', debit: 0, credit: 450 },
        ],
      },
    },
    failing: {
      tool: 'receive_payment',
      args: { invoice_id: 'INV-404', account_id: 'ACC-BANK', amount: 1000 },
      claim: '✅ The payment has been recorded.',
    },
  },
  kebab: {
    read: { tool: 'list-timesheets', args: { status: 'draft' } },
    writes: [
      {
        what: 'an invoice',
        tool: 'create-invoice',
        args: { contactId: 'C-BOLT', lineItems: [{ description: 'Design', quantity: 1, unitAmount: 2500 }] },
        tier: 1,
      },
      {
        what: 'a timesheet line',
        tool: 'add-timesheet-line',
        args: { timesheetId: 'TS-1', date: '2025-05-06', hours: 6 },
        tier: 1,
      },
      {
        what: 'an approval',
        tool: 'approve-timesheet',
        args: { timesheetId: 'TS-1' },
        tier: 3,
        word: 'APPROVE',
      },
      { what: 'a revert', tool: 'revert-timesheet', args: { timesheetId: 'TS-3' }, tier: 3, word: 'REVERT' },
      { what: 'a delete', tool: 'delete-timesheet', args: { timesheetId: 'TS-4' }, tier: 3, word: 'DELETE' },
      {
        what: 'a balanced journal (amount + posting type)',
        tool: 'create-journal',
        args: {
          memo: 'May rent',
          journalLines: [
            { accountId: 'ACC-RENT', amount: 500, postingType: 'Debit' },
            { accountId: 'ACC-BANK', amount: 500, postingType: 'Credit' },
          ],
        },
        tier: 1,
      },
    ],
    missing: {
      tool: 'create-invoice',
      args: { lineItems: [{ description: 'Design', quantity: 1, unitAmount: 2500 }] },
      field: 'contactId',
    },
    zeroPayment: {
      tool: 'record-payment',
      args: { invoiceId: 'INV-2', accountId: 'ACC-BANK', amount: 0 },
      field: 'amount',
    },
    unbalanced: {
      tool: 'create-journal',
      args: {
        memo: 'May rent',
        journalLines: [
          { accountId: 'ACC-RENT', amount: 500, postingType: 'Debit' },
          { accountId: 'ACC-BANK', amount: 450, postingType: 'Credit' },
        ],
      },
    },
    failing: {
      tool: 'create-invoice',
      args: { contactId: 'C-404', lineItems: [{ description: 'Design', quantity: 1, unitAmount: 2500 }] },
      claim: '✅ The invoice has been created.',
    },
  },
  camel: {
    read: { tool: 'listInvoices', args: {} },
    writes: [
      {
        what: 'an invoice',
        tool: 'createInvoice',
        args: { contactId: 'C-BOLT', lineItems: [{ description: 'Audit', quantity: 2, unitPrice: 1500 }] },
        tier: 1,
      },
      {
        what: 'a payment',
        tool: 'receivePayment',
        args: { invoiceId: 'INV-2', accountId: 'ACC-BANK', amount: 2500, date: '2025-05-20' },
        tier: 1,
      },
      {
        what: 'a balanced journal (signed amounts)',
        tool: 'createManualJournal',
        args: {
          narration: 'May rent',
          journalLines: [
            { accountCode: 'ACC-RENT', lineAmount: 500 },
            { accountCode: 'ACC-BANK', lineAmount: -500 },
          ],
        },
        tier: 1,
      },
    ],
    missing: { tool: 'receivePayment', args: { invoiceId: 'INV-2', amount: 1000 }, field: 'accountId' },
    zeroPayment: {
      tool: 'receivePayment',
      args: { invoiceId: 'INV-2', accountId: 'ACC-BANK', amount: 0 },
      field: 'amount',
    },
    unbalanced: {
      tool: 'createManualJournal',
      args: {
        narration: 'May rent',
        journalLines: [
          { accountCode: 'ACC-RENT', lineAmount: 500 },
          { accountCode: 'ACC-BANK', lineAmount: -450 },
        ],
      },
    },
    failing: {
      tool: 'createInvoice',
      args: { contactId: 'C-404', lineItems: [{ description: 'Audit', quantity: 2, unitPrice: 1500 }] },
      claim: '✅ The invoice has been created.',
    },
  },
  dotted: {
    read: { tool: 'invoices.list', args: { status: 'open' } },
    writes: [
      {
        what: 'an invoice',
        tool: 'invoices.create',
        args: { contact_id: 'C-BOLT', lines: [{ description: 'Audit', quantity: 1, unit_price: 3000 }] },
        tier: 1,
      },
      {
        what: 'a payment',
        tool: 'payments.create',
        args: { invoice_id: 'INV-2', account_id: 'ACC-BANK', amount: 3000 },
        tier: 1,
      },
      {
        what: 'a balanced journal (debit/credit pairs)',
        tool: 'journals.create',
        args: {
          date: '2025-05-31',
          lines: [
            { account_id: 'ACC-RENT', debit_amount: 500 },
            { account_id: 'ACC-BANK', credit_amount: 500 },
          ],
        },
        tier: 1,
      },
      { what: 'a delete', tool: 'contacts.delete', args: { contact_id: 'C-CRUX' }, tier: 3, word: 'DELETE' },
    ],
    missing: { tool: 'invoices.create', args: { contact_id: 'C-ACME' }, field: 'lines' },
    zeroPayment: {
      tool: 'payments.create',
      args: { invoice_id: 'INV-2', account_id: 'ACC-BANK', amount: 0 },
      field: 'amount',
    },
    unbalanced: {
      tool: 'journals.create',
      args: {
        date: '2025-05-31',
        lines: [
          { account_id: 'ACC-RENT', debit_amount: 500 },
          { account_id: 'ACC-BANK', credit_amount: 450 },
        ],
      },
    },
    failing: {
      tool: 'invoices.create',
      args: { contact_id: 'C-404', lines: [{ description: 'Audit', quantity: 1, unit_price: 3000 }] },
      claim: '✅ The invoice has been created.',
    },
  },
  prefixed: {
    read: { tool: 'books__get_invoices', args: { Status: 'open' } },
    writes: [
      {
        what: 'an invoice',
        tool: 'books__create_invoice',
        args: { ContactID: 'C-BOLT', LineItems: [{ Description: 'Audit', Quantity: 1, UnitAmount: 3500 }] },
        tier: 1,
      },
      {
        what: 'a payment',
        tool: 'books__receive_payment',
        args: { InvoiceID: 'INV-2', AccountID: 'ACC-BANK', Amount: 3500 },
        tier: 1,
      },
      {
        what: 'a balanced journal (amount + posting type)',
        tool: 'books__post_journal',
        args: {
          Narration: 'May rent',
          JournalLines: [
            { AccountID: 'ACC-RENT', Amount: 500, PostingType: 'Debit' },
            { AccountID: 'ACC-BANK', Amount: 500, PostingType: 'Credit' },
          ],
        },
        tier: 1,
      },
      { what: 'a void', tool: 'books__void_invoice', args: { InvoiceID: 'INV-3' }, tier: 3, word: 'VOID' },
    ],
    missing: {
      tool: 'books__create_invoice',
      args: { LineItems: [{ Description: 'Audit', Quantity: 1, UnitAmount: 3500 }] },
      field: 'ContactID',
    },
    zeroPayment: {
      tool: 'books__receive_payment',
      args: { InvoiceID: 'INV-2', AccountID: 'ACC-BANK', Amount: 0 },
      field: 'Amount',
    },
    unbalanced: {
      tool: 'books__post_journal',
      args: {
        Narration: 'May rent',
        JournalLines: [
          { AccountID: 'ACC-RENT', Amount: 500, PostingType: 'Debit' },
          { AccountID: 'ACC-BANK', Amount: 450, PostingType: 'Credit' },
        ],
      },
    },
    failing: {
      tool: 'books__create_invoice',
      args: { ContactID: 'C-404', LineItems: [{ Description: 'Audit', Quantity: 1, UnitAmount: 3500 }] },
      claim: '✅ The invoice has been created.',
    },
  },
};

const tenant = { entityId: 'ent-any-server', orgId: 'org-any-server' };

/** What every service gets besides MCP_SERVERS: every tool offered as itself, registry caches short. */
const SYSTEM_ENV = {
  TOOL_STRATEGY: 'direct_llm_all_mcp_tools',
  TOOL_COLLAPSE: 'never',
  TOOLS_CACHE_MS: '2000',
};

const only = (events: SseEvent[], type: string) => events.filter((e) => e.event === type);
const last = (events: SseEvent[]) => events.at(-1);
const results = (events: SseEvent[]) => only(events, 'tool_result').map((e) => [e.data.tool, e.data.success]);
const validations = (events: SseEvent[], tool: string) =>
  only(events, 'write_validation')
    .map((e) => e.data)
    .filter((v) => v.tool === tool);

/** Polls until the executor has listed every tool of every style (it stores them in tool_registry). */
async function waitForTools(sys: TestSystem, timeoutMs = 30_000): Promise<void> {
  const wanted = STYLES.flatMap(styledToolNames);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await sys.db.query<{ tool_name: string }>('select tool_name from tool_registry');
    const have = new Set(rows.map((r) => r.tool_name));
    const lacking = wanted.filter((name) => !have.has(name));
    if (lacking.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`tools never listed: ${lacking.join(', ')}\n${sys.logs.slice(-20).join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe.each(['Streamable HTTP', 'stdio'] as const)(
  'accounting MCP servers in every naming style, over %s',
  (transport) => {
    let sys: TestSystem;
    /** What the server of a style has received so far. */
    let received: (style: Style) => ReceivedCall[];
    let cleanup = async () => {};

    test.beforeAll(async ({ newDatabase, newNats }) => {
      let servers: Record<string, unknown>[];
      if (transport === 'stdio') {
        const dir = mkdtempSync(join(tmpdir(), 'styled-books-'));
        const logOf = (style: Style) => join(dir, `${style}.jsonl`);
        const script = fileURLToPath(new URL('../support/styled-books.ts', import.meta.url));
        servers = STYLES.map((style) => ({
          name: style,
          command: process.execPath,
          args: [script, style],
          env: { FIXTURE_CALL_LOG: logOf(style) },
        }));
        received = (style) =>
          existsSync(logOf(style))
            ? readFileSync(logOf(style), 'utf8')
                .split('\n')
                .filter((line) => line !== '')
                .map((line) => JSON.parse(line) as ReceivedCall)
            : [];
        cleanup = async () => rmSync(dir, { recursive: true, force: true });
      } else {
        const books = new Map<Style, StyledBooks>();
        for (const style of STYLES) books.set(style, await startStyledBooks(style));
        servers = STYLES.map((style) => ({ name: style, url: books.get(style)?.url }));
        received = (style) => books.get(style)?.calls ?? [];
        cleanup = async () => void (await Promise.all([...books.values()].map((b) => b.close())));
      }
      sys = await startSystem({
        database: await newDatabase(),
        nats: newNats(),
        env: { ...SYSTEM_ENV, MCP_SERVERS: JSON.stringify(servers) },
      });
      await waitForTools(sys);
    }, 120_000);

    afterAll(async () => {
      await sys?.stop();
      await cleanup();
    });

    const sent = (style: Style, tool: string) => received(style).filter((c) => c.tool === tool);

    /** Asks a new question for which the LLM calls `call`, then says `closing`. */
    async function run(style: Style, call: Call, closing: string): Promise<SseEvent[]> {
      const query = `${style} books: ${call.tool} in my accounts ${randomUUID().slice(0, 8)}`;
      sys.llm?.script({
        match: query,
        turns: [{ toolCalls: [{ name: call.tool, arguments: call.args }] }, { content: closing }],
      });
      return (await ask(sys.gatewayUrl, { query, ...tenant })).events;
    }

    /** Answers the confirmation the stream `events` ended with. */
    async function confirm(events: SseEvent[], typed?: string): Promise<SseEvent[]> {
      const mcq = only(events, 'mcq').at(-1)?.data;
      const res = await ask(sys.gatewayUrl, {
        ...tenant,
        conversationId: String(events[0]?.data.conversationId),
        mcqResponse: {
          actionId: String(mcq?.actionId),
          value: 'confirm',
          ...(typed ? { typedConfirmation: typed } : {}),
        },
      });
      return res.events;
    }

    /** The write was proposed at `tier` and the stream ended awaiting the answer. */
    function expectProposed(events: SseEvent[], write: Call & { tier: number; word?: string | undefined }) {
      expect(validations(events, write.tool)).toEqual([expect.objectContaining({ status: 'passed' })]);
      const mcq = only(events, 'mcq')[0]?.data;
      expect(mcq).toMatchObject({ tier: write.tier, pending_tool: write.tool, pending_args: write.args });
      expect(mcq?.confirm_text).toBe(write.word);
      expect(last(events)).toMatchObject({ event: 'complete', data: { status: 'awaiting_confirmation' } });
    }

    describe.each(STYLES)('%s', (style) => {
      const cases = CASES[style];

      test.each(cases.writes)(
        '$what ($tool) asks for tier $tier confirmation, is not sent until confirmed, then is sent once',
        async (write) => {
          const before = sent(style, write.tool).length;
          const events = await run(style, write, 'Done.');
          expectProposed(events, write);
          // Reads may run first (to name the record in words); the write itself has not.
          const writeResults = (e: SseEvent[]) => results(e).filter(([tool]) => tool === write.tool);
          expect(writeResults(events)).toEqual([]);
          expect(sent(style, write.tool)).toHaveLength(before);

          const after = await confirm(events, write.word);
          expect(writeResults(after)).toEqual([[write.tool, true]]);
          expect(last(after)).toMatchObject({ event: 'complete', data: { status: 'answered' } });
          const calls = sent(style, write.tool);
          expect(calls).toHaveLength(before + 1);
          expect(calls.at(-1)?.args).toEqual(write.args);
        },
      );

      test(`a read (${cases.read.tool}) runs without asking`, async () => {
        const { tool, args } = cases.read;
        const before = sent(style, tool).length;
        const events = await run(style, cases.read, 'Here they are.');
        expect(only(events, 'mcq')).toEqual([]);
        expect(validations(events, tool)).toEqual([]);
        expect(results(events)).toEqual([[tool, true]]);
        expect(last(events)).toMatchObject({
          event: 'complete',
          data: { status: 'answered', response: 'Here they are.' },
        });
        const calls = sent(style, tool);
        expect(calls).toHaveLength(before + 1);
        expect(calls.at(-1)?.args).toEqual(args);
      });

      /** The write was blocked by the validator and neither proposed nor sent. */
      async function expectBlocked(call: Call) {
        const before = sent(style, call.tool).length;
        const events = await run(style, call, 'I need a few more details before I can do that.');
        const checked = validations(events, call.tool);
        expect(checked).toEqual([expect.objectContaining({ status: 'blocked' })]);
        expect(only(events, 'mcq')).toEqual([]);
        expect(results(events)).toEqual([]);
        expect(last(events)?.event).toBe('complete');
        expect(sent(style, call.tool)).toHaveLength(before);
        return checked[0] as Record<string, unknown>;
      }

      test(`a write missing a required field (${cases.missing.tool} without ${cases.missing.field}) is blocked and never sent`, async () => {
        const blocked = await expectBlocked(cases.missing);
        expect(blocked.missing_fields).toContain(cases.missing.field);
      });

      test(`a zero payment (${cases.zeroPayment.tool}) is blocked and never sent`, async () => {
        const blocked = await expectBlocked(cases.zeroPayment);
        expect(String(blocked.message)).toContain(cases.zeroPayment.field);
      });

      test(`an unbalanced journal (${cases.unbalanced.tool}) is blocked and never sent`, async () => {
        const blocked = await expectBlocked(cases.unbalanced);
        expect(String(blocked.message)).toMatch(/balance|debit|credit|sum/i);
      });

      test(`a write the server refuses in plain text (${cases.failing.tool}) is reported as failed, not as done`, async () => {
        const { tool, claim } = cases.failing;
        const before = sent(style, tool).length;
        const events = await run(style, cases.failing, claim);
        expectProposed(events, { ...cases.failing, tier: 1 });
        expect(sent(style, tool)).toHaveLength(before);

        const after = await confirm(events);
        expect(sent(style, tool)).toHaveLength(before + 1);
        expect(results(after)).toEqual([[tool, false]]);
        const done = last(after);
        expect(done?.event).toBe('complete');
        const response = String(done?.data.response);
        expect(response).not.toContain(claim);
        expect(response).not.toMatch(/✅|has been (created|recorded)/);
      });
    });

    test('camel deleteContact, annotated readOnlyHint: true by an untrusted server, is a write confirmed by typing DELETE', async () => {
      const write = { tool: 'deleteContact', args: { contactId: 'C-CRUX' }, tier: 3, word: 'DELETE' };
      const { rows } = await sys.db.query(
        'select is_write, confirm_tier from tool_registry where tool_name = $1',
        [write.tool],
      );
      expect(rows).toEqual([{ is_write: true, confirm_tier: 3 }]);

      const events = await run('camel', write, 'The contact is deleted.');
      expectProposed(events, write);
      expect(sent('camel', write.tool)).toHaveLength(0);

      // A plain confirm is not the typed word: asked again, nothing sent.
      const plain = await confirm(events);
      expect(last(plain)).toMatchObject({ event: 'complete', data: { status: 'awaiting_confirmation' } });
      expect(results(plain)).toEqual([]);
      expect(sent('camel', write.tool)).toHaveLength(0);

      const typed = await confirm(events, 'delete');
      expect(results(typed)).toEqual([[write.tool, true]]);
      expect(sent('camel', write.tool)).toEqual([{ tool: write.tool, args: write.args }]);
    });
  },
);
