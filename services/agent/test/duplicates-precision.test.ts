// The duplicate check's precision, measured: on the demo books and on a server written here in
// another naming style (camelCase tools, records shaped differently), 20 new records that repeat
// one of the books in a different spelling are all caught, and 20 distinct new records raise no
// duplicate. Every read goes through the agent's validate-and-execute path to the server's own
// read tools, chosen by meaning. The figures are printed:
//   sh scripts/toolchain.sh vitest run services/agent/test/duplicates-precision.test.ts
import type { ToolDefinition } from '@munim/contracts';
import { createDemoBooks, runTool, TOOLS } from '@munim/demo-books';
import { afterAll, describe, expect, it } from 'vitest';
import { findDuplicate } from '../src/confirmation/duplicates.ts';
import { lookUp } from '../src/confirmation/lookup.ts';
import { camelBooks } from './camel-books.ts';
import { fakeAgent } from './fake-agent.ts';

type Args = Record<string, unknown>;
interface Case {
  what: string;
  tool: string;
  args: Args;
}
interface Server {
  tools: ToolDefinition[];
  books: (tool: string, args: Args) => unknown;
}

/** Whether the check finds a duplicate of the call, and what it names. */
async function check(server: Server, c: Case) {
  const agent = fakeAgent(server);
  const lookups = await lookUp(agent.run, c.tool, c.args);
  const found = await findDuplicate(agent.run, c.tool, c.args, lookups);
  const guardrail = agent.run.guardrails.has('duplicate_suspected');
  return { found, guardrail };
}

const figures: string[] = [];
afterAll(() => {
  console.log(`duplicate check precision\n${figures.join('\n')}`);
});

async function measure(name: string, server: Server, duplicates: Case[], distinct: Case[]) {
  expect(duplicates).toHaveLength(20);
  expect(distinct).toHaveLength(20);
  const missed: string[] = [];
  const false_: string[] = [];
  for (const c of duplicates) {
    const { found, guardrail } = await check(server, c);
    if (!found || !guardrail) missed.push(c.what);
    else {
      expect(found.summary.length).toBeGreaterThan(5);
      if (process.env.SHOW_DUPLICATES) console.log(`${c.what} → ${found.summary} | ${found.warning}`);
    }
  }
  for (const c of distinct) {
    const { found, guardrail } = await check(server, c);
    if (found || guardrail) false_.push(`${c.what}: ${found?.summary}`);
  }
  figures.push(
    `${name}: ${20 - missed.length}/20 duplicates caught, ${false_.length}/20 distinct records flagged`,
  );
  expect(missed).toEqual([]);
  expect(false_).toEqual([]);
}

// ── the demo books ──────────────────────────────────────────────────────────

const demo = createDemoBooks({ asOf: new Date('2026-11-28T12:00:00Z') });
const demoServer: Server = {
  tools: TOOLS.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema as Args,
    isWrite: t.annotations.readOnlyHint !== true,
  })),
  books: (tool, args) => {
    const result = runTool(demo.store, tool, args);
    if (result.isError) throw new Error(JSON.stringify(result.content));
    return result.structuredContent;
  },
};

const shift = (day: string, days: number) =>
  new Date(Date.parse(day) + days * 86_400_000).toISOString().slice(0, 10);

