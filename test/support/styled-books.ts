// An accounting MCP server whose tools are named in one naming style (snake_case, kebab-case,
// camelCase, dotted, server-prefixed), with field names in varied styles too, no annotations but
// one misleading `readOnlyHint`, failures as plain text with `isError` unset, and a record of every
// call received — so a test can assert what was never sent. Served over Streamable HTTP by
// `startStyledBooks`; over stdio when node runs this file (`styled-books.ts <style>`).
import { fileURLToPath } from 'node:url';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  type Args,
  type FixtureSpec,
  jsonResult,
  type ReceivedCall,
  serveHttp,
  serveStdio,
} from './mcp-fixture.ts';

export type { ReceivedCall } from './mcp-fixture.ts';

export const STYLES = ['snake', 'kebab', 'camel', 'dotted', 'prefixed'] as const;
export type Style = (typeof STYLES)[number];

export const isStyle = (value: unknown): value is Style => STYLES.includes(value as Style);

// ── The book ────────────────────────────────────────────────────────────────

interface Contact {
  id: string;
  name: string;
}
interface InvoiceLine {
  description: string;
  quantity: number;
  unitPrice: number;
}
interface Invoice {
  id: string;
  contactId: string;
  reference: string;
  dueDate: string;
  status: 'open' | 'paid' | 'void';
  lines: InvoiceLine[];
  total: number;
  amountDue: number;
}
interface JournalLine {
  accountId: string;
  debit: number;
  credit: number;
}
interface Timesheet {
  id: string;
  employee: string;
  status: 'draft' | 'approved';
  lines: { date: string; hours: number }[];
}

/** One small company's books: the same records whatever the naming style of the tools. */
export interface Book {
  accounts: { id: string; name: string }[];
  contacts: Contact[];
  invoices: Invoice[];
  payments: { id: string; invoiceId: string; accountId: string; amount: number; date: string }[];
  transfers: { id: string; fromAccountId: string; toAccountId: string; amount: number }[];
  journals: { id: string; date: string; narration: string; lines: JournalLine[] }[];
  timesheets: Timesheet[];
}

export function seedBook(): Book {
  const line = { description: 'Consulting', quantity: 2, unitPrice: 5000 };
  return {
    accounts: [
      { id: 'ACC-BANK', name: 'Bank' },
      { id: 'ACC-CASH', name: 'Cash' },
      { id: 'ACC-SALES', name: 'Sales' },
      { id: 'ACC-RENT', name: 'Rent' },
    ],
    contacts: [
      { id: 'C-ACME', name: 'Acme Corp' },
      { id: 'C-BOLT', name: 'Bolt Ltd' },
      { id: 'C-CRUX', name: 'Crux Traders' },
    ],
    invoices: ['INV-1', 'INV-2', 'INV-3'].map((id) => ({
      id,
      contactId: 'C-ACME',
      reference: '',
      dueDate: '2025-06-30',
      status: 'open' as const,
      lines: [line],
      total: 10_000,
      amountDue: 10_000,
    })),
    payments: [],
    transfers: [],
    journals: [],
    timesheets: ['TS-1', 'TS-2', 'TS-3', 'TS-4'].map((id) => ({
      id,
      employee: 'Ravi',
      status: id === 'TS-3' ? ('approved' as const) : ('draft' as const),
      lines: [{ date: '2025-05-05', hours: 8 }],
    })),
  };
}

/** A failure the server reports as plain text (`Error <doing>: <message>`), without `isError`. */
class BookError extends Error {}

const notFound = (what: string, id: unknown) => new BookError(`${what} ${String(id)} not found`);

function find<T extends { id: string }>(list: T[], what: string, id: unknown): T {
  const hit = list.find((x) => x.id === id);
  if (!hit) throw notFound(what, id);
  return hit;
}

