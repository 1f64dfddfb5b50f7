// A new document or payment names its party on any server — whether the call
// names the party by name, by an opaque id (Stripe's `customer: "cus_…"`), by a reference object
// (QuickBooks' `CustomerRef`) or by a small number (Odoo's `partner_id: 7`, which many tables
// share) — from what the turn read, or else by a read of the party on the write's server.
import type { ValidationResult } from '@munim/contracts';
import { describe, expect, it } from 'vitest';
import { confirmationCard } from '../src/confirmation/card.ts';
import { readFacts } from '../src/confirmation/fields.ts';
import { lookUp } from '../src/confirmation/lookup.ts';
import { propose } from '../src/confirmation/propose.ts';
import { fakeAgent, routed, toolDef } from './fake-agent.ts';

type Args = Record<string, unknown>;

async function cardAfter(opts: {
  tools: ReturnType<typeof toolDef>[];
  read?: { tool: string; result: unknown }[];
  books?: (tool: string, args: Args) => unknown;
  write: string;
  args: Args;
}) {
  const agent = fakeAgent({
    tools: opts.tools,
    books:
      opts.books ??
      ((tool) => {
        throw new Error(`${tool} was not expected`);
      }),
  });
  for (const r of opts.read ?? [])
    agent.run.toolResults.push({ tool: r.tool, input: {}, result: r.result, success: true });
  const card = confirmationCard(opts.write, opts.args, 1, {
    lookups: await lookUp(agent.run, opts.write, opts.args),
  });
  return { card, reads: agent.requests.filter((r) => r.subject === 'toolExecute').map((r) => r.tool) };
}

describe('a new document names its party', () => {
  it('Stripe: a customer given by opaque id, from the customers the turn listed', async () => {
    const { card, reads } = await cardAfter({
      tools: [toolDef('list_customers'), toolDef('create_invoice', { customer: '' }, { write: true })],
      read: [
        {
          tool: 'list_customers',
          result: {
            object: 'list',
            data: [
              {
                id: 'cus_NeZwdNtLEOXuvB',
                object: 'customer',
                name: 'Jenny Rosen',
                email: 'jenny@example.com',
              },
              { id: 'cus_Qx81LmZ2pVw3Kd', object: 'customer', name: 'Ravi Kumar', email: 'ravi@example.com' },
            ],
          },
        },
      ],
      write: 'create_invoice',
      args: { customer: 'cus_Qx81LmZ2pVw3Kd', collection_method: 'send_invoice', days_until_due: 30 },
    });
    expect(reads).toEqual([]);
    expect(card.question).toBe(
      'Confirm: create the invoice for Ravi Kumar (collection method: send_invoice, days until due: 30)?',
    );
  });

  it('Zoho Books: a customer the turn did not read is read from the contacts', async () => {
    const { card, reads } = await cardAfter({
      tools: [
        toolDef('list_contacts'),
        toolDef('create_invoice', { customer_id: '', date: '', line_items: '' }, { write: true }),
      ],
      books: (tool) => {
        if (tool !== 'list_contacts') throw new Error(`${tool} was not expected`);
        return {
          code: 0,
          contacts: [
            { contact_id: '460000000026049', contact_name: 'Bowman & Co', contact_type: 'customer' },
          ],
        };
      },
      write: 'create_invoice',
      args: {
        customer_id: '460000000026049',
        date: '2026-03-01',
        line_items: [{ item_id: '460000000017088', rate: 120, quantity: 2 }],
      },
    });
    expect(reads).toEqual(['list_contacts']);
    expect(card.question).toBe(
      'Confirm: create the invoice for Bowman & Co, dated 01/03/2026 (line items: 1 line, ₹240.00)?',
    );
  });

  it('Odoo: a partner given by a small number is the partner, not an invoice with the same id', async () => {
    const { card, reads } = await cardAfter({
      tools: [
        toolDef('search_read_invoices'),
        toolDef('search_read_partners'),
        toolDef('create_invoice', {}, { write: true }),
      ],
      read: [
        // Read first: an invoice whose own id is 7, and which names partner 3 by an [id, name] pair.
        {
          tool: 'search_read_invoices',
          result: [{ id: 7, name: 'INV/2026/00007', partner_id: [3, 'Deco Addict'] }],
        },
        { tool: 'search_read_partners', result: [{ id: 7, name: 'Azure Interior', is_company: true }] },
      ],
      write: 'create_invoice',
      args: { partner_id: 7, move_type: 'out_invoice', invoice_date: '2026-03-02' },
    });
    expect(reads).toEqual([]);
    expect(card.question).toBe(
      'Confirm: create the invoice for Azure Interior, dated 02/03/2026 (move type: out_invoice)?',
    );
  });

  it('QuickBooks: a CustomerRef is named from the name beside it in what the turn read', async () => {
    const { card } = await cardAfter({
      tools: [toolDef('list_sales_invoices'), toolDef('create_invoice', {}, { write: true })],
      read: [
        {
          tool: 'list_sales_invoices',
          result: {
            QueryResponse: {
              Invoice: [
                {
                  Id: '130',
                  DocNumber: '1037',
                  CustomerRef: { value: '24', name: 'Sonnenschein Family Store' },
                },
              ],
            },
          },
        },
      ],
      write: 'create_invoice',
      args: {
        CustomerRef: { value: '24' },
        TxnDate: '2026-03-03',
        Line: [{ Amount: 100, DetailType: 'SalesItemLineDetail' }],
      },
    });
    expect(card.question).toContain('create the invoice for Sonnenschein Family Store, dated 03/03/2026');
  });

  it('a party named by name is the party', async () => {
    const { card } = await cardAfter({
      tools: [toolDef('create_bill', {}, { write: true })],
      write: 'create_bill',
      args: { Vendor: 'Kaveri Agro Foods', BillDate: '2026-03-04', Total: 5900 },
    });
    expect(card.question).toBe(
      'Confirm: create the bill of ₹5,900.00 for Kaveri Agro Foods, dated 04/03/2026?',
    );
  });
});

