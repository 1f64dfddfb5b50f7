// The tool table: name, honest JSON Schema, annotations and handler, in one place.
// Like the real accounting API, handlers do NOT validate their input: they store whatever they get
// (a create_payment with {} creates a ₹0 payment; an update without an id changes the latest record).
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  type Account,
  addDays,
  type Bill,
  type Books,
  type Contact,
  type Invoice,
  type JournalLine,
  type Line,
  lineTotals,
  makeLine,
  nextNumber,
  type Payment,
  round2,
  toNumber,
} from './data.ts';
import {
  agedPayables,
  agedReceivables,
  balanceSheet,
  balances,
  billView,
  cashFlow,
  contactView,
  creditNoteView,
  findContact,
  gstSummary,
  invoiceView,
  journalView,
  paymentView,
  profitAndLoss,
  trialBalance,
} from './reports.ts';

export type Args = Record<string, unknown>;

export interface ToolDef {
  name: string;
  title: string;
  description: string;
  inputSchema: Tool['inputSchema'];
  annotations: NonNullable<Tool['annotations']>;
  run: (books: Books, args: Args) => object;
}

/** An error the API answers with (turned into an `isError` tool result). */
export class ApiError extends Error {
  status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

// ── schema helpers ──────────────────────────────────────────────────────────

type Schema = Record<string, unknown>;
const str = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
const id = (description: string): Schema => str(description, { format: 'uuid' });
const num = (description: string, extra: Schema = {}): Schema => ({ type: 'number', description, ...extra });
const date = (description: string): Schema => str(`${description} (YYYY-MM-DD)`, { format: 'date' });
const oneOf = (values: readonly string[], description: string): Schema => str(description, { enum: values });
const arr = (items: Schema, description: string, extra: Schema = {}): Schema => ({
  type: 'array',
  description,
  items,
  ...extra,
});
const obj = (properties: Record<string, Schema>, required: string[] = []) => ({
  type: 'object' as const,
  properties,
  required,
  additionalProperties: false,
});

const paging = {
  Page: { type: 'integer', minimum: 1, default: 1, description: 'Page number, starting at 1' },
  PageSize: { type: 'integer', minimum: 1, maximum: 200, default: 50, description: 'Records per page' },
};
const period = {
  FromDate: date('Start of the period, inclusive'),
  ToDate: date('End of the period, inclusive'),
};
const lineItem = (defaultAccount: string) =>
  obj(
    {
      Description: str('What was sold or bought'),
      Quantity: num('Quantity', { exclusiveMinimum: 0 }),
      UnitPrice: num('Price per unit in INR, before GST', { minimum: 0 }),
      TaxRate: num('GST rate in percent, e.g. 18', { minimum: 0, maximum: 100 }),
      AccountId: id(`Ledger account of the line (default: ${defaultAccount}); see get_charts_of_accounts`),
    },
    ['Description', 'Quantity', 'UnitPrice', 'TaxRate'],
  );
const lines = (what: string, defaultAccount: string) =>
  arr(lineItem(defaultAccount), `Line items of the ${what}; GST is computed per line`, { minItems: 1 });
const PAYMENT_MODES = ['CASH', 'CHEQUE', 'NEFT', 'RTGS', 'IMPS', 'UPI', 'CARD'] as const;
const contactFields = {
  Name: str('Display name'),
  Email: str('Email address', { format: 'email' }),
  Phone: str('Phone number, e.g. +91 98200 12345'),
  GSTIN: str('15-character GST identification number', {
    pattern: '^[0-9]{2}[A-Z0-9]{10}[0-9A-Z]Z[0-9A-Z]$',
  }),
  PAN: str('10-character PAN', { pattern: '^[A-Z]{5}[0-9]{4}[A-Z]$' }),
  Address: str('Street address'),
  City: str('City'),
  State: str('State (decides CGST+SGST vs IGST), e.g. Maharashtra'),
  PaymentTermsDays: { type: 'integer', minimum: 0, description: 'Days until an invoice or bill is due' },
};

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const write = (destructive: boolean, idempotent: boolean) => ({
  readOnlyHint: false,
  destructiveHint: destructive,
  idempotentHint: idempotent,
  openWorldHint: false,
});

// ── argument helpers (lenient: no validation) ───────────────────────────────

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const has = (args: Args, key: string): boolean => args[key] !== undefined;
const isRecord = (v: unknown): v is Args => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Args[] => (Array.isArray(v) ? v.map((x) => (isRecord(x) ? x : {})) : []);
const now = (): string => new Date().toISOString();

function page<T>(
  items: T[],
  args: Args,
): { items: T[]; Page: number; PageSize: number; TotalCount: number; TotalPages: number } {
  const PageSize = Math.min(200, Math.max(1, Math.trunc(toNumber(args.PageSize)) || 50));
  const Page = Math.max(1, Math.trunc(toNumber(args.Page)) || 1);
  return {
    items: items.slice((Page - 1) * PageSize, Page * PageSize),
    Page,
    PageSize,
    TotalCount: items.length,
    TotalPages: Math.ceil(items.length / PageSize),
  };
}

function inPeriod(d: { Date: string }, args: Args): boolean {
  const from = text(args.FromDate);
  const to = text(args.ToDate);
  return (!from || d.Date >= from) && (!to || d.Date <= to);
}

const matches = (args: Args, ...fields: (string | null)[]): boolean => {
  const q = text(args.Search)?.toLowerCase();
  return !q || fields.some((f) => f?.toLowerCase().includes(q));
};

/** The record with this id. Like the real API, a missing id is not checked: the latest record is used. */
function target<T extends object, K extends keyof T>(xs: T[], key: K, value: unknown, what: string): T {
  const found =
    value === undefined || value === null || value === '' ? xs.at(-1) : xs.find((x) => x[key] === value);
  if (!found) throw new ApiError(404, `${what} not found`);
  return found;
}

const accountId = (books: Books, code: string): string | null =>
  books.accounts.find((a) => a.Code === code)?.AccountId ?? null;
const makeLines = (books: Books, v: unknown, defaultCode: string): Line[] =>
  list(v).map((l) => makeLine(l, accountId(books, defaultCode)));
const newestFirst = <T extends { Date: string }>(xs: T[]): T[] =>
  [...xs].sort((a, b) => b.Date.localeCompare(a.Date));

/** The demo's own checks of an invoice's stated total and tax type against its lines and place of supply. */
function checkInvoiceTax(books: Books, args: Args): void {
  const lines = makeLines(books, args.Lines, '4000');
  const total = lineTotals(lines).Total;
  if (has(args, 'Total') && Math.abs(toNumber(args.Total) - total) > 0.005)
    throw new ApiError(400, `Total ${toNumber(args.Total)} does not match the lines, which come to ${total}`);
  const place = text(args.PlaceOfSupply) ?? findContact(books, args.ContactId)?.State ?? books.company.State;
  const want = place === books.company.State ? 'CGST+SGST' : 'IGST';
  if (has(args, 'TaxType') && args.TaxType !== want)
    throw new ApiError(
      400,
      `A supply to ${place} from ${books.company.State} is charged ${want}, not ${String(args.TaxType)}`,
    );
}

function applyInvoiceFields(books: Books, inv: Invoice, args: Args): void {
  if (has(args, 'PlaceOfSupply')) inv.PlaceOfSupply = text(args.PlaceOfSupply);
  if (has(args, 'ContactId')) inv.ContactId = text(args.ContactId);
  if (has(args, 'Date')) inv.Date = text(args.Date) ?? inv.Date;
  if (has(args, 'DueDate')) inv.DueDate = text(args.DueDate) ?? inv.DueDate;
  if (has(args, 'Reference')) inv.Reference = text(args.Reference);
  if (has(args, 'Notes')) inv.Notes = text(args.Notes);
  if (has(args, 'Lines')) inv.Lines = makeLines(books, args.Lines, '4000');
  if (args.Status === 'DRAFT' || args.Status === 'AUTHORISED') inv.Status = args.Status;
}

function applyBillFields(books: Books, bill: Bill, args: Args): void {
  if (has(args, 'ContactId')) bill.ContactId = text(args.ContactId);
  if (has(args, 'Date')) bill.Date = text(args.Date) ?? bill.Date;
  if (has(args, 'DueDate')) bill.DueDate = text(args.DueDate) ?? bill.DueDate;
  if (has(args, 'Reference')) bill.Reference = text(args.Reference);
  if (has(args, 'Lines')) bill.Lines = makeLines(books, args.Lines, '5000');
  if (args.Status === 'DRAFT' || args.Status === 'SUBMITTED' || args.Status === 'AUTHORISED')
    bill.Status = args.Status;
}

function createPayment(books: Books, args: Args, type: Payment['Type']): Payment {
  const key = type === 'RECEIVE' ? 'InvoiceId' : 'BillId';
  const Applications = list(args.Applications).map((a) => ({
    [key]: text(a[key]),
    Amount: toNumber(a.Amount),
  }));
  const firstDoc = Applications[0]?.[key];
  const docs: { ContactId: string | null; InvoiceId?: string; BillId?: string }[] =
    type === 'RECEIVE' ? books.invoices : books.bills;
  const payment: Payment = {
    PaymentId: books.newId(),
    PaymentNumber: nextNumber(books, 'PMT'),
    Type: type,
    ContactId: text(args.ContactId) ?? docs.find((d) => d[key] === firstDoc)?.ContactId ?? null,
    AccountId: text(args.AccountId),
    Amount: toNumber(args.Amount),
    Date: text(args.Date) ?? books.asOf,
    Reference: text(args.Reference),
    PaymentMode: text(args.PaymentMode),
    Applications,
    Status: 'ACTIVE',
    CreatedAt: now(),
    UpdatedAt: now(),
  };
  books.payments.push(payment);
  return payment;
}

function createContact(books: Books, args: Args, type: Contact['ContactType']): Contact {
  const terms = toNumber(args.PaymentTermsDays);
  const contact: Contact = {
    ContactId: books.newId(),
    ContactType: type,
    Name: text(args.Name) ?? '',
    Email: text(args.Email),
    Phone: text(args.Phone),
    GSTIN: text(args.GSTIN),
    PAN: text(args.PAN),
    Address: text(args.Address),
    City: text(args.City),
    State: text(args.State),
    PaymentTermsDays: has(args, 'PaymentTermsDays') ? terms : 30,
    CreatedAt: now(),
  };
  books.contacts.push(contact);
  return contact;
}

function listContacts(books: Books, args: Args, type: Contact['ContactType']) {
  const contacts = books.contacts
    .filter((c) => c.ContactType === type && matches(args, c.Name, c.Email, c.GSTIN, c.City))
    .sort((a, b) => a.Name.localeCompare(b.Name));
  const { items, ...rest } = page(contacts, args);
  return {
    [type === 'CUSTOMER' ? 'Customers' : 'Vendors']: items.map((c) => contactView(books, c)),
    ...rest,
  };
}

const listArgs = (extra: Record<string, Schema>, required: string[] = []) =>
  obj({ ...extra, ...paging }, required);

// ── the table ───────────────────────────────────────────────────────────────

export const TOOLS: readonly ToolDef[] = [
  // Invoices
  {
    name: 'get_all_invoices',
    title: 'List sales invoices',
    description:
      'Lists sales invoices, newest first, with totals, amount paid, amount due and overdue days. Filter by status, customer, date range or a search text.',
    inputSchema: listArgs({
      Status: oneOf(
        ['DRAFT', 'AUTHORISED', 'PAID', 'VOIDED', 'UNPAID', 'PARTIALLY_PAID', 'OVERDUE'],
        'AUTHORISED = approved and not fully paid; OVERDUE = unpaid past the due date',
      ),
      ContactId: id('Only invoices of this customer'),
      ...period,
      Search: str('Matches invoice number, customer name or reference'),
    }),
    annotations: READ,
    run: (books, args) => {
      const all = newestFirst(
        books.invoices.filter(
          (i) => inPeriod(i, args) && (!text(args.ContactId) || i.ContactId === args.ContactId),
        ),
      )
        .map((i) => invoiceView(books, i))
        .filter((v) => matches(args, v.InvoiceNumber, v.ContactName, v.Reference))
        .filter((v) => {
          switch (args.Status) {
            case undefined:
            case null:
            case '':
              return true;
            case 'UNPAID':
            case 'PARTIALLY_PAID':
              return v.Status === 'AUTHORISED' && v.PaymentStatus === args.Status;
            case 'OVERDUE':
              return v.IsOverdue;
            default:
              return v.Status === args.Status;
          }
        });
      const { items, ...rest } = page(all, args);
      return { Invoices: items, ...rest };
    },
  },
  {
    name: 'get_invoice',
    title: 'Get one invoice',
    description:
      'Gets one sales invoice by InvoiceId or by InvoiceNumber (e.g. INV-0042). Give one of the two.',
    inputSchema: obj({ InvoiceId: id('Invoice id'), InvoiceNumber: str('Invoice number, e.g. INV-0042') }),
    annotations: READ,
    run: (books, args) => {
      const inv = books.invoices.find((i) =>
        text(args.InvoiceId) ? i.InvoiceId === args.InvoiceId : i.InvoiceNumber === args.InvoiceNumber,
      );
      if (!inv) throw new ApiError(404, 'Invoice not found');
      return invoiceView(books, inv);
    },
  },
  {
    name: 'create_invoice',
    title: 'Create a sales invoice',
    description:
      'Creates a sales invoice for a customer. Date defaults to today, DueDate to Date plus the customer payment terms, InvoiceNumber to the next number.',
    inputSchema: obj(
      {
        ContactId: id('Customer id (see get_all_customers)'),
        Lines: lines('invoice', 'Sales'),
        Date: date('Invoice date'),
        DueDate: date('Due date'),
        InvoiceNumber: str('Invoice number; leave out to use the next number'),
        Reference: str('Customer reference, e.g. a PO number'),
        Notes: str('Notes printed on the invoice'),
        Status: oneOf(['DRAFT', 'AUTHORISED'], 'AUTHORISED (default) posts it to the books; DRAFT does not'),
        PlaceOfSupply: str("State the supply is made to, e.g. Gujarat (default: the customer's state)"),
        TaxType: oneOf(
          ['CGST+SGST', 'IGST'],
          'How GST is charged: CGST+SGST within Maharashtra, IGST to other states; refused when it does not fit the place of supply',
        ),
        Total: num('The total with GST the lines must come to; refused when they do not', { minimum: 0 }),
      },
      ['ContactId', 'Lines'],
    ),
    annotations: write(false, false),
    run: (books, args) => {
      checkInvoiceTax(books, args);
      const day = text(args.Date) ?? books.asOf;
      const terms = findContact(books, args.ContactId)?.PaymentTermsDays ?? 30;
      const inv: Invoice = {
        InvoiceId: books.newId(),
        InvoiceNumber: text(args.InvoiceNumber) ?? nextNumber(books, 'INV'),
        ContactId: null,
        Date: day,
        DueDate: addDays(day, terms),
        Reference: null,
        Notes: null,
        Status: 'AUTHORISED',
        Lines: [],
        CurrencyCode: 'INR',
        SentToContact: false,
        SentTo: null,
        CreatedAt: now(),
        UpdatedAt: now(),
      };
      applyInvoiceFields(books, inv, args);
      books.invoices.push(inv);
      return invoiceView(books, inv);
    },
  },
  {
    name: 'update_invoice',
    title: 'Update an invoice',
    description:
      'Changes fields of an existing sales invoice. Only the fields given are changed; Lines replaces all lines.',
    inputSchema: obj(
      {
        InvoiceId: id('Invoice to change'),
        ContactId: id('Customer id'),
        Lines: lines('invoice', 'Sales'),
        Date: date('Invoice date'),
        DueDate: date('Due date'),
        Reference: str('Customer reference'),
        Notes: str('Notes printed on the invoice'),
        Status: oneOf(['DRAFT', 'AUTHORISED'], 'New status'),
      },
      ['InvoiceId'],
    ),
    annotations: write(false, true),
    run: (books, args) => {
      const inv = target(books.invoices, 'InvoiceId', args.InvoiceId, 'Invoice');
      applyInvoiceFields(books, inv, args);
      inv.UpdatedAt = now();
      return invoiceView(books, inv);
    },
  },
  {
    name: 'void_invoice',
    title: 'Void an invoice',
    description:
      'Voids a sales invoice: it stays on record with amount due 0 and leaves the books. Cannot be undone.',
    inputSchema: obj({ InvoiceId: id('Invoice to void'), Reason: str('Why it is voided') }, ['InvoiceId']),
    annotations: write(true, true),
    run: (books, args) => {
      const inv = target(books.invoices, 'InvoiceId', args.InvoiceId, 'Invoice');
      inv.Status = 'VOIDED';
      inv.Notes = text(args.Reason) ?? inv.Notes;
      inv.UpdatedAt = now();
      return invoiceView(books, inv);
    },
  },
  {
    name: 'send_invoice',
    title: 'Email an invoice',
    description: 'Emails a sales invoice (PDF) to the given address.',
    inputSchema: obj(
      {
        InvoiceId: id('Invoice to send'),
        email: str('Recipient email address', { format: 'email' }),
        Subject: str('Email subject'),
        Message: str('Email body'),
      },
      ['InvoiceId', 'email'],
    ),
    annotations: write(false, false),
    run: (books, args) => {
      const inv = target(books.invoices, 'InvoiceId', args.InvoiceId, 'Invoice');
      inv.SentToContact = true;
      inv.SentTo = text(args.email) ?? findContact(books, inv.ContactId)?.Email ?? null;
      inv.UpdatedAt = now();
      return {
        InvoiceId: inv.InvoiceId,
        InvoiceNumber: inv.InvoiceNumber,
        SentTo: inv.SentTo,
        SentAt: inv.UpdatedAt,
        Status: 'SENT',
      };
    },
  },

  // Payments
  {
    name: 'get_all_payments',
    title: 'List payments',
    description:
      'Lists payments received from customers (RECEIVE) and made to vendors (SPEND), newest first.',
    inputSchema: listArgs({
      Type: oneOf(['RECEIVE', 'SPEND'], 'RECEIVE = from customers, SPEND = to vendors'),
      ContactId: id('Only payments of this contact'),
      InvoiceId: id('Only payments applied to this invoice'),
      ...period,
    }),
    annotations: READ,
    run: (books, args) => {
      const all = newestFirst(
        books.payments.filter(
          (p) =>
            inPeriod(p, args) &&
            (!text(args.Type) || p.Type === args.Type) &&
            (!text(args.ContactId) || p.ContactId === args.ContactId) &&
            (!text(args.InvoiceId) || p.Applications.some((a) => a.InvoiceId === args.InvoiceId)),
        ),
      );
      const { items, ...rest } = page(all, args);
      return { Payments: items.map((p) => paymentView(books, p)), ...rest };
    },
  },
  {
    name: 'create_payment',
    title: 'Record a customer payment',
    description:
      'Records money received from a customer into a bank or cash account and applies it to invoices. Get InvoiceId from get_all_invoices and AccountId (bank/cash) from get_charts_of_accounts.',
    inputSchema: obj(
      {
        AccountId: id('Bank or cash account the money went into'),
        Amount: num('Amount received in INR', { exclusiveMinimum: 0 }),
        Applications: arr(
          obj(
            { InvoiceId: id('Invoice paid'), Amount: num('Amount applied to it', { exclusiveMinimum: 0 }) },
            ['InvoiceId', 'Amount'],
          ),
          'How the amount is applied to invoices',
          { minItems: 1 },
        ),
        Date: date('Payment date; defaults to today'),
        Reference: str('UTR, cheque number or other reference'),
        ContactId: id('Customer id; defaults to the customer of the first invoice'),
        PaymentMode: oneOf(PAYMENT_MODES, 'How it was paid'),
      },
      ['AccountId', 'Amount', 'Applications'],
    ),
    annotations: write(false, false),
    run: (books, args) => paymentView(books, createPayment(books, args, 'RECEIVE')),
  },
  {
    name: 'create_bill_payment',
    title: 'Record a payment to a vendor',
    description: 'Records money paid to a vendor from a bank or cash account and applies it to bills.',
    inputSchema: obj(
      {
        AccountId: id('Bank or cash account the money left'),
        Amount: num('Amount paid in INR', { exclusiveMinimum: 0 }),
        Applications: arr(
          obj({ BillId: id('Bill paid'), Amount: num('Amount applied to it', { exclusiveMinimum: 0 }) }, [
            'BillId',
            'Amount',
          ]),
          'How the amount is applied to bills',
          { minItems: 1 },
        ),
        Date: date('Payment date; defaults to today'),
        Reference: str('UTR, cheque number or other reference'),
        ContactId: id('Vendor id; defaults to the vendor of the first bill'),
        PaymentMode: oneOf(PAYMENT_MODES, 'How it was paid'),
      },
      ['AccountId', 'Amount', 'Applications'],
    ),
    annotations: write(false, false),
    run: (books, args) => paymentView(books, createPayment(books, args, 'SPEND')),
  },
  {
    name: 'update_payment',
    title: 'Update a payment',
    description:
      'Changes fields of a payment; Status VOIDED cancels it. Applications replaces all applications.',
    inputSchema: obj(
      {
        PaymentId: id('Payment to change'),
        AccountId: id('Bank or cash account'),
        Amount: num('Amount in INR', { exclusiveMinimum: 0 }),
        Applications: arr(
          obj(
            {
              InvoiceId: id('Invoice paid (customer payments)'),
              BillId: id('Bill paid (vendor payments)'),
              Amount: num('Amount applied', { exclusiveMinimum: 0 }),
            },
            ['Amount'],
          ),
          'How the amount is applied',
        ),
        Date: date('Payment date'),
        Reference: str('Reference'),
        PaymentMode: oneOf(PAYMENT_MODES, 'How it was paid'),
        Status: oneOf(['ACTIVE', 'VOIDED'], 'VOIDED cancels the payment'),
      },
      ['PaymentId'],
    ),
    annotations: write(false, true),
    run: (books, args) => {
      const p = target(books.payments, 'PaymentId', args.PaymentId, 'Payment');
      if (has(args, 'AccountId')) p.AccountId = text(args.AccountId);
      if (has(args, 'Amount')) p.Amount = toNumber(args.Amount);
      if (has(args, 'Date')) p.Date = text(args.Date) ?? p.Date;
      if (has(args, 'Reference')) p.Reference = text(args.Reference);
      if (has(args, 'PaymentMode')) p.PaymentMode = text(args.PaymentMode);
      if (args.Status === 'ACTIVE' || args.Status === 'VOIDED') p.Status = args.Status;
      if (has(args, 'Applications')) {
        p.Applications = list(args.Applications).map((a) => ({
          InvoiceId: text(a.InvoiceId),
          BillId: text(a.BillId),
          Amount: toNumber(a.Amount),
        }));
      }
      p.UpdatedAt = now();
      return paymentView(books, p);
    },
  },

  // Bills
  {
    name: 'get_bills',
    title: 'List purchase bills',
    description:
      'Lists purchase bills from vendors, newest first, with amount paid, amount due and overdue days.',
    inputSchema: listArgs({
      Status: oneOf(
        ['DRAFT', 'SUBMITTED', 'AUTHORISED', 'PAID', 'VOIDED', 'OVERDUE'],
        'SUBMITTED = awaiting approval; AUTHORISED = approved and not fully paid; OVERDUE = unpaid past the due date',
      ),
      ContactId: id('Only bills of this vendor'),
      ...period,
      Search: str('Matches bill number, vendor name or vendor reference'),
    }),
    annotations: READ,
    run: (books, args) => {
      const all = newestFirst(
        books.bills.filter(
          (b) => inPeriod(b, args) && (!text(args.ContactId) || b.ContactId === args.ContactId),
        ),
      )
        .map((b) => billView(books, b))
        .filter((v) => matches(args, v.BillNumber, v.ContactName, v.Reference))
        .filter((v) =>
          !text(args.Status) ? true : args.Status === 'OVERDUE' ? v.IsOverdue : v.Status === args.Status,
        );
      const { items, ...rest } = page(all, args);
      return { Bills: items, ...rest };
    },
  },
  {
    name: 'get_bill',
    title: 'Get one bill',
    description: 'Gets one purchase bill by BillId or by BillNumber (e.g. BILL-0007). Give one of the two.',
    inputSchema: obj({ BillId: id('Bill id'), BillNumber: str('Bill number, e.g. BILL-0007') }),
    annotations: READ,
    run: (books, args) => {
      const bill = books.bills.find((b) =>
        text(args.BillId) ? b.BillId === args.BillId : b.BillNumber === args.BillNumber,
      );
      if (!bill) throw new ApiError(404, 'Bill not found');
      return billView(books, bill);
    },
  },
  {
    name: 'create_bill',
    title: 'Create a purchase bill',
    description:
      'Records a purchase bill from a vendor. It awaits approval (SUBMITTED) unless Status says otherwise; approve it with approve_bill.',
    inputSchema: obj(
      {
        ContactId: id('Vendor id (see get_all_vendors)'),
        Lines: lines('bill', 'Purchases'),
        Date: date('Bill date'),
        DueDate: date('Due date'),
        Reference: str("Vendor's invoice number"),
        Status: oneOf(['DRAFT', 'SUBMITTED', 'AUTHORISED'], 'SUBMITTED (default) awaits approval'),
      },
      ['ContactId', 'Lines'],
    ),
    annotations: write(false, false),
    run: (books, args) => {
      const day = text(args.Date) ?? books.asOf;
      const bill: Bill = {
        BillId: books.newId(),
        BillNumber: nextNumber(books, 'BILL'),
        ContactId: null,
        Date: day,
        DueDate: addDays(day, findContact(books, args.ContactId)?.PaymentTermsDays ?? 30),
        Reference: null,
        Status: 'SUBMITTED',
        Lines: [],
        CurrencyCode: 'INR',
        CreatedAt: now(),
        UpdatedAt: now(),
      };
      applyBillFields(books, bill, args);
      books.bills.push(bill);
      return billView(books, bill);
    },
  },
  {
    name: 'update_bill',
    title: 'Update a bill',
    description:
      'Changes fields of an existing purchase bill. Only the fields given are changed; Lines replaces all lines.',
    inputSchema: obj(
      {
        BillId: id('Bill to change'),
        ContactId: id('Vendor id'),
        Lines: lines('bill', 'Purchases'),
        Date: date('Bill date'),
        DueDate: date('Due date'),
        Reference: str("Vendor's invoice number"),
      },
      ['BillId'],
    ),
    annotations: write(false, true),
    run: (books, args) => {
      const bill = target(books.bills, 'BillId', args.BillId, 'Bill');
      applyBillFields(books, bill, { ...args, Status: undefined });
      bill.UpdatedAt = now();
      return billView(books, bill);
    },
  },
  {
    name: 'approve_bill',
    title: 'Approve a bill',
    description: 'Approves a bill awaiting approval, so it is posted to the books and can be paid.',
    inputSchema: obj({ BillId: id('Bill to approve') }, ['BillId']),
    annotations: write(false, true),
    run: (books, args) => {
      const bill = target(books.bills, 'BillId', args.BillId, 'Bill');
      bill.Status = 'AUTHORISED';
      bill.UpdatedAt = now();
      return billView(books, bill);
    },
  },

  // Contacts
  {
    name: 'get_all_customers',
    title: 'List customers',
    description:
      'Lists customers with contact details, GSTIN and outstanding and overdue receivable balances.',
    inputSchema: listArgs({ Search: str('Matches name, email, GSTIN or city') }),
    annotations: READ,
    run: (books, args) => listContacts(books, args, 'CUSTOMER'),
  },
  {
    name: 'get_all_vendors',
    title: 'List vendors',
    description:
      'Lists vendors (suppliers) with contact details, GSTIN and outstanding and overdue payable balances.',
    inputSchema: listArgs({ Search: str('Matches name, email, GSTIN or city') }),
    annotations: READ,
    run: (books, args) => listContacts(books, args, 'VENDOR'),
  },
  {
    name: 'create_customer',
    title: 'Create a customer',
    description: 'Creates a customer contact.',
    inputSchema: obj(contactFields, ['Name']),
    annotations: write(false, false),
    run: (books, args) => contactView(books, createContact(books, args, 'CUSTOMER')),
  },
  {
    name: 'create_vendor',
    title: 'Create a vendor',
    description: 'Creates a vendor (supplier) contact.',
    inputSchema: obj(contactFields, ['Name']),
    annotations: write(false, false),
    run: (books, args) => contactView(books, createContact(books, args, 'VENDOR')),
  },
  {
    name: 'delete_contact',
    title: 'Delete a contact',
    description: 'Deletes a customer or vendor. Their documents stay but lose the contact. Cannot be undone.',
    inputSchema: obj({ ContactId: id('Customer or vendor to delete') }, ['ContactId']),
    annotations: write(true, true),
    run: (books, args) => {
      const c = target(books.contacts, 'ContactId', args.ContactId, 'Contact');
      books.contacts.splice(books.contacts.indexOf(c), 1);
      return { ContactId: c.ContactId, Name: c.Name, ContactType: c.ContactType, Deleted: true };
    },
  },

  // Credit notes
  {
    name: 'get_all_sales_credit_notes',
    title: 'List credit notes',
    description: 'Lists sales credit notes (returns and refunds to customers), newest first.',
    inputSchema: listArgs({ ContactId: id('Only credit notes of this customer'), ...period }),
    annotations: READ,
    run: (books, args) => {
      const all = newestFirst(
        books.creditNotes.filter(
          (c) => inPeriod(c, args) && (!text(args.ContactId) || c.ContactId === args.ContactId),
        ),
      );
      const { items, ...rest } = page(all, args);
      return { CreditNotes: items.map((c) => creditNoteView(books, c)), ...rest };
    },
  },
  {
    name: 'create_credit_note',
    title: 'Create a credit note',
    description: 'Creates a sales credit note for a customer, optionally allocated to one of their invoices.',
    inputSchema: obj(
      {
        ContactId: id('Customer id'),
        Lines: lines('credit note', 'Sales'),
        Date: date('Credit note date; defaults to today'),
        InvoiceId: id('Invoice the credit is allocated to'),
        Reason: str('Why the credit is given'),
        Reference: str('Reference'),
      },
      ['ContactId', 'Lines'],
    ),
    annotations: write(false, false),
    run: (books, args) => {
      const note = {
        CreditNoteId: books.newId(),
        CreditNoteNumber: nextNumber(books, 'CN'),
        ContactId: text(args.ContactId),
        InvoiceId: text(args.InvoiceId),
        Date: text(args.Date) ?? books.asOf,
        Reason: text(args.Reason),
        Reference: text(args.Reference),
        Status: 'AUTHORISED' as const,
        Lines: makeLines(books, args.Lines, '4000'),
        CurrencyCode: 'INR' as const,
        CreatedAt: now(),
      };
      books.creditNotes.push(note);
      return creditNoteView(books, note);
    },
  },

  // Journal and accounts
  {
    name: 'get_all_journal_entries',
    title: 'List journal entries',
    description: 'Lists manual journal entries (the day book), newest first.',
    inputSchema: listArgs(period),
    annotations: READ,
    run: (books, args) => {
      const { items, ...rest } = page(newestFirst(books.journals.filter((j) => inPeriod(j, args))), args);
      return { JournalEntries: items.map((j) => journalView(books, j)), ...rest };
    },
  },
  {
    name: 'create_journal_entry',
    title: 'Create a journal entry',
    description:
      'Posts a manual journal entry. Total debits must equal total credits; each line has a debit or a credit.',
    inputSchema: obj(
      {
        Lines: arr(
          obj(
            {
              AccountId: id('Ledger account (see get_charts_of_accounts)'),
              DebitAmount: num('Debit in INR', { minimum: 0 }),
              CreditAmount: num('Credit in INR', { minimum: 0 }),
              Description: str('Line description'),
            },
            ['AccountId'],
          ),
          'At least two lines; debits must equal credits',
          { minItems: 2 },
        ),
        Date: date('Entry date; defaults to today'),
        Narration: str('What the entry is for'),
        Reference: str('Reference'),
      },
      ['Lines'],
    ),
    annotations: write(false, false),
    run: (books, args) => {
      const Lines: JournalLine[] = list(args.Lines).map((l) => ({
        AccountId: text(l.AccountId),
        Description: text(l.Description),
        DebitAmount: round2(toNumber(l.DebitAmount)),
        CreditAmount: round2(toNumber(l.CreditAmount)),
      }));
      const entry = {
        JournalEntryId: books.newId(),
        JournalNumber: nextNumber(books, 'JE'),
        Date: text(args.Date) ?? books.asOf,
        Narration: text(args.Narration),
        Reference: text(args.Reference),
        Status: 'POSTED' as const,
        Lines,
        CreatedAt: now(),
      };
      books.journals.push(entry);
      return journalView(books, entry);
    },
  },
  {
    name: 'get_charts_of_accounts',
    title: 'Chart of accounts',
    description:
      'Lists ledger accounts (bank, cash, receivables, payables, GST, sales, purchases, expenses) with current balances.',
    inputSchema: obj({
      Type: oneOf(['ASSET', 'LIABILITY', 'EQUITY', 'REVENUE', 'EXPENSE'], 'Only accounts of this type'),
    }),
    annotations: READ,
    run: (books, args) => {
      const bal = balances(books, undefined, books.asOf);
      const Accounts = books.accounts
        .filter((a: Account) => !text(args.Type) || a.Type === args.Type)
        .map((a) => ({ ...a, Balance: bal.get(a.AccountId) ?? 0 }));
      return { Accounts };
    },
  },

  // Reports
  {
    name: 'get_profit_loss',
    title: 'Profit and loss',
    description:
      'Profit and loss statement for a period: income, cost of sales, gross profit, operating expenses, net profit.',
    inputSchema: obj({
      FromDate: date('Start of the period (default: start of the books)'),
      ToDate: date('End of the period (default: today)'),
    }),
    annotations: READ,
    run: (books, args) =>
      profitAndLoss(books, text(args.FromDate) ?? undefined, text(args.ToDate) ?? undefined),
  },
  {
    name: 'get_balance_sheet',
    title: 'Balance sheet',
    description:
      'Balance sheet as of a date: assets, liabilities and equity (including current year earnings).',
    inputSchema: obj({ AsOfDate: date('Date of the balance sheet (default: today)') }),
    annotations: READ,
    run: (books, args) => balanceSheet(books, text(args.AsOfDate) ?? undefined),
  },
  {
    name: 'get_trial_balance',
    title: 'Trial balance',
    description: 'Trial balance as of a date: debit and credit balance of every account.',
    inputSchema: obj({ AsOfDate: date('Date of the trial balance (default: today)') }),
    annotations: READ,
    run: (books, args) => trialBalance(books, text(args.AsOfDate) ?? undefined),
  },
  {
    name: 'get_aged_receivables_report',
    title: 'Aged receivables',
    description:
      'What customers owe, by how long it is overdue (current, 1-30, 31-60, 61-90, 90+ days), per customer and per invoice.',
    inputSchema: obj({ AsOfDate: date('Date to age to (default: today)') }),
    annotations: READ,
    run: (books, args) => agedReceivables(books, text(args.AsOfDate) ?? undefined),
  },
  {
    name: 'get_aged_payables_report',
    title: 'Aged payables',
    description:
      'What is owed to vendors, by how long it is overdue (current, 1-30, 31-60, 61-90, 90+ days), per vendor and per bill.',
    inputSchema: obj({ AsOfDate: date('Date to age to (default: today)') }),
    annotations: READ,
    run: (books, args) => agedPayables(books, text(args.AsOfDate) ?? undefined),
  },
  {
    name: 'get_cash_flow_statement',
    title: 'Cash flow statement',
    description:
      'Cash flow statement (direct method) for a period: operating, investing and financing cash flows and bank/cash balances.',
    inputSchema: obj({
      FromDate: date('Start of the period (default: start of the books)'),
      ToDate: date('End of the period (default: today)'),
    }),
    annotations: READ,
    run: (books, args) => cashFlow(books, text(args.FromDate) ?? undefined, text(args.ToDate) ?? undefined),
  },
  {
    name: 'get_gst_summary',
    title: 'GST summary',
    description:
      'GST output tax on sales, input tax credit on purchases (CGST/SGST/IGST) and net GST payable for a period, by month.',
    inputSchema: obj({
      FromDate: date('Start of the period (default: start of the books)'),
      ToDate: date('End of the period (default: today)'),
    }),
    annotations: READ,
    run: (books, args) => gstSummary(books, text(args.FromDate) ?? undefined, text(args.ToDate) ?? undefined),
  },
];

export const TOOLS_BY_NAME: ReadonlyMap<string, ToolDef> = new Map(TOOLS.map((t) => [t.name, t]));

/** The tools as `tools/list` returns them. */
export const toolList = (): Tool[] =>
  TOOLS.map(({ name, title, description, inputSchema, annotations }) => ({
    name,
    title,
    description,
    inputSchema,
    annotations: { title, ...annotations },
  }));