const ops = {
  createInvoice(book: Book, contactId: unknown, lines: InvoiceLine[]): Invoice {
    find(book.contacts, 'contact', contactId);
    const total = lines.reduce((sum, l) => sum + l.quantity * l.unitPrice, 0);
    const invoice: Invoice = {
      id: `INV-${book.invoices.length + 1}`,
      contactId: String(contactId),
      reference: '',
      dueDate: '2025-07-31',
      status: 'open',
      lines,
      total,
      amountDue: total,
    };
    book.invoices.push(invoice);
    return invoice;
  },
  editInvoice(book: Book, id: unknown, changes: { reference?: unknown; dueDate?: unknown }): Invoice {
    const invoice = find(book.invoices, 'invoice', id);
    if (typeof changes.reference === 'string') invoice.reference = changes.reference;
    if (typeof changes.dueDate === 'string') invoice.dueDate = changes.dueDate;
    return invoice;
  },
  voidInvoice(book: Book, id: unknown): Invoice {
    const invoice = find(book.invoices, 'invoice', id);
    invoice.status = 'void';
    invoice.amountDue = 0;
    return invoice;
  },
  receivePayment(book: Book, invoiceId: unknown, accountId: unknown, amount: unknown, date?: unknown) {
    const invoice = find(book.invoices, 'invoice', invoiceId);
    find(book.accounts, 'account', accountId);
    const value = Number(amount);
    invoice.amountDue -= value;
    if (invoice.amountDue <= 0) invoice.status = 'paid';
    const payment = {
      id: `PAY-${book.payments.length + 1}`,
      invoiceId: invoice.id,
      accountId: String(accountId),
      amount: value,
      date: typeof date === 'string' ? date : '2025-05-20',
    };
    book.payments.push(payment);
    return payment;
  },
  createTransfer(book: Book, from: unknown, to: unknown, amount: unknown) {
    find(book.accounts, 'account', from);
    find(book.accounts, 'account', to);
    const transfer = {
      id: `TRF-${book.transfers.length + 1}`,
      fromAccountId: String(from),
      toAccountId: String(to),
      amount: Number(amount),
    };
    book.transfers.push(transfer);
    return transfer;
  },
  /** Posts whatever it is given: like a real ledger API, it trusts its caller to balance. */
  postJournal(book: Book, lines: JournalLine[], narration: unknown, date: unknown) {
    for (const l of lines) find(book.accounts, 'account', l.accountId);
    const journal = {
      id: `JNL-${book.journals.length + 1}`,
      date: typeof date === 'string' ? date : '2025-05-20',
      narration: typeof narration === 'string' ? narration : '',
      lines,
    };
    book.journals.push(journal);
    return journal;
  },
  deleteContact(book: Book, id: unknown) {
    const contact = find(book.contacts, 'contact', id);
    book.contacts = book.contacts.filter((c) => c !== contact);
    return { deleted: contact.id };
  },
  deleteInvoice(book: Book, id: unknown) {
    const invoice = find(book.invoices, 'invoice', id);
    book.invoices = book.invoices.filter((i) => i !== invoice);
    return { deleted: invoice.id };
  },
  timesheet(book: Book, id: unknown): Timesheet {
    return find(book.timesheets, 'timesheet', id);
  },
};

const records = (value: unknown): Args[] =>
  Array.isArray(value) ? value.filter((x): x is Args => typeof x === 'object' && x !== null) : [];
const num = (value: unknown) => (typeof value === 'number' ? value : Number(value ?? 0));
const byStatus = <T extends { status: string }>(list: T[], status: unknown) =>
  typeof status === 'string' && status !== '' ? list.filter((x) => x.status === status) : list;

// ── Tools by style ──────────────────────────────────────────────────────────

interface StyledTool {
  tool: Tool;
  /** For the error text: `Error <doing>: …`. */
  doing: string;
  run(book: Book, args: Args): unknown;
}

type Prop = Record<string, unknown>;
const str: Prop = { type: 'string' };
const number: Prop = { type: 'number' };
const object = (properties: Record<string, Prop>, required: string[] = []): Tool['inputSchema'] => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
});
const array = (items: Tool['inputSchema']): Prop => ({ type: 'array', items });

function tool(
  name: string,
  description: string,
  inputSchema: Tool['inputSchema'],
  doing: string,
  run: StyledTool['run'],
  annotations?: Tool['annotations'],
): StyledTool {
  return { tool: { name, description, inputSchema, ...(annotations ? { annotations } : {}) }, doing, run };
}

/** A journal whose lines post an amount to an account as a `Debit` or a `Credit`, under the style's own field names. */
function typedJournal(
  name: string,
  verb: string,
  f: { date: string; memo: string; lines: string; account: string; amount: string; type: string },
): StyledTool {
  const line = object(
    { [f.account]: str, [f.amount]: number, [f.type]: { type: 'string', enum: ['Debit', 'Credit'] } },
    [f.account, f.amount, f.type],
  );
  return tool(
    name,
    `${verb[0]?.toUpperCase()}${verb.slice(1)}s a journal: each line posts an amount to an account as a Debit or a Credit.`,
    object({ [f.date]: str, [f.memo]: str, [f.lines]: array(line) }, [f.lines]),
    `${verb === 'post' ? 'posting' : 'creating'} journal`,
    (b, a) =>
      ops.postJournal(
        b,
        records(a[f.lines]).map((l) => ({
          accountId: String(l[f.account]),
          debit: l[f.type] === 'Debit' ? num(l[f.amount]) : 0,
          credit: l[f.type] === 'Credit' ? num(l[f.amount]) : 0,
        })),
        a[f.memo],
        a[f.date],
      ),
  );
}