describe('dates the books write in their own way', () => {
  it.each([
    ['2026-01-15', '2026-01-15'],
    ['/Date(1768435200000+0000)/', '/Date(1768435200000+0000)/'],
    ['20260115', '2026-01-15'],
    ['15 Jan 2026', '2026-01-15'],
    ['January 15, 2026', '2026-01-15'],
    // Day and month cannot be told apart: kept as the books wrote it, never dropped.
    ['05/01/2026', '05/01/2026'],
  ])('%s', (written, kept) => {
    expect(readFacts({ InvoiceNo: 'INV-1', Dated: written }).date).toBe(kept);
  });
});

describe('a record that gives its party by id only', () => {
  it('has its party read, so the card names the customer', async () => {
    const { card, reads } = await cardAfter({
      tools: [
        toolDef('list_invoices'),
        toolDef('list_contacts'),
        toolDef('void_invoice', { invoice_id: '' }, { write: true }),
      ],
      read: [
        {
          tool: 'list_invoices',
          result: [{ id: 'INV-1', contactId: 'C-ACME', total: 10000, dueDate: '2025-06-30', status: 'open' }],
        },
      ],
      books: (tool) => {
        if (tool !== 'list_contacts') throw new Error(`${tool} was not expected`);
        return [
          { id: 'C-ACME', name: 'Acme Corp' },
          { id: 'C-BOLT', name: 'Bolt Ltd' },
        ];
      },
      write: 'void_invoice',
      args: { invoice_id: 'INV-1' },
    });
    expect(reads).toEqual(['list_contacts']);
    expect(card.question).toBe('Confirm: void the invoice INV-1 of Acme Corp (₹10,000.00, due 30/06/2025)?');
  });
});

describe('a record the turn did not read, on a server that only searches', () => {
  it('is found by a search for its number', async () => {
    const { card, reads } = await cardAfter({
      tools: [
        {
          ...toolDef('search_invoices', { query: '' }, { required: ['query'] }),
        },
        toolDef('delete_invoice', { invoice_number: '' }, { write: true }),
      ],
      books: (tool, args) => {
        if (tool !== 'search_invoices') throw new Error(`${tool} was not expected`);
        return {
          results: [
            {
              invoice_number: String(args.query),
              // The customer only as the bill-to party, beside its email.
              bill_to: { name: 'Kaveri Agro Foods', email: 'accounts@kaveri.example' },
              grand_total: 2360,
              invoice_date: '2026-02-11',
            },
          ],
        };
      },
      write: 'delete_invoice',
      args: { invoice_number: 'SI/2026/0007' },
    });
    expect(reads).toEqual(['search_invoices']);
    expect(card.question).toBe(
      'Confirm: delete the invoice SI/2026/0007 of Kaveri Agro Foods (₹2,360.00, dated 11/02/2026)?',
    );
  });
});

describe('amounts the books write as text', () => {
  it.each([
    ['118000', 118000],
    ['1,18,000.00', 118000],
    ['118,000.50', 118000.5],
    ['-2,500', -2500],
  ])('%s', (written, amount) => {
    expect(readFacts({ InvoiceNo: 'INV-1', GrandTotal: written }).amount).toBe(amount);
  });
});