function demoCases(): { duplicates: Case[]; distinct: Case[] } {
  const s = demo.store;
  const contact = (name: string) => s.contacts.find((c) => c.Name === name)!;
  const receipt = s.payments
    .filter((p) => p.Type === 'RECEIVE' && p.Reference && p.Applications[0]?.InvoiceId)
    .at(-4)!;
  const other = s.payments.find(
    (p) => p.Type === 'RECEIVE' && p.ContactId !== receipt.ContactId && p.Applications[0]?.InvoiceId,
  )!;
  const spend = s.payments.filter((p) => p.Type === 'SPEND' && p.Applications[0]?.BillId).at(-3)!;
  const invoice = s.invoices.at(-5)!;
  const bill = s.bills.at(-3)!;
  const journal = s.journals.at(-2)!;
  const pay = (p: typeof receipt, extra: Args) => ({
    AccountId: p.AccountId,
    Amount: p.Amount,
    Applications: [{ InvoiceId: p.Applications[0]?.InvoiceId, Amount: p.Amount }],
    Date: p.Date,
    ...extra,
  });
  const payBill = (extra: Args) => ({
    AccountId: spend.AccountId,
    Amount: spend.Amount,
    Applications: [{ BillId: spend.Applications[0]?.BillId, Amount: spend.Amount }],
    Date: spend.Date,
    ...extra,
  });
  const lines = invoice.Lines.map((l) => ({
    Description: l.Description,
    Quantity: l.Quantity,
    UnitPrice: l.UnitPrice,
    TaxRate: l.TaxRate,
  }));
  const journalLines = journal.Lines.map((l) => ({
    AccountId: l.AccountId,
    DebitAmount: l.DebitAmount,
    CreditAmount: l.CreditAmount,
  }));
  const bank = s.accounts.find((a) => a.Code === '1100' || /bank/i.test(a.Name))!;
  const rent = s.accounts.find((a) => /rent/i.test(a.Name))!;
  const customer = (Name: string, extra: Args = {}) => ({
    what: `customer ${Name}`,
    tool: 'create_customer',
    args: { Name, ...extra },
  });
  const vendor = (Name: string, extra: Args = {}) => ({
    what: `vendor ${Name}`,
    tool: 'create_vendor',
    args: { Name, ...extra },
  });
  const duplicates: Case[] = [
    customer('ACME CORP'),
    customer('Acme Corp Pvt. Ltd.'),
    customer('acme corporation'),
    customer('Reddy Builders Private Limited'),
    customer('M/s. Reddy Builders'),
    customer('Singh and Sons Hardware'),
    customer('  Singh &  Sons   Hardware  '),
    customer('Nair Hospitality L.L.P.'),
    vendor('Gupta Wires and Cables Private Limited'),
    vendor('Bharat Switchgear Company'),
    customer('KE Works', { GSTIN: contact('Kumar Electricals').GSTIN }),
    customer('Patel Infra Projects', { PAN: contact('Patel Constructions').PAN }),
    {
      what: 'the same receipt two days later',
      tool: 'create_payment',
      args: pay(receipt, { Date: shift(receipt.Date, 2) }),
    },
    {
      what: 'the same receipt two days earlier',
      tool: 'create_payment',
      args: pay(receipt, { Date: shift(receipt.Date, -2) }),
    },
    {
      what: 'a receipt with the same UTR',
      tool: 'create_payment',
      args: pay(receipt, {
        Amount: 1234,
        Applications: [{ InvoiceId: receipt.Applications[0]?.InvoiceId, Amount: 1234 }],
        Date: shift(receipt.Date, 20),
        Reference: receipt.Reference?.toLowerCase(),
      }),
    },
    {
      what: 'the same vendor payment a day later',
      tool: 'create_bill_payment',
      args: payBill({ Date: shift(spend.Date, 1) }),
    },
    {
      what: 'an invoice number again',
      tool: 'create_invoice',
      args: {
        ContactId: invoice.ContactId,
        Lines: [{ Description: 'Other', Quantity: 1, UnitPrice: 99, TaxRate: 18 }],
        InvoiceNumber: invoice.InvoiceNumber,
      },
    },
    {
      what: 'the same invoice a day later',
      tool: 'create_invoice',
      args: { ContactId: invoice.ContactId, Lines: lines, Date: shift(invoice.Date, 1) },
    },
    {
      what: "a bill with the vendor's invoice number again",
      tool: 'create_bill',
      args: {
        ContactId: bill.ContactId,
        Lines: [{ Description: 'Cable', Quantity: 3, UnitPrice: 10, TaxRate: 18 }],
        Reference: bill.Reference?.replace('/', ' / '),
      },
    },
    {
      what: 'the same journal two days later',
      tool: 'create_journal_entry',
      args: { Lines: journalLines, Date: shift(journal.Date, 2), Narration: 'Again' },
    },
  ];
  const distinct: Case[] = [
    customer('Zenith Textiles', { GSTIN: '27AAACZ1234F1Z5' }),
    customer('Acme Robotics'),
    customer('Reddy Labs Pvt Ltd'),
    customer('Singh Traders'),
    customer('Kumar Textiles'),
    vendor('Mehta Logistics'),
    vendor('Gupta Steel Pvt Ltd'),
    customer('Desai Foods', { GSTIN: '27AAHCD7788K1Z2' }),
    customer('Iyer Consulting LLP'),
    customer('Orbit Ventures', { PAN: 'AAQCO4321L' }),
    customer('Acme Corp', { GSTIN: '29AAPCA5555Q1Z1', PAN: 'AAPCA5555Q' }),
    {
      what: 'a receipt of another amount',
      tool: 'create_payment',
      args: pay(receipt, {
        Amount: receipt.Amount + 1000,
        Applications: [{ InvoiceId: receipt.Applications[0]?.InvoiceId, Amount: receipt.Amount + 1000 }],
      }),
    },
    {
      what: 'the same amount from another customer',
      tool: 'create_payment',
      args: pay(other, {
        Amount: receipt.Amount,
        Applications: [{ InvoiceId: other.Applications[0]?.InvoiceId, Amount: receipt.Amount }],
        Date: receipt.Date,
      }),
    },
    {
      what: 'the same receipt six weeks later',
      tool: 'create_payment',
      args: pay(receipt, { Date: shift(receipt.Date, 45) }),
    },
    {
      what: 'a vendor payment of another amount',
      tool: 'create_bill_payment',
      args: payBill({
        Amount: spend.Amount + 7,
        Applications: [{ BillId: spend.Applications[0]?.BillId, Amount: spend.Amount + 7 }],
      }),
    },
    {
      what: 'a new invoice number',
      tool: 'create_invoice',
      args: {
        ContactId: invoice.ContactId,
        Lines: [{ Description: 'Other', Quantity: 2, UnitPrice: 77, TaxRate: 18 }],
        InvoiceNumber: 'INV-9001',
        Date: '2026-11-28',
      },
    },
    {
      what: 'a bill with a new reference',
      tool: 'create_bill',
      args: {
        ContactId: bill.ContactId,
        Lines: [{ Description: 'Cable', Quantity: 3, UnitPrice: 10, TaxRate: 18 }],
        Reference: 'NEW/0001',
        Date: '2026-11-28',
      },
    },
    {
      what: 'a journal to other accounts',
      tool: 'create_journal_entry',
      args: {
        Lines: [
          { AccountId: rent.AccountId, DebitAmount: 5000 },
          { AccountId: bank.AccountId, CreditAmount: 5000 },
        ],
        Date: '2026-11-28',
        Narration: 'Rent advance',
      },
    },
    {
      what: 'the same journal accounts, another amount',
      tool: 'create_journal_entry',
      args: {
        Lines: journalLines.map((l) => ({
          ...l,
          DebitAmount: l.DebitAmount * 2,
          CreditAmount: l.CreditAmount * 2,
        })),
        Date: journal.Date,
      },
    },
    {
      what: 'a receipt with a new UTR',
      tool: 'create_payment',
      args: pay(receipt, {
        Amount: 1234.56,
        Applications: [{ InvoiceId: receipt.Applications[0]?.InvoiceId, Amount: 1234.56 }],
        Reference: 'UTR000000000001',
        Date: '2026-11-28',
      }),
    },
  ];
  return { duplicates, distinct };
}

