// A confirmation names the record and its party in words, read by id through the
// validator and executor when the model gave ids only, and never shows an id, even when the read fails.
import type { ValidationResult } from '@munim/contracts';
import { describe, expect, it } from 'vitest';
import { confirmationCard } from '../src/confirmation/card.ts';
import { lookUp } from '../src/confirmation/lookup.ts';
import { propose } from '../src/confirmation/propose.ts';
import { fakeAgent, routed, toolDef } from './fake-agent.ts';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const INVOICE = '0b6f7a52-3c1d-4e9a-8f21-6d5c4b3a2910';
const ACME = '5a0e1c2d-7b3f-4a6e-9d8c-1f2e3d4c5b6a';
const BOLT = '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b';
const BANK = 'c4b3a291-0f9e-4d8c-b7a6-5f4e3d2c1b0a';

const TOOLS = [
  toolDef('get_all_invoices', { ContactId: '', Status: '' }),
  toolDef('get_invoice', { InvoiceId: '', InvoiceNumber: '' }),
  toolDef('get_all_customers', { Search: '' }),
  toolDef('get_charts_of_accounts', { Type: '' }),
  toolDef('void_invoice', { InvoiceId: '', Reason: '' }, { write: true, required: ['InvoiceId'] }),
  toolDef('update_invoice', { InvoiceId: '', DueDate: '', ContactId: '' }, { write: true }),
  toolDef('create_payment', { AccountId: '', Amount: '', Applications: '' }, { write: true }),
];

const invoice = {
  InvoiceId: INVOICE,
  InvoiceNumber: 'INV-0042',
  ContactId: ACME,
  ContactName: 'Acme Corp',
  Date: '2026-01-15',
  DueDate: '2026-02-14',
  Reference: 'PO-1',
  Total: 118000,
  CurrencyCode: 'INR',
};

/** The demo-like books: one invoice, two customers, a bank account; anything else is not found. */
function books(tool: string, args: Record<string, unknown>): unknown {
  if (tool === 'get_invoice') {
    if (args.InvoiceId === INVOICE) return invoice;
    throw new Error(
      `Error: Request failed with status code 404: Invoice '${String(args.InvoiceId)}' not found`,
    );
  }
  if (tool === 'get_all_customers')
    return {
      Customers: [
        { ContactId: ACME, Name: 'Acme Corp', ContactType: 'CUSTOMER' },
        { ContactId: BOLT, Name: 'Bolt Ltd', ContactType: 'CUSTOMER' },
      ],
    };
  if (tool === 'get_charts_of_accounts')
    return { Accounts: [{ AccountId: BANK, Name: 'HDFC Current Account' }] };
  throw new Error(`no ${tool} in these books`);
}

const asked = (agent: ReturnType<typeof fakeAgent>) =>
  agent.requests.map((r) => `${r.subject === 'toolValidate' ? 'validate' : 'execute'} ${r.tool}`);