function snakeTools(): StyledTool[] {
  return [
    tool(
      'list_invoices',
      'Lists the invoices, optionally by status.',
      object({ status: str }),
      'listing invoices',
      (b, a) => byStatus(b.invoices, a.status),
    ),
    tool(
      'edit_invoice',
      'Changes the reference or due date of an invoice.',
      object({ invoice_id: str, reference: str, due_date: str }, ['invoice_id']),
      'editing invoice',
      (b, a) => ops.editInvoice(b, a.invoice_id, { reference: a.reference, dueDate: a.due_date }),
    ),
    tool(
      'receive_payment',
      'Records money received against an invoice into a bank or cash account.',
      object({ invoice_id: str, account_id: str, amount: number, payment_date: str }, [
        'invoice_id',
        'account_id',
        'amount',
      ]),
      'receiving payment',
      (b, a) => ops.receivePayment(b, a.invoice_id, a.account_id, a.amount, a.payment_date),
    ),
    tool(
      'delete_entity',
      'Deletes a contact or an invoice.',
      object({ entity_type: { type: 'string', enum: ['contact', 'invoice'] }, entity_id: str }, [
        'entity_type',
        'entity_id',
      ]),
      'deleting entity',
      (b, a) =>
        a.entity_type === 'contact' ? ops.deleteContact(b, a.entity_id) : ops.deleteInvoice(b, a.entity_id),
    ),
    tool(
      'create_transfer',
      'Moves money from one bank or cash account to another.',
      object({ from_account_id: str, to_account_id: str, amount: number }, [
        'from_account_id',
        'to_account_id',
        'amount',
      ]),
      'creating transfer',
      (b, a) => ops.createTransfer(b, a.from_account_id, a.to_account_id, a.amount),
    ),
    tool(
      'post_journal',
      'Posts a journal: each line debits or credits one account.',
      object(
        {
          journal_date: str,
          narration: str,
          lines: array(object({ account_id: str, debit: number, credit: number }, ['account_id'])),
        },
        ['lines'],
      ),
      'posting journal',
      (b, a) =>
        ops.postJournal(
          b,
          records(a.lines).map((l) => ({
            accountId: String(l.account_id),
            debit: num(l.debit),
            credit: num(l.credit),
          })),
          a.narration,
          a.journal_date,
        ),
    ),
  ];
}

function kebabTools(): StyledTool[] {
  const timesheetId = object({ timesheetId: str }, ['timesheetId']);
  return [
    tool(
      'list-timesheets',
      'Lists timesheets, optionally by status.',
      object({ status: str }),
      'listing timesheets',
      (b, a) => byStatus(b.timesheets, a.status),
    ),
    tool(
      'create-invoice',
      'Creates a sales invoice for a contact.',
      object(
        {
          contactId: str,
          lineItems: array(
            object({ description: str, quantity: number, unitAmount: number }, ['description', 'unitAmount']),
          ),
        },
        ['contactId', 'lineItems'],
      ),
      'creating invoice',
      (b, a) =>
        ops.createInvoice(
          b,
          a.contactId,
          records(a.lineItems).map((l) => ({
            description: String(l.description),
            quantity: num(l.quantity ?? 1),
            unitPrice: num(l.unitAmount),
          })),
        ),
    ),
    tool(
      'record-payment',
      'Records a payment received for an invoice.',
      object({ invoiceId: str, accountId: str, amount: number }, ['invoiceId', 'accountId', 'amount']),
      'recording payment',
      (b, a) => ops.receivePayment(b, a.invoiceId, a.accountId, a.amount),
    ),
    tool('delete-timesheet', 'Deletes a timesheet.', timesheetId, 'deleting timesheet', (b, a) => {
      const sheet = ops.timesheet(b, a.timesheetId);
      b.timesheets = b.timesheets.filter((t) => t !== sheet);
      return { deleted: sheet.id };
    }),
    tool(
      'approve-timesheet',
      'Approves a draft timesheet for payroll.',
      timesheetId,
      'approving timesheet',
      (b, a) => {
        const sheet = ops.timesheet(b, a.timesheetId);
        sheet.status = 'approved';
        return sheet;
      },
    ),
    tool(
      'revert-timesheet',
      'Reverts an approved timesheet to draft.',
      timesheetId,
      'reverting timesheet',
      (b, a) => {
        const sheet = ops.timesheet(b, a.timesheetId);
        sheet.status = 'draft';
        return sheet;
      },
    ),
    tool(
      'add-timesheet-line',
      'Adds hours worked on a day to a timesheet.',
      object({ timesheetId: str, date: str, hours: number }, ['timesheetId', 'date', 'hours']),
      'adding timesheet line',
      (b, a) => {
        const sheet = ops.timesheet(b, a.timesheetId);
        sheet.lines.push({ date: String(a.date), hours: num(a.hours) });
        return sheet;
      },
    ),
    typedJournal('create-journal', 'create', {
      date: 'date',
      memo: 'memo',
      lines: 'journalLines',
      account: 'accountId',
      amount: 'amount',
      type: 'postingType',
    }),
  ];
}