describe('the duplicate check, measured', () => {
  it('on the demo books: 20 duplicates in other spellings caught, 20 distinct records not flagged', async () => {
    const { duplicates, distinct } = demoCases();
    await measure('demo books', demoServer, duplicates, distinct);
  });

  it('takes two payments of one amount to one party that settle different invoices for two', async () => {
    const s = demo.store;
    // Two open invoices of one customer, each paid in full by an amount the other's payment repeats.
    const receipt = s.payments.find((p) => p.Type === 'RECEIVE' && p.Applications.length === 1)!;
    const otherInvoice = s.invoices.find(
      (i) => i.ContactId === receipt.ContactId && i.InvoiceId !== receipt.Applications[0]?.InvoiceId,
    )!;
    const args = (InvoiceId: string | null | undefined) => ({
      AccountId: receipt.AccountId,
      Amount: receipt.Amount,
      Applications: [{ InvoiceId, Amount: receipt.Amount }],
      Date: receipt.Date,
    });
    const same = await check(demoServer, {
      what: 'same',
      tool: 'create_payment',
      args: args(receipt.Applications[0]?.InvoiceId),
    });
    expect(same.found?.summary).toContain(receipt.PaymentNumber);
    const other = await check(demoServer, {
      what: 'other',
      tool: 'create_payment',
      args: args(otherInvoice.InvoiceId),
    });
    expect(other.found).toBeUndefined();
    expect(other.guardrail).toBe(false);
  });

  it('takes two invoices of one amount for one customer on one day, for different goods, for two', async () => {
    const invoice = demo.store.invoices.at(-5)!;
    const lines = (description: (d: string) => string) =>
      invoice.Lines.map((l) => ({
        Description: description(l.Description),
        Quantity: l.Quantity,
        UnitPrice: l.UnitPrice,
        TaxRate: l.TaxRate,
      }));
    const args = (Lines: unknown) => ({ ContactId: invoice.ContactId, Lines, Date: invoice.Date });
    const same = await check(demoServer, {
      what: 'same',
      tool: 'create_invoice',
      args: args(lines((d) => d.toUpperCase())),
    });
    expect(same.found?.summary).toContain(invoice.InvoiceNumber);
    const other = await check(demoServer, {
      what: 'other',
      tool: 'create_invoice',
      args: args(lines((d) => `${d} (spare)`)),
    });
    expect(other.found).toBeUndefined();
  });

  it('on a server in camelCase with other record shapes: the same', async () => {
    const server = camelBooks();
    await measure('camelCase books', server, server.duplicates, server.distinct);
  });
});