describe('a write given by id is named by a read', () => {
  it('reads the invoice through the validator and executor, and calls no write', async () => {
    const agent = fakeAgent({ tools: TOOLS, books });
    const args = { InvoiceId: INVOICE };
    const card = confirmationCard('void_invoice', args, 3, {
      lookups: await lookUp(agent.run, 'void_invoice', args),
    });
    expect(asked(agent)).toEqual(['validate get_invoice', 'execute get_invoice']);
    expect(card.question).toBe(
      'This will void the invoice INV-0042 of Acme Corp (₹1,18,000.00, dated 15/01/2026). It cannot be undone. Type VOID to confirm.',
    );
    expect(card.record).toBe('INV-0042 of Acme Corp');
    expect(card.details).toEqual([
      { label: 'Action', value: 'void the invoice' },
      { label: 'Invoice', value: 'INV-0042' },
      { label: 'Customer', value: 'Acme Corp' },
      { label: 'Amount', value: '₹1,18,000.00' },
      { label: 'Date', value: '15/01/2026' },
    ]);
  });

  it('names a payment’s invoice, customer and account from ids only', async () => {
    const agent = fakeAgent({ tools: TOOLS, books });
    // The model looked the bank account up before paying: what it read names it.
    agent.run.toolResults.push({
      tool: 'get_charts_of_accounts',
      input: {},
      result: books('get_charts_of_accounts', {}),
      success: true,
    });
    const args = {
      AccountId: BANK,
      Amount: 5000,
      Date: '2026-03-20',
      Applications: [{ InvoiceId: INVOICE, Amount: 5000 }],
    };
    const card = confirmationCard('create_payment', args, 1, {
      lookups: await lookUp(agent.run, 'create_payment', args),
    });
    expect(asked(agent)).toEqual(['validate get_invoice', 'execute get_invoice']);
    expect(card.question).toBe(
      'Confirm: create the payment of ₹5,000.00 for Acme Corp, dated 20/03/2026, against invoice INV-0042 (account: HDFC Current Account)?',
    );
  });

  it('takes the invoice from what the request read, and reads the account nobody read', async () => {
    const agent = fakeAgent({ tools: TOOLS, books });
    agent.run.toolResults.push({
      tool: 'get_all_invoices',
      input: {},
      result: { Invoices: [invoice] },
      success: true,
    });
    const args = { AccountId: BANK, Amount: 5000, Applications: [{ InvoiceId: INVOICE, Amount: 2000 }] };
    const card = confirmationCard('create_payment', args, 1, {
      lookups: await lookUp(agent.run, 'create_payment', args),
    });
    // The invoice is in what the request read; a read of the books names the account.
    expect(asked(agent)).toEqual(['validate get_charts_of_accounts', 'execute get_charts_of_accounts']);
    expect(card.question).toBe(
      'Confirm: create the payment of ₹5,000.00 for Acme Corp, against invoice INV-0042 (₹2,000.00) (account: HDFC Current Account)?',
    );
    expect(card.question).not.toContain('not looked up');
  });

  it('says plainly that a record could not be read, without its id', async () => {
    const missing = '11111111-2222-4333-8444-555555555555';
    const agent = fakeAgent({ tools: TOOLS, books });
    const args = { InvoiceId: missing, Reason: 'duplicate' };
    const card = confirmationCard('void_invoice', args, 3, {
      lookups: await lookUp(agent.run, 'void_invoice', args),
    });
    // The books answered the read by that id: no list is searched after it.
    expect(asked(agent)).toEqual(['validate get_invoice', 'execute get_invoice']);
    expect(card.question).toBe(
      'This will void the invoice (I could not find this invoice in the books: Invoice not found; check which one it is before you confirm) (reason: duplicate). It cannot be undone. Type VOID to confirm.',
    );
    expect(JSON.stringify(card)).not.toMatch(UUID);
    expect(card.record).toBeUndefined();
  });

  it('still asks, saying so, when the read gets no answer', async () => {
    const agent = fakeAgent({ tools: TOOLS, books, unanswered: ['get_invoice'] });
    const args = { InvoiceId: INVOICE };
    const card = confirmationCard('void_invoice', args, 3, {
      lookups: await lookUp(agent.run, 'void_invoice', args),
    });
    expect(card.question).toContain('I could not find this invoice in the books: the books did not answer');
    expect(card.question).not.toMatch(UUID);
  });

  it('says so when the books have no read tool for the record, and runs nothing', async () => {
    const agent = fakeAgent({ tools: TOOLS.filter((t) => t.isWrite), books });
    const args = { InvoiceId: INVOICE };
    const card = confirmationCard('void_invoice', args, 3, {
      lookups: await lookUp(agent.run, 'void_invoice', args),
    });
    expect(agent.requests).toEqual([]);
    expect(card.question).toContain(
      'I could not find this invoice in the books: no read tool of the books finds it',
    );
    expect(card.question).not.toMatch(UUID);
  });
});