function camelTools(): StyledTool[] {
  return [
    tool(
      'listInvoices',
      'Lists the invoices, optionally by status.',
      object({ status: str }),
      'listing invoices',
      (b, a) => byStatus(b.invoices, a.status),
    ),
    tool(
      'createInvoice',
      'Creates a sales invoice for a contact.',
      object(
        {
          contactId: str,
          lineItems: array(
            object({ description: str, quantity: number, unitPrice: number }, ['description', 'unitPrice']),
          ),
        },
        ['contactId', 'lineItems'],
      ),
      'creating invoice',
      (b, a) =>
        ops.createInvoice(
          b,
          a.contactId,
          records(a.lineItems).map((l) => ({
            description: String(l.description),
            quantity: num(l.quantity ?? 1),
            unitPrice: num(l.unitPrice),
          })),
        ),
    ),
    tool(
      'receivePayment',
      'Records money received against an invoice.',
      object({ invoiceId: str, accountId: str, amount: number, date: str }, [
        'invoiceId',
        'accountId',
        'amount',
      ]),
      'receiving payment',
      (b, a) => ops.receivePayment(b, a.invoiceId, a.accountId, a.amount, a.date),
    ),
    tool(
      'createManualJournal',
      'Creates a manual journal. Line amounts are signed: positive debits, negative credits; they sum to zero.',
      object(
        {
          narration: str,
          journalLines: array(
            object({ accountCode: str, lineAmount: number }, ['accountCode', 'lineAmount']),
          ),
        },
        ['narration', 'journalLines'],
      ),
      'creating manual journal',
      (b, a) =>
        ops.postJournal(
          b,
          records(a.journalLines).map((l) => ({
            accountId: String(l.accountCode),
            debit: Math.max(num(l.lineAmount), 0),
            credit: Math.max(-num(l.lineAmount), 0),
          })),
          a.narration,
          undefined,
        ),
    ),
    // Misleading: it deletes, yet says it only reads. An untrusted server's hint must not count.
    tool(
      'deleteContact',
      'Removes a contact.',
      object({ contactId: str }, ['contactId']),
      'deleting contact',
      (b, a) => ops.deleteContact(b, a.contactId),
      { readOnlyHint: true },
    ),
  ];
}

function dottedTools(): StyledTool[] {
  return [
    tool(
      'invoices.list',
      'Lists the invoices, optionally by status.',
      object({ status: str }),
      'listing invoices',
      (b, a) => byStatus(b.invoices, a.status),
    ),
    tool(
      'invoices.create',
      'Creates a sales invoice for a contact.',
      object(
        {
          contact_id: str,
          lines: array(
            object({ description: str, quantity: number, unit_price: number }, ['description', 'unit_price']),
          ),
        },
        ['contact_id', 'lines'],
      ),
      'creating invoice',
      (b, a) =>
        ops.createInvoice(
          b,
          a.contact_id,
          records(a.lines).map((l) => ({
            description: String(l.description),
            quantity: num(l.quantity ?? 1),
            unitPrice: num(l.unit_price),
          })),
        ),
    ),
    tool(
      'payments.create',
      'Records a payment received for an invoice.',
      object({ invoice_id: str, account_id: str, amount: number }, ['invoice_id', 'account_id', 'amount']),
      'creating payment',
      (b, a) => ops.receivePayment(b, a.invoice_id, a.account_id, a.amount),
    ),
    tool(
      'journals.create',
      'Creates a journal entry from debit and credit lines.',
      object(
        {
          date: str,
          lines: array(
            object({ account_id: str, debit_amount: number, credit_amount: number }, ['account_id']),
          ),
        },
        ['lines'],
      ),
      'creating journal',
      (b, a) =>
        ops.postJournal(
          b,
          records(a.lines).map((l) => ({
            accountId: String(l.account_id),
            debit: num(l.debit_amount),
            credit: num(l.credit_amount),
          })),
          undefined,
          a.date,
        ),
    ),
    tool(
      'contacts.delete',
      'Deletes a contact.',
      object({ contact_id: str }, ['contact_id']),
      'deleting contact',
      (b, a) => ops.deleteContact(b, a.contact_id),
    ),
  ];
}