describe('a list that gives only a summary of the record acted on', () => {
  it('is completed by a read of the record by its id', async () => {
    const { card, reads } = await cardAfter({
      tools: [
        toolDef('list_bills'),
        toolDef('get_bill', { bill_id: '' }, { required: ['bill_id'] }),
        toolDef('void_bill', { bill_id: '' }, { write: true }),
      ],
      read: [{ tool: 'list_bills', result: { bills: [{ bill_id: 'B-311', status: 'open' }] } }],
      books: (tool, args) => {
        if (tool !== 'get_bill') throw new Error(`${tool} was not expected`);
        return {
          bill: {
            bill_id: args.bill_id,
            vendor_name: 'Kaveri Agro Foods',
            total: 5900,
            bill_date: '2026-02-20',
          },
        };
      },
      write: 'void_bill',
      args: { bill_id: 'B-311' },
    });
    expect(reads).toEqual(['get_bill']);
    expect(card.question).toBe(
      'Confirm: void the bill B-311 of Kaveri Agro Foods (₹5,900.00, dated 20/02/2026)?',
    );
  });
});

describe('a write on a record of its own kind that makes nothing new', () => {
  it('"Apply credit note CN-3 to invoice INV-9" names both records', async () => {
    const { card, reads } = await cardAfter({
      tools: [
        toolDef('list_credit_notes'),
        toolDef('list_invoices'),
        toolDef('apply_credit_note', { CreditNoteID: '', InvoiceID: '', Amount: '' }, { write: true }),
      ],
      read: [
        {
          tool: 'list_credit_notes',
          result: {
            CreditNotes: [
              {
                CreditNoteID: 'e1f0b0a2-1c1d-4e3f-9a0b-3c2d1e0f9a8b',
                CreditNoteNumber: 'CN-3',
                Contact: { Name: 'Acme Corp' },
                Total: 5000,
                Date: '2026-03-01',
              },
            ],
          },
        },
        {
          tool: 'list_invoices',
          result: {
            Invoices: [
              {
                InvoiceID: 'a9b8c7d6-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
                InvoiceNumber: 'INV-9',
                Contact: { Name: 'Acme Corp' },
                Total: 12000,
                Date: '2026-01-10',
              },
            ],
          },
        },
      ],
      write: 'apply_credit_note',
      args: {
        CreditNoteID: 'e1f0b0a2-1c1d-4e3f-9a0b-3c2d1e0f9a8b',
        InvoiceID: 'a9b8c7d6-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
        Amount: 2000,
      },
    });
    expect(reads).toEqual([]);
    expect(card.question).toBe(
      'Confirm: apply the credit note CN-3 of Acme Corp (₹5,000.00, dated 01/03/2026), against invoice INV-9 (₹12,000.00, dated 10/01/2026), for ₹2,000.00?',
    );
    expect(card.record).toBe('CN-3 of Acme Corp');
  });
});

describe('amounts a server keeps in cents', () => {
  it('are shown in whole units when the write’s schema says so, and sent as they are', async () => {
    const write = toolDef('create_refund', { charge: '', amount: '' }, { write: true });
    const properties = write.inputSchema.properties as Record<string, Record<string, unknown>>;
    properties.amount = {
      type: 'integer',
      description: 'A positive integer in cents representing how much to refund.',
    };
    const agent = fakeAgent({
      tools: [
        {
          ...toolDef('list_charges'),
          description: 'Lists charges; amounts are in the smallest currency unit.',
        },
        write,
      ],
    });
    agent.run.toolResults.push({
      tool: 'list_charges',
      input: {},
      result: {
        data: [
          {
            id: 'ch_3MmlLrLkdIwHu7ix0snN0B15',
            amount: 109900,
            currency: 'usd',
            receipt_number: '1832-4415',
            billing_details: { name: 'Jenny Rosen' },
            created: 1679090539,
          },
        ],
      },
      success: true,
    });
    const args = { charge: 'ch_3MmlLrLkdIwHu7ix0snN0B15', amount: 2500 };
    const validation: ValidationResult = {
      tool: 'create_refund',
      status: 'passed',
      isWrite: true,
      args,
      missingFields: [],
      fieldsValidated: ['charge', 'amount'],
      issues: [],
      message: '',
      suggestedTools: [],
      tier: 1,
      argsHash: 'h-refund',
      guardrails: [],
      durationMs: 1,
    };
    const data = routed('refund $25 of the charge to Jenny Rosen', ['create_refund']);
    await propose(agent.run, data, data.query, { validation, callId: 'c-1' }, 'tc-1', {
      messages: [],
      offered: ['create_refund'],
      containers: [],
      skippedToolCallIds: [],
    });
    const mcq = agent.events.find((e) => e.type === 'mcq')?.payload as Record<string, unknown>;
    expect(mcq.question).toBe(
      'Confirm: create the refund of $25.00 for Jenny Rosen, against charge 1832-4415 ($1,099.00, dated 18/03/2023)?',
    );
    expect(mcq.pending_args).toEqual(args);
  });
});