describe('an edit shows before → after', () => {
  it('shows only the fields that change, a new customer by name', async () => {
    const agent = fakeAgent({ tools: TOOLS, books });
    const args = { InvoiceId: INVOICE, DueDate: '2026-02-28', Reference: 'PO-1', ContactId: BOLT };
    const card = confirmationCard('update_invoice', args, 2, {
      lookups: await lookUp(agent.run, 'update_invoice', args),
    });
    expect(card.question).toBe(
      'Confirm: update the invoice INV-0042 of Acme Corp (₹1,18,000.00, dated 15/01/2026) with these changes?\n• Due date: 14/02/2026 → 28/02/2026\n• Customer: Acme Corp → Bolt Ltd',
    );
    expect(card.changes).toEqual([
      { field: 'Due date', before: '14/02/2026', after: '28/02/2026' },
      { field: 'Customer', before: 'Acme Corp', after: 'Bolt Ltd' },
    ]);
    // The current customer came with the invoice; only the new one needed the customer list.
    expect(asked(agent)).toEqual([
      'validate get_invoice',
      'execute get_invoice',
      'validate get_all_customers',
      'execute get_all_customers',
    ]);
  });
});

describe('the confirmation card of a proposed write', () => {
  it('carries the facts and changes in words; only the pending call keeps the ids', async () => {
    const agent = fakeAgent({ tools: TOOLS, books });
    const args = { InvoiceId: INVOICE, DueDate: '2026-02-28' };
    const validation: ValidationResult = {
      tool: 'update_invoice',
      status: 'passed',
      isWrite: true,
      args,
      missingFields: [],
      fieldsValidated: ['InvoiceId', 'DueDate'],
      issues: [],
      message: '',
      suggestedTools: [],
      tier: 2,
      argsHash: 'h-1',
      guardrails: [],
      durationMs: 1,
    };
    const data = routed('move the due date of INV-0042 to 28 Feb', ['update_invoice']);
    await propose(agent.run, data, data.query, { validation, callId: 'c-1' }, 'tc-1', {
      messages: [],
      offered: ['update_invoice'],
      containers: [],
      skippedToolCallIds: [],
    });
    const mcq = agent.events.find((e) => e.type === 'mcq')?.payload;
    expect(mcq).toMatchObject({
      tier: 2,
      record: 'INV-0042 of Acme Corp',
      changes: [{ field: 'Due date', before: '14/02/2026', after: '28/02/2026' }],
      pending_args: args,
    });
    // The action id is the answer's handle, never shown.
    const { pending_args: _ids, actionId: _handle, ...shown } = mcq as Record<string, unknown>;
    expect(JSON.stringify(shown)).not.toMatch(UUID);
  });
});

describe('cards without reads', () => {
  it('sums an invoice’s lines and names its customer', () => {
    const card = confirmationCard(
      'create_invoice',
      {
        ContactId: ACME,
        Date: '2026-03-01',
        Lines: [{ Description: 'Audit', Quantity: 2, UnitPrice: 1500, TaxRate: 18 }],
      },
      1,
      { lookups: new Map([[ACME, { record: { Name: 'Acme Corp' } }]]) },
    );
    expect(card.question).toBe(
      'Confirm: create the invoice for Acme Corp, dated 01/03/2026 (lines: 1 line, ₹3,000.00 before tax)?',
    );
  });

  it('flags a change nobody asked for', () => {
    const card = confirmationCard('delete_contact', { ContactId: ACME }, 3, {
      unrequested: true,
      lookups: new Map([[ACME, { record: { ContactId: ACME, Name: 'Acme Corp' } }]]),
    });
    expect(card.question).toBe(
      '⚠️ You did not ask for this change: it was proposed from something I read, not by you. This will delete the contact Acme Corp. It cannot be undone. Type DELETE to confirm.',
    );
  });
});