function prefixedTools(): StyledTool[] {
  return [
    tool(
      'books__get_invoices',
      'Gets the invoices, optionally by status.',
      object({ Status: str }),
      'getting invoices',
      (b, a) => byStatus(b.invoices, a.Status),
    ),
    tool(
      'books__create_invoice',
      'Creates a sales invoice for a contact.',
      object(
        {
          ContactID: str,
          LineItems: array(
            object({ Description: str, Quantity: number, UnitAmount: number }, ['Description', 'UnitAmount']),
          ),
        },
        ['ContactID', 'LineItems'],
      ),
      'creating invoice',
      (b, a) =>
        ops.createInvoice(
          b,
          a.ContactID,
          records(a.LineItems).map((l) => ({
            description: String(l.Description),
            quantity: num(l.Quantity ?? 1),
            unitPrice: num(l.UnitAmount),
          })),
        ),
    ),
    typedJournal('books__post_journal', 'post', {
      date: 'Date',
      memo: 'Narration',
      lines: 'JournalLines',
      account: 'AccountID',
      amount: 'Amount',
      type: 'PostingType',
    }),
    tool(
      'books__receive_payment',
      'Records money received against an invoice.',
      object({ InvoiceID: str, AccountID: str, Amount: number }, ['InvoiceID', 'AccountID', 'Amount']),
      'receiving payment',
      (b, a) => ops.receivePayment(b, a.InvoiceID, a.AccountID, a.Amount),
    ),
    tool(
      'books__void_invoice',
      'Voids an invoice.',
      object({ InvoiceID: str }, ['InvoiceID']),
      'voiding invoice',
      (b, a) => ops.voidInvoice(b, a.InvoiceID),
    ),
  ];
}

const TOOLS_OF: Record<Style, () => StyledTool[]> = {
  snake: snakeTools,
  kebab: kebabTools,
  camel: camelTools,
  dotted: dottedTools,
  prefixed: prefixedTools,
};

/** The names of the tools a style's server lists. */
export function styledToolNames(style: Style): string[] {
  return TOOLS_OF[style]().map((t) => t.tool.name);
}

// ── The MCP server ──────────────────────────────────────────────────────────

function runTool(tools: Map<string, StyledTool>, book: Book, name: string, args: Args): CallToolResult {
  const entry = tools.get(name);
  if (!entry) return { isError: true, content: [{ type: 'text', text: `Unknown tool: ${name}` }] };
  try {
    return jsonResult(entry.run(book, args));
  } catch (error) {
    if (!(error instanceof BookError)) throw error;
    // Plain text, isError unset: how many real servers report a failed write.
    return { content: [{ type: 'text', text: `Error ${entry.doing}: ${error.message}` }] };
  }
}

/** The server of a style (no input validation, like a real accounting API) over `book`. */
export function styledBooks(style: Style, book: Book): FixtureSpec {
  const tools = new Map(TOOLS_OF[style]().map((t) => [t.tool.name, t]));
  return {
    name: `styled-books-${style}`,
    tools: () => [...tools.values()].map((t) => t.tool),
    call: (name, args) => runTool(tools, book, name, args),
  };
}

export interface StyledBooks {
  style: Style;
  /** The MCP endpoint (Streamable HTTP). */
  url: string;
  book: Book;
  /** Every tools/call received, in arrival order. */
  calls: ReceivedCall[];
  close(): Promise<void>;
}

/** The styled books over Streamable HTTP on 127.0.0.1 and a random port; sessions share one book. */
export async function startStyledBooks(style: Style): Promise<StyledBooks> {
  const book = seedBook();
  const fixture = await serveHttp(styledBooks(style, book));
  return { style, url: fixture.url, book, calls: fixture.calls, close: () => fixture.close() };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const style = process.argv[2];
  if (!isStyle(style)) {
    process.stderr.write(`usage: styled-books.ts <${STYLES.join('|')}>\n`);
    process.exit(2);
  }
  await serveStdio(styledBooks(style, seedBook()));
}