describe('a server whose invoices spell the customer `Customer` and the number `InvoiceId`', () => {
  const listed = {
    invoices: [
      { InvoiceId: 'INV-042', Customer: 'Bolt Ltd', Total: 8000, IssuedOn: '2026-01-08', Status: 'open' },
      { InvoiceId: 'INV-043', Customer: 'Acme Corp', Total: 12000, IssuedOn: '2026-01-10', Status: 'open' },
    ],
  };
  const tools = [
    toolDef('list_invoices'),
    toolDef('get_invoice', { InvoiceId: '' }, { required: ['InvoiceId'] }),
    toolDef('list_accounts'),
    toolDef('void_invoice', { InvoiceId: '' }, { write: true }),
    toolDef('record_payment', { InvoiceId: '', AccountId: '', Amount: '' }, { write: true }),
  ];
  function books(tool: string, args: Record<string, unknown>): unknown {
    if (tool === 'list_accounts') return { accounts: [{ AccountId: 'ACC-BANK', AccountName: 'HDFC Bank' }] };
    if (tool === 'get_invoice') {
      const hit = listed.invoices.find((i) => i.InvoiceId === args.InvoiceId);
      if (hit) return hit;
      throw new Error(`Invoice ${String(args.InvoiceId)} not found`);
    }
    throw new Error(`no ${tool} here`);
  }
  const afterListing = () => {
    const agent = fakeAgent({ tools, books });
    agent.run.toolResults.push({ tool: 'list_invoices', input: {}, result: listed, success: true });
    return agent;
  };

  it('"Void invoice INV-043" names the number, customer, amount and date the turn read', async () => {
    const agent = afterListing();
    const args = { InvoiceId: 'INV-043' };
    const card = confirmationCard('void_invoice', args, 3, {
      lookups: await lookUp(agent.run, 'void_invoice', args),
    });
    expect(agent.requests).toEqual([]);
    expect(card.question).toBe(
      'This will void the invoice INV-043 of Acme Corp (₹12,000.00, dated 10/01/2026). It cannot be undone. Type VOID to confirm.',
    );
  });

  it('"Record ₹5000 payment from Acme Corp" names the invoice and reads the account', async () => {
    const agent = afterListing();
    const args = { InvoiceId: 'INV-043', AccountId: 'ACC-BANK', Amount: 5000 };
    const card = confirmationCard('record_payment', args, 1, {
      lookups: await lookUp(agent.run, 'record_payment', args),
    });
    expect(asked(agent)).toEqual(['validate list_accounts', 'execute list_accounts']);
    expect(card.question).toBe(
      'Confirm: record the payment of ₹5,000.00 for Acme Corp, against invoice INV-043 (₹12,000.00, dated 10/01/2026) (account: HDFC Bank)?',
    );
  });

  it('an invoice given by its number under its kind (`invoice: "INV-043"`) is the invoice', async () => {
    const agent = afterListing();
    const args = { invoice: 'INV-043', amount: 5000 };
    const card = confirmationCard('record_payment', args, 1, {
      lookups: await lookUp(agent.run, 'record_payment', args),
    });
    expect(agent.requests).toEqual([]);
    expect(card.question).toBe(
      'Confirm: record the payment of ₹5,000.00 for Acme Corp, against invoice INV-043 (₹12,000.00, dated 10/01/2026)?',
    );
  });

  it('says plainly when the books do not know the invoice, and shows what the call sends', async () => {
    const agent = afterListing();
    const voided = { InvoiceId: 'INV-404' };
    const voidCard = confirmationCard('void_invoice', voided, 3, {
      lookups: await lookUp(agent.run, 'void_invoice', voided),
    });
    expect(voidCard.question).toBe(
      'This will void the invoice INV-404 (I could not find this invoice in the books: Invoice INV-404 not found; check which one it is before you confirm). It cannot be undone. Type VOID to confirm.',
    );
    const paid = { InvoiceId: 'INV-404', AccountId: 'ACC-BANK', Amount: 5000 };
    const payCard = confirmationCard('record_payment', paid, 1, {
      lookups: await lookUp(agent.run, 'record_payment', paid),
    });
    expect(payCard.question).toBe(
      'Confirm: record the payment of ₹5,000.00 (invoice: INV-404 (I could not find this invoice in the books: Invoice INV-404 not found), account: HDFC Bank)?',
    );
  });
});
