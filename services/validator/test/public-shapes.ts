/**
 * Write tools of real public accounting MCP servers and APIs, with calls shaped like their own
 * examples: Xero (XeroAPI/xero-mcp-server and the Accounting API), QuickBooks Online
 * (intuit/quickbooks-online-mcp-server and the v3 API), Stripe (@stripe/agent-toolkit), Zoho Books
 * (a FastMCP server over the v3 API) and Odoo (a Python MCP server's generic `create_record`).
 * Schemas are written as their SDKs send them: zod-to-json-schema (draft-07, closed objects) for
 * the TypeScript servers, pydantic (titles, `Optional` as `anyOf` with null, `$defs`) for Python.
 */
type Schema = Record<string, unknown>;

/** One tool a public server lists. */
export interface PublicTool {
  server: 'Xero' | 'QuickBooks' | 'Stripe' | 'Zoho Books' | 'Odoo';
  name: string;
  inputSchema: Schema;
}

/** A call the server's own documentation would make: valid, so it must pass as it is. */
export interface ValidCall {
  tool: PublicTool;
  what: string;
  args: Record<string, unknown>;
}

const s = { type: 'string' } as const;
const n = { type: 'number' } as const;
const int = { type: 'integer' } as const;
const bool = { type: 'boolean' } as const;
const positive = { type: 'number', exclusiveMinimum: 0 } as const;
const list = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });
const oneOf = (...values: string[]): Schema => ({ type: 'string', enum: values });

/** A zod object as the TypeScript MCP SDK lists it. */
function zod(properties: Record<string, Schema>, required: string[] = []): Schema {
  return { type: 'object', properties, required, additionalProperties: false };
}
const top = (properties: Record<string, Schema>, required: string[] = []): Schema => ({
  ...zod(properties, required),
  $schema: 'http://json-schema.org/draft-07/schema#',
});
/** A `.passthrough()` zod object: unknown fields allowed. */
const open = (properties: Record<string, Schema>, required: string[] = []): Schema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: true,
});

/** A pydantic model's arguments as the Python MCP SDK lists them. */
function pydantic(
  name: string,
  properties: Record<string, Schema>,
  required: string[],
  defs?: Schema,
): Schema {
  const titled = Object.fromEntries(
    Object.entries(properties).map(([key, sub]) => [key, { title: key.replace(/_/g, ' '), ...sub }]),
  );
  return {
    type: 'object',
    title: `${name}Arguments`,
    properties: titled,
    required,
    ...(defs ? { $defs: defs } : {}),
  };
}
const optional = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }], default: null });

const ref = zod({ value: s, name: s }, ['value']);
const xeroLine = zod({ description: s, quantity: n, unitAmount: n, accountCode: s, taxType: s }, [
  'description',
  'quantity',
  'unitAmount',
  'accountCode',
  'taxType',
]);

// ── Xero ───────────────────────────────────────────────────────────────────

const xero = {
  createInvoice: {
    server: 'Xero',
    name: 'create-invoice',
    inputSchema: top({ contactId: s, lineItems: list(xeroLine), reference: s }, ['contactId', 'lineItems']),
  },
  createPayment: {
    server: 'Xero',
    name: 'create-payment',
    inputSchema: top(
      {
        invoiceId: s,
        accountId: s,
        amount: positive,
        date: s,
        reference: s,
        currencyRate: n,
        isReconciled: bool,
      },
      ['invoiceId', 'accountId', 'amount'],
    ),
  },
  createManualJournal: {
    server: 'Xero',
    name: 'create-manual-journal',
    inputSchema: top(
      {
        narration: s,
        manualJournalLines: list(
          zod({ lineAmount: n, accountCode: s, description: s, taxType: s }, ['lineAmount', 'accountCode']),
        ),
        date: s,
        lineAmountTypes: oneOf('EXCLUSIVE', 'INCLUSIVE', 'NO_TAX'),
        status: oneOf('DRAFT', 'POSTED'),
      },
      ['narration', 'manualJournalLines'],
    ),
  },
  createBankTransaction: {
    server: 'Xero',
    name: 'create-bank-transaction',
    inputSchema: top(
      {
        type: oneOf('RECEIVE', 'SPEND'),
        bankAccountId: s,
        contactId: s,
        lineItems: list(xeroLine),
        reference: s,
        date: s,
      },
      ['type', 'bankAccountId', 'contactId', 'lineItems'],
    ),
  },
  createCreditNote: {
    server: 'Xero',
    name: 'create-credit-note',
    inputSchema: top({ contactId: s, lineItems: list(xeroLine), reference: s }, ['contactId', 'lineItems']),
  },
  updateInvoice: {
    server: 'Xero',
    name: 'update-invoice',
    inputSchema: top({ invoiceId: s, lineItems: list(xeroLine), reference: s, dueDate: s, date: s }, [
      'invoiceId',
    ]),
  },
  createContact: {
    server: 'Xero',
    name: 'create-contact',
    inputSchema: top({ name: s, email: { type: 'string', format: 'email' }, phone: s }, ['name']),
  },
  // The Accounting API's own objects, as a server generated from its OpenAPI lists them.
  apiInvoices: {
    server: 'Xero',
    name: 'createInvoices',
    inputSchema: top({
      Type: oneOf('ACCREC', 'ACCPAY'),
      Contact: open({ ContactID: s, Name: s }),
      LineItems: list(open({ Description: s, Quantity: n, UnitAmount: n, AccountCode: s, TaxType: s })),
      Date: s,
      DueDate: s,
      Reference: s,
      Status: oneOf('DRAFT', 'SUBMITTED', 'AUTHORISED'),
      LineAmountTypes: oneOf('Exclusive', 'Inclusive', 'NoTax'),
      CurrencyCode: s,
    }),
  },
  apiPayment: {
    server: 'Xero',
    name: 'createPayment',
    inputSchema: top({
      Invoice: open({ InvoiceID: s, InvoiceNumber: s }),
      Account: open({ AccountID: s, Code: s }),
      Date: s,
      Amount: n,
      Reference: s,
    }),
  },
  apiBankTransfer: {
    server: 'Xero',
    name: 'createBankTransfer',
    inputSchema: top(
      {
        FromBankAccount: open({ Code: s, AccountID: s }),
        ToBankAccount: open({ Code: s, AccountID: s }),
        Amount: n,
        Date: s,
      },
      ['FromBankAccount', 'ToBankAccount', 'Amount'],
    ),
  },
  apiAllocation: {
    server: 'Xero',
    name: 'createCreditNoteAllocation',
    inputSchema: top({
      CreditNoteID: s,
      Allocations: list(open({ Invoice: open({ InvoiceID: s }), Amount: n, Date: s })),
    }),
  },
} satisfies Record<string, PublicTool>;

// ── QuickBooks Online ──────────────────────────────────────────────────────

const journalLine = zod(
  {
    Amount: n,
    DetailType: { type: 'string', const: 'JournalEntryLineDetail' },
    Description: s,
    JournalEntryLineDetail: zod({ PostingType: oneOf('Debit', 'Credit'), AccountRef: ref, ClassRef: ref }, [
      'PostingType',
      'AccountRef',
    ]),
  },
  ['Amount', 'DetailType', 'JournalEntryLineDetail'],
);
const billLine = open(
  {
    Amount: n,
    DetailType: s,
    Description: s,
    AccountRef: ref,
    AccountBasedExpenseLineDetail: zod({ AccountRef: ref, BillableStatus: s, CustomerRef: ref }, [
      'AccountRef',
    ]),
  },
  ['Amount', 'DetailType'],
);
const salesLine = open({
  Amount: n,
  DetailType: s,
  Description: s,
  SalesItemLineDetail: open({ ItemRef: ref, Qty: n, UnitPrice: n, TaxCodeRef: ref }),
});

const qbo = {
  createJournalEntry: {
    server: 'QuickBooks',
    name: 'create_journal_entry',
    inputSchema: top(
      {
        journalEntry: zod({ TxnDate: s, PrivateNote: s, DocNumber: s, Line: list(journalLine) }, [
          'TxnDate',
          'Line',
        ]),
      },
      ['journalEntry'],
    ),
  },
  createBill: {
    server: 'QuickBooks',
    name: 'create-bill',
    inputSchema: top(
      {
        bill: open(
          {
            Line: list(billLine),
            VendorRef: ref,
            TxnDate: s,
            DueDate: s,
            DocNumber: s,
            PrivateNote: s,
            APAccountRef: ref,
          },
          ['Line', 'VendorRef'],
        ),
      },
      ['bill'],
    ),
  },
  createInvoice: {
    server: 'QuickBooks',
    name: 'create_invoice',
    inputSchema: top(
      {
        invoice: open({ CustomerRef: ref, Line: list(salesLine), TxnDate: s, DueDate: s, DocNumber: s }, [
          'CustomerRef',
          'Line',
        ]),
      },
      ['invoice'],
    ),
  },
  updateInvoice: {
    server: 'QuickBooks',
    name: 'update_invoice',
    inputSchema: top(
      {
        invoice: open({ Id: s, SyncToken: s, sparse: bool, DueDate: s, CustomerMemo: open({ value: s }) }, [
          'Id',
          'SyncToken',
        ]),
      },
      ['invoice'],
    ),
  },
  // The payment of the issue: the schema says the deposit account may be left out.
  receivePayment: {
    server: 'QuickBooks',
    name: 'receive_payment',
    inputSchema: top(
      {
        customer_id: { type: 'string', description: 'QuickBooks customer Id' },
        amount: positive,
        invoice_id: { type: 'string', description: 'Invoice to apply the payment to' },
        payment_date: { type: 'string', format: 'date' },
        deposit_to_account: {
          type: 'string',
          description: 'Account Id the money is deposited to; omit to let QuickBooks use its own default',
        },
        payment_method: s,
        reference_number: s,
      },
      ['customer_id', 'amount'],
    ),
  },
  apiPayment: {
    server: 'QuickBooks',
    name: 'createPayment',
    inputSchema: top(
      {
        TotalAmt: n,
        CustomerRef: ref,
        DepositToAccountRef: ref,
        TxnDate: s,
        Line: list(open({ Amount: n, LinkedTxn: list(open({ TxnId: s, TxnType: s })) })),
        CurrencyRef: ref,
      },
      ['TotalAmt', 'CustomerRef'],
    ),
  },
  apiBillPayment: {
    server: 'QuickBooks',
    name: 'create_bill_payment',
    inputSchema: top(
      {
        VendorRef: ref,
        PayType: oneOf('Check', 'CreditCard'),
        CheckPayment: open({ BankAccountRef: ref, PrintStatus: s }),
        CreditCardPayment: open({ CCAccountRef: ref }),
        TotalAmt: n,
        TxnDate: s,
        Line: list(open({ Amount: n, LinkedTxn: list(open({ TxnId: s, TxnType: s })) })),
      },
      ['VendorRef', 'PayType', 'TotalAmt', 'Line'],
    ),
  },
  apiTransfer: {
    server: 'QuickBooks',
    name: 'create_transfer',
    inputSchema: top({ FromAccountRef: ref, ToAccountRef: ref, Amount: n, TxnDate: s, PrivateNote: s }, [
      'FromAccountRef',
      'ToAccountRef',
      'Amount',
    ]),
  },
  apiPurchase: {
    server: 'QuickBooks',
    name: 'create_purchase',
    inputSchema: top(
      {
        PaymentType: oneOf('Cash', 'Check', 'CreditCard'),
        AccountRef: ref,
        EntityRef: ref,
        TxnDate: s,
        Line: list(billLine),
      },
      ['PaymentType', 'AccountRef', 'Line'],
    ),
  },
} satisfies Record<string, PublicTool>;

// ── Stripe ─────────────────────────────────────────────────────────────────

const stripe = {
  createCustomer: {
    server: 'Stripe',
    name: 'create_customer',
    inputSchema: top({ name: s, email: { type: 'string', format: 'email' } }, ['name']),
  },
  createProduct: {
    server: 'Stripe',
    name: 'create_product',
    inputSchema: top({ name: s, description: s }, ['name']),
  },
  createPrice: {
    server: 'Stripe',
    name: 'create_price',
    inputSchema: top({ product: s, unit_amount: int, currency: s }, ['product', 'unit_amount', 'currency']),
  },
  createPaymentLink: {
    server: 'Stripe',
    name: 'create_payment_link',
    inputSchema: top({ price: s, quantity: int, redirect_url: s }, ['price', 'quantity']),
  },
  createInvoice: {
    server: 'Stripe',
    name: 'create_invoice',
    inputSchema: top({ customer: s, days_until_due: int }, ['customer']),
  },
  createInvoiceItem: {
    server: 'Stripe',
    name: 'create_invoice_item',
    inputSchema: top({ customer: s, price: s, invoice: s }, ['customer', 'price', 'invoice']),
  },
  finalizeInvoice: {
    server: 'Stripe',
    name: 'finalize_invoice',
    inputSchema: top({ invoice: s }, ['invoice']),
  },
  createRefund: {
    server: 'Stripe',
    name: 'create_refund',
    inputSchema: top({ payment_intent: s, amount: int }, ['payment_intent']),
  },
  cancelSubscription: {
    server: 'Stripe',
    name: 'cancel_subscription',
    inputSchema: top({ subscription: s }, ['subscription']),
  },
  updateSubscription: {
    server: 'Stripe',
    name: 'update_subscription',
    inputSchema: top(
      {
        subscription: s,
        proration_behavior: oneOf('create_prorations', 'none', 'always_invoice'),
        items: list(zod({ id: s, price: s, quantity: int, deleted: bool })),
      },
      ['subscription'],
    ),
  },
  createCoupon: {
    server: 'Stripe',
    name: 'create_coupon',
    inputSchema: top(
      {
        name: s,
        percent_off: n,
        amount_off: int,
        currency: s,
        duration: oneOf('once', 'repeating', 'forever'),
        duration_in_months: int,
      },
      ['name'],
    ),
  },
} satisfies Record<string, PublicTool>;

// ── Zoho Books ─────────────────────────────────────────────────────────────

const money = { type: 'number', exclusiveMinimum: 0, maximum: 999999999.99 } as const;
const day = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' } as const;
const org = { organization_id: s };
const zohoLine = zod({
  item_id: s,
  name: s,
  description: s,
  quantity: { type: 'number', exclusiveMinimum: 0, default: 1 },
  rate: { type: 'number', minimum: 0 },
  tax_id: s,
  discount: n,
});
const zohoJournalLine = zod(
  { account_id: s, debit_or_credit: oneOf('debit', 'credit'), amount: money, description: s, customer_id: s },
  ['account_id', 'debit_or_credit', 'amount'],
);

const zoho = {
  createInvoice: {
    server: 'Zoho Books',
    name: 'create_invoice',
    inputSchema: top(
      {
        ...org,
        customer_id: s,
        date: s,
        due_date: s,
        invoice_number: s,
        payment_terms: int,
        reference_number: s,
        notes: s,
        line_items: list(zohoLine, { minItems: 1 }),
      },
      ['customer_id', 'date', 'line_items'],
    ),
  },
  updateInvoice: {
    server: 'Zoho Books',
    name: 'update_invoice',
    inputSchema: top(
      { ...org, invoice_id: s, date: s, due_date: s, reference_number: s, line_items: list(zohoLine) },
      ['invoice_id'],
    ),
  },
  sendInvoice: {
    server: 'Zoho Books',
    name: 'send_invoice',
    inputSchema: top({ ...org, invoice_id: s }, ['invoice_id']),
  },
  voidInvoice: {
    server: 'Zoho Books',
    name: 'void_invoice',
    inputSchema: top({ ...org, invoice_id: s }, ['invoice_id']),
  },
  emailInvoice: {
    server: 'Zoho Books',
    name: 'email_invoice',
    inputSchema: top({ ...org, invoice_id: s, to_mail_ids: list(s, { minItems: 1 }), subject: s, body: s }, [
      'invoice_id',
      'to_mail_ids',
    ]),
  },
  createCustomerPayment: {
    server: 'Zoho Books',
    name: 'create_customer_payment',
    inputSchema: top(
      {
        ...org,
        customer_id: s,
        amount: money,
        date: day,
        payment_mode: oneOf('cash', 'check', 'bankremittance', 'banktransfer', 'creditcard', 'upi'),
        account_id: s,
        reference_number: s,
        invoices: list(zod({ invoice_id: s, amount_applied: positive }, ['invoice_id', 'amount_applied'])),
      },
      ['customer_id', 'amount', 'date', 'account_id'],
    ),
  },
  createVendorPayment: {
    server: 'Zoho Books',
    name: 'create_vendor_payment',
    inputSchema: top(
      {
        ...org,
        vendor_id: s,
        amount: money,
        date: day,
        paid_through_account_id: s,
        payment_mode: s,
        bills: list(zod({ bill_id: s, amount_applied: positive }, ['bill_id', 'amount_applied'])),
      },
      ['vendor_id', 'amount', 'date'],
    ),
  },
  createJournal: {
    server: 'Zoho Books',
    name: 'create_journal',
    inputSchema: top(
      {
        ...org,
        journal_date: day,
        reference_number: s,
        notes: s,
        line_items: list(zohoJournalLine, { minItems: 2 }),
      },
      ['journal_date', 'line_items'],
    ),
  },
  deleteJournal: {
    server: 'Zoho Books',
    name: 'delete_journal',
    inputSchema: top({ ...org, journal_id: s }, ['journal_id']),
  },
  createExpense: {
    server: 'Zoho Books',
    name: 'create_expense',
    inputSchema: top(
      {
        ...org,
        account_id: s,
        paid_through_account_id: s,
        date: day,
        amount: money,
        description: s,
        vendor_id: s,
        currency_code: s,
      },
      ['account_id', 'paid_through_account_id', 'date', 'amount'],
    ),
  },
  createBill: {
    server: 'Zoho Books',
    name: 'create_bill',
    inputSchema: top(
      {
        ...org,
        vendor_id: s,
        bill_number: s,
        date: day,
        due_date: day,
        line_items: list(
          zod({ account_id: s, description: s, rate: n, quantity: n }, ['account_id', 'rate']),
        ),
      },
      ['vendor_id', 'bill_number', 'line_items'],
    ),
  },
  createCreditNote: {
    server: 'Zoho Books',
    name: 'create_credit_note',
    inputSchema: top(
      { ...org, customer_id: s, date: day, creditnote_number: s, line_items: list(zohoLine) },
      ['customer_id', 'line_items'],
    ),
  },
} satisfies Record<string, PublicTool>;

// ── Odoo ───────────────────────────────────────────────────────────────────

const odoo = {
  createRecord: {
    server: 'Odoo',
    name: 'create_record',
    inputSchema: pydantic(
      'create_record',
      { model: s, values: { type: 'object', additionalProperties: true } },
      ['model', 'values'],
    ),
  },
  updateRecord: {
    server: 'Odoo',
    name: 'update_record',
    inputSchema: pydantic(
      'update_record',
      { model: s, record_id: int, values: { type: 'object', additionalProperties: true } },
      ['model', 'record_id', 'values'],
    ),
  },
  createInvoice: {
    server: 'Odoo',
    name: 'create_customer_invoice',
    inputSchema: pydantic(
      'create_customer_invoice',
      {
        partner_id: int,
        invoice_date: optional(s),
        invoice_date_due: optional(s),
        ref: optional(s),
        currency: optional(s),
        lines: { type: 'array', items: { $ref: '#/$defs/InvoiceLine' } },
      },
      ['partner_id', 'lines'],
      {
        InvoiceLine: {
          type: 'object',
          title: 'InvoiceLine',
          properties: {
            name: { title: 'Name', type: 'string' },
            quantity: { title: 'Quantity', type: 'number', default: 1 },
            price_unit: { title: 'Price Unit', type: 'number' },
            product_id: optional(int),
            account_id: optional(int),
          },
          required: ['name', 'price_unit'],
        },
      },
    ),
  },
  // `values: dict` in Python: pydantic lists a bare object, which accepts any field.
  updateRecords: {
    server: 'Odoo',
    name: 'update_records',
    inputSchema: pydantic('update_records', { model: s, ids: list(int), values: { type: 'object' } }, [
      'model',
      'ids',
      'values',
    ]),
  },
  registerPayment: {
    server: 'Odoo',
    name: 'register_payment',
    inputSchema: pydantic(
      'register_payment',
      {
        invoice_id: int,
        amount: optional(n),
        journal_id: optional(int),
        payment_date: optional(s),
        memo: optional(s),
      },
      ['invoice_id'],
    ),
  },
} satisfies Record<string, PublicTool>;

const XERO_CONTACT = 'eaa28f49-6028-4b6e-bb12-d8f6278073fc';
const ACCREC_LINE = {
  description: 'Consulting services',
  quantity: 10,
  unitAmount: 150,
  accountCode: '200',
  taxType: 'OUTPUT2',
};

/** Valid calls, as the servers' documentation and examples write them. */
export const VALID_CALLS: readonly ValidCall[] = [
  // Xero MCP
  {
    tool: xero.createInvoice,
    what: 'an invoice with one line',
    args: { contactId: XERO_CONTACT, lineItems: [ACCREC_LINE], reference: 'Website Design' },
  },
  {
    tool: xero.createInvoice,
    what: 'an invoice with two lines',
    args: {
      contactId: XERO_CONTACT,
      lineItems: [
        ACCREC_LINE,
        { description: 'Hosting', quantity: 1, unitAmount: 49.5, accountCode: '200', taxType: 'NONE' },
      ],
    },
  },
  {
    tool: xero.createPayment,
    what: 'a payment against an invoice',
    args: {
      invoiceId: '4f7bcdcb-6bbb-4b34-9a82-6b7a4f5b6c3e',
      accountId: '13918178-849a-4823-9a31-57b7eac713d7',
      amount: 500,
    },
  },
  {
    tool: xero.createPayment,
    what: 'a dated payment with a reference',
    args: {
      invoiceId: '4f7bcdcb-6bbb-4b34-9a82-6b7a4f5b6c3e',
      accountId: '13918178-849a-4823-9a31-57b7eac713d7',
      amount: 32.06,
      date: '2025-03-11',
      reference: 'Bank transfer 1142',
    },
  },
  {
    tool: xero.createManualJournal,
    what: 'a manual journal with signed lines',
    args: {
      narration: 'Accrued electricity',
      manualJournalLines: [
        { lineAmount: 120.5, accountCode: '445' },
        { lineAmount: -120.5, accountCode: '800' },
      ],
      date: '2025-03-31',
    },
  },
  {
    tool: xero.createManualJournal,
    what: 'a three-line manual journal',
    args: {
      narration: 'Payroll March',
      manualJournalLines: [
        { lineAmount: 5000, accountCode: '477', description: 'Wages' },
        { lineAmount: -4200, accountCode: '814' },
        { lineAmount: -800, accountCode: '825' },
      ],
      status: 'POSTED',
    },
  },
  {
    tool: xero.createBankTransaction,
    what: 'money spent from a bank account',
    args: {
      type: 'SPEND',
      bankAccountId: '13918178-849a-4823-9a31-57b7eac713d7',
      contactId: XERO_CONTACT,
      lineItems: [
        { description: 'Office chairs', quantity: 2, unitAmount: 89, accountCode: '429', taxType: 'INPUT2' },
      ],
    },
  },
  {
    tool: xero.createCreditNote,
    what: 'a credit note',
    args: { contactId: XERO_CONTACT, lineItems: [{ ...ACCREC_LINE, quantity: 1 }] },
  },
  {
    tool: xero.updateInvoice,
    what: 'an invoice given a new due date',
    args: { invoiceId: '4f7bcdcb-6bbb-4b34-9a82-6b7a4f5b6c3e', dueDate: '2025-04-30' },
  },
  {
    tool: xero.createContact,
    what: 'a contact',
    args: { name: 'Bayside Club', email: 'secretary@baysideclub.co' },
  },
  // Xero Accounting API
  {
    tool: xero.apiInvoices,
    what: 'an API invoice in New Zealand dollars',
    args: {
      Type: 'ACCREC',
      Contact: { ContactID: XERO_CONTACT },
      LineItems: [
        { Description: 'Consulting services as agreed', Quantity: 5, UnitAmount: 120, AccountCode: '200' },
      ],
      Date: '2019-03-11',
      DueDate: '2019-03-25',
      Reference: 'Website Design',
      Status: 'AUTHORISED',
      LineAmountTypes: 'Exclusive',
      CurrencyCode: 'NZD',
    },
  },
  {
    tool: xero.apiInvoices,
    what: 'a draft bill with no lines yet',
    args: { Type: 'ACCPAY', Contact: { Name: 'ABC Limited' }, Status: 'DRAFT' },
  },
  {
    tool: xero.apiPayment,
    what: 'an API payment by account code',
    args: {
      Invoice: { InvoiceNumber: 'INV-0001' },
      Account: { Code: '090' },
      Date: '2019-03-12',
      Amount: 32.06,
    },
  },
  {
    tool: xero.apiPayment,
    what: 'an API payment by account id',
    args: {
      Invoice: { InvoiceID: '4f7bcdcb-6bbb-4b34-9a82-6b7a4f5b6c3e' },
      Account: { AccountID: '13918178-849a-4823-9a31-57b7eac713d7' },
      Amount: 100,
    },
  },
  {
    tool: xero.apiBankTransfer,
    what: 'a bank transfer',
    args: {
      FromBankAccount: { Code: '090' },
      ToBankAccount: { Code: '091' },
      Amount: 20,
      Date: '2025-01-15',
    },
  },
  {
    tool: xero.apiAllocation,
    what: 'a credit note allocated to an invoice',
    args: {
      CreditNoteID: '7a1d4e22-3a0c-4f59-8d1c-3a7d9b1f9e10',
      Allocations: [
        { Invoice: { InvoiceID: '4f7bcdcb-6bbb-4b34-9a82-6b7a4f5b6c3e' }, Amount: 60.5, Date: '2025-02-01' },
      ],
    },
  },

  // QuickBooks Online MCP and API
  {
    tool: qbo.createJournalEntry,
    what: 'a journal entry with posting types',
    args: {
      journalEntry: {
        TxnDate: '2025-01-31',
        PrivateNote: 'Depreciation January',
        Line: [
          {
            Amount: 250,
            DetailType: 'JournalEntryLineDetail',
            Description: 'Depreciation',
            JournalEntryLineDetail: {
              PostingType: 'Debit',
              AccountRef: { value: '39', name: 'Depreciation' },
            },
          },
          {
            Amount: 250,
            DetailType: 'JournalEntryLineDetail',
            JournalEntryLineDetail: { PostingType: 'Credit', AccountRef: { value: '40' } },
          },
        ],
      },
    },
  },
  {
    tool: qbo.createBill,
    what: 'a bill with an expense line',
    args: {
      bill: {
        VendorRef: { value: '56' },
        TxnDate: '2025-02-03',
        Line: [
          {
            Amount: 200,
            DetailType: 'AccountBasedExpenseLineDetail',
            AccountBasedExpenseLineDetail: { AccountRef: { value: '7' } },
          },
        ],
      },
    },
  },
  {
    tool: qbo.createBill,
    what: 'a bill with a flat account and a due date',
    args: {
      bill: {
        VendorRef: { value: '41', name: "Bob's Burger Joint" },
        DueDate: '2025-03-01',
        DocNumber: 'B-1001',
        Line: [
          {
            Amount: 75.25,
            DetailType: 'AccountBasedExpenseLineDetail',
            AccountRef: { value: '13' },
            Description: 'Team lunch',
          },
        ],
      },
    },
  },
  {
    tool: qbo.createInvoice,
    what: 'an invoice with a sales item line',
    args: {
      invoice: {
        CustomerRef: { value: '1' },
        Line: [
          {
            DetailType: 'SalesItemLineDetail',
            Amount: 100,
            SalesItemLineDetail: { ItemRef: { value: '1', name: 'Services' }, Qty: 1, UnitPrice: 100 },
          },
        ],
      },
    },
  },
  {
    tool: qbo.updateInvoice,
    what: 'a sparse invoice update',
    args: { invoice: { Id: '130', SyncToken: '0', sparse: true, DueDate: '2025-05-01' } },
  },
  {
    tool: qbo.receivePayment,
    what: 'a payment with no deposit account (QuickBooks picks its default)',
    args: { customer_id: '58', amount: 5000, invoice_id: '145' },
  },
  {
    tool: qbo.receivePayment,
    what: 'a payment to a named deposit account',
    args: {
      customer_id: '58',
      amount: 1250.75,
      invoice_id: '145',
      deposit_to_account: '35',
      payment_date: '2025-02-14',
      payment_method: 'Check',
    },
  },
  { tool: qbo.receivePayment, what: 'an unapplied payment', args: { customer_id: '20', amount: 25 } },
  {
    tool: qbo.apiPayment,
    what: 'an API payment linked to an invoice',
    args: {
      TotalAmt: 25,
      CustomerRef: { value: '20' },
      Line: [{ Amount: 25, LinkedTxn: [{ TxnId: '67', TxnType: 'Invoice' }] }],
    },
  },
  {
    tool: qbo.apiPayment,
    what: 'an API payment in US dollars',
    args: { TotalAmt: 55, CustomerRef: { value: '3' }, CurrencyRef: { value: 'USD' }, TxnDate: '2025-01-20' },
  },
  {
    tool: qbo.apiBillPayment,
    what: 'a bill paid by check',
    args: {
      VendorRef: { value: '56' },
      PayType: 'Check',
      CheckPayment: { BankAccountRef: { value: '35' } },
      TotalAmt: 200,
      Line: [{ Amount: 200, LinkedTxn: [{ TxnId: '234', TxnType: 'Bill' }] }],
    },
  },
  {
    tool: qbo.apiBillPayment,
    what: 'a bill paid by credit card',
    args: {
      VendorRef: { value: '30' },
      PayType: 'CreditCard',
      CreditCardPayment: { CCAccountRef: { value: '41' } },
      TotalAmt: 103.55,
      Line: [{ Amount: 103.55, LinkedTxn: [{ TxnId: '108', TxnType: 'Bill' }] }],
    },
  },
  {
    tool: qbo.apiTransfer,
    what: 'a transfer between accounts',
    args: {
      FromAccountRef: { value: '35', name: 'Checking' },
      ToAccountRef: { value: '36', name: 'Savings' },
      Amount: 120,
    },
  },
  {
    tool: qbo.apiPurchase,
    what: 'a cash purchase',
    args: {
      PaymentType: 'Cash',
      AccountRef: { value: '42' },
      TxnDate: '2025-02-10',
      Line: [
        {
          Amount: 10,
          DetailType: 'AccountBasedExpenseLineDetail',
          AccountBasedExpenseLineDetail: { AccountRef: { value: '13' } },
        },
      ],
    },
  },

  // Stripe agent toolkit
  {
    tool: stripe.createCustomer,
    what: 'a customer',
    args: { name: 'Jenny Rosen', email: 'jennyrosen@example.com' },
  },
  { tool: stripe.createCustomer, what: 'a customer without an email', args: { name: 'Acme Corp' } },
  {
    tool: stripe.createProduct,
    what: 'a product',
    args: { name: 'Gold Plan', description: 'Monthly subscription' },
  },
  {
    tool: stripe.createPrice,
    what: 'a price in lower-case dollars',
    args: { product: 'prod_NWjs8kKbJWmuuc', unit_amount: 1200, currency: 'usd' },
  },
  {
    tool: stripe.createPrice,
    what: 'a price in rupees',
    args: { product: 'prod_NWjs8kKbJWmuuc', unit_amount: 99900, currency: 'inr' },
  },
  {
    tool: stripe.createPaymentLink,
    what: 'a payment link (no account, no amount: a price)',
    args: { price: 'price_1MoC3TLkdIwHu7ixcIbKelAC', quantity: 1 },
  },
  {
    tool: stripe.createInvoice,
    what: 'an invoice with no lines yet',
    args: { customer: 'cus_NffrFeUfNV2Hib', days_until_due: 30 },
  },
  {
    tool: stripe.createInvoiceItem,
    what: 'an invoice item',
    args: {
      customer: 'cus_NffrFeUfNV2Hib',
      price: 'price_1MtGUsLkdIwHu7ix1be5Ljaj',
      invoice: 'in_1MtHbELkdIwHu7ixl4OzzPMv',
    },
  },
  {
    tool: stripe.finalizeInvoice,
    what: 'an invoice finalised',
    args: { invoice: 'in_1MtHbELkdIwHu7ixl4OzzPMv' },
  },
  {
    tool: stripe.createRefund,
    what: 'a full refund',
    args: { payment_intent: 'pi_3MtwBwLkdIwHu7ix28a3tqPa' },
  },
  {
    tool: stripe.createRefund,
    what: 'a partial refund in cents',
    args: { payment_intent: 'pi_3MtwBwLkdIwHu7ix28a3tqPa', amount: 1000 },
  },
  {
    tool: stripe.cancelSubscription,
    what: 'a subscription cancelled',
    args: { subscription: 'sub_1MowQVLkdIwHu7ixeRlqHVzs' },
  },
  {
    tool: stripe.updateSubscription,
    what: 'a subscription moved to another price',
    args: {
      subscription: 'sub_1MowQVLkdIwHu7ixeRlqHVzs',
      proration_behavior: 'none',
      items: [{ id: 'si_NcLYdDxLHxlFo7', price: 'price_1Mr6rdLkdIwHu7ixwPmiybbR' }],
    },
  },
  {
    tool: stripe.createCoupon,
    what: 'a percentage coupon',
    args: { name: '25.5% off', percent_off: 25.5, duration: 'repeating', duration_in_months: 3 },
  },
  {
    tool: stripe.createCoupon,
    what: 'an amount-off coupon',
    args: { name: '$5 off', amount_off: 500, currency: 'usd', duration: 'once' },
  },

  // Zoho Books
  {
    tool: zoho.createInvoice,
    what: 'an invoice from an item',
    args: {
      customer_id: '460000000026049',
      date: '2025-02-01',
      line_items: [{ item_id: '460000000027009', rate: 120, quantity: 2 }],
    },
  },
  {
    tool: zoho.createInvoice,
    what: 'an invoice with a named line and terms',
    args: {
      organization_id: '10234695',
      customer_id: '460000000026049',
      date: '2025-02-01',
      due_date: '2025-03-03',
      payment_terms: 30,
      line_items: [{ name: 'Annual maintenance', rate: 15000, tax_id: '460000000027005' }],
    },
  },
  {
    tool: zoho.updateInvoice,
    what: 'an invoice reference changed',
    args: { invoice_id: '460000000028192', reference_number: 'PO-4471' },
  },
  {
    tool: zoho.sendInvoice,
    what: 'an invoice marked sent (no email in its schema)',
    args: { invoice_id: '460000000028192' },
  },
  { tool: zoho.voidInvoice, what: 'an invoice voided', args: { invoice_id: '460000000028192' } },
  {
    tool: zoho.emailInvoice,
    what: 'an invoice emailed',
    args: {
      invoice_id: '460000000028192',
      to_mail_ids: ['accounts@bowmanfurniture.com'],
      subject: 'Invoice INV-000001',
    },
  },
  {
    tool: zoho.createCustomerPayment,
    what: 'a payment applied to an invoice',
    args: {
      customer_id: '460000000026049',
      amount: 450,
      date: '2025-02-10',
      payment_mode: 'banktransfer',
      account_id: '460000000000358',
      invoices: [{ invoice_id: '460000000028192', amount_applied: 450 }],
    },
  },
  {
    tool: zoho.createCustomerPayment,
    what: 'an advance payment applied to nothing',
    args: {
      customer_id: '460000000026049',
      amount: 1000,
      date: '2025-02-10',
      account_id: '460000000000358',
      payment_mode: 'upi',
    },
  },
  {
    tool: zoho.createVendorPayment,
    what: 'a vendor payment without a paid-through account',
    args: {
      vendor_id: '460000000026051',
      amount: 2300,
      date: '2025-02-12',
      bills: [{ bill_id: '460000000029001', amount_applied: 2300 }],
    },
  },
  {
    tool: zoho.createJournal,
    what: 'a journal with debit_or_credit',
    args: {
      journal_date: '2025-01-31',
      notes: 'Rent accrual',
      line_items: [
        { account_id: '460000000000361', debit_or_credit: 'debit', amount: 25000 },
        { account_id: '460000000000412', debit_or_credit: 'credit', amount: 25000 },
      ],
    },
  },
  { tool: zoho.deleteJournal, what: 'a journal deleted', args: { journal_id: '460000000030022' } },
  {
    tool: zoho.createExpense,
    what: 'an expense in rupees',
    args: {
      account_id: '460000000000415',
      paid_through_account_id: '460000000000358',
      date: '2025-02-05',
      amount: 1180,
      description: 'Courier',
      currency_code: 'INR',
    },
  },
  {
    tool: zoho.createBill,
    what: 'a bill with an account line',
    args: {
      vendor_id: '460000000026051',
      bill_number: 'VB-2291',
      date: '2025-02-02',
      line_items: [{ account_id: '460000000000415', description: 'Printer toner', rate: 3400, quantity: 2 }],
    },
  },
  {
    tool: zoho.createCreditNote,
    what: 'a credit note',
    args: {
      customer_id: '460000000026049',
      date: '2025-02-15',
      line_items: [{ name: 'Returned chair', rate: 2500, quantity: 1 }],
    },
  },

  // Odoo
  {
    tool: odoo.createRecord,
    what: 'a customer invoice with command tuples',
    args: {
      model: 'account.move',
      values: {
        move_type: 'out_invoice',
        partner_id: 7,
        invoice_date: '2025-01-15',
        invoice_line_ids: [[0, 0, { name: 'Consulting', quantity: 2, price_unit: 150 }]],
      },
    },
  },
  {
    tool: odoo.createRecord,
    what: 'a journal entry with debit and credit lines',
    args: {
      model: 'account.move',
      values: {
        move_type: 'entry',
        journal_id: 3,
        date: '2025-01-31',
        line_ids: [
          [0, 0, { account_id: 21, name: 'Office rent', debit: 1200, credit: 0 }],
          [0, 0, { account_id: 40, name: 'Office rent', debit: 0, credit: 1200 }],
        ],
      },
    },
  },
  {
    tool: odoo.createRecord,
    what: 'a customer payment',
    args: {
      model: 'account.payment',
      values: {
        payment_type: 'inbound',
        partner_type: 'customer',
        partner_id: 7,
        amount: 1150,
        journal_id: 7,
        date: '2025-02-01',
      },
    },
  },
  {
    tool: odoo.createRecord,
    what: 'a partner',
    args: {
      model: 'res.partner',
      values: { name: 'Azure Interior', email: 'azure.Interior24@example.com', is_company: true },
    },
  },
  {
    tool: odoo.updateRecord,
    what: 'an invoice reference changed',
    args: { model: 'account.move', record_id: 42, values: { ref: 'PO-2025-118' } },
  },
  {
    tool: odoo.createInvoice,
    what: 'an invoice whose optional fields are sent as null',
    args: {
      partner_id: 7,
      invoice_date: null,
      invoice_date_due: null,
      ref: null,
      currency: 'eur',
      lines: [{ name: 'Desk', price_unit: 450, quantity: 2, product_id: null }],
    },
  },
  {
    tool: odoo.updateRecords,
    what: 'two invoices given a due date (values a Python dict)',
    args: { model: 'account.move', ids: [42, 43], values: { invoice_date_due: '2025-03-31', ref: 'Q1' } },
  },
  {
    tool: odoo.updateRecords,
    what: 'a partner renamed (values a Python dict)',
    args: { model: 'res.partner', ids: [7], values: { name: 'Azure Interior Ltd' } },
  },
  { tool: odoo.registerPayment, what: 'a payment registered for the full balance', args: { invoice_id: 42 } },
  {
    tool: odoo.registerPayment,
    what: 'a partial payment with nulls',
    args: { invoice_id: 42, amount: 200, journal_id: null, payment_date: '2025-02-20', memo: null },
  },
];

/** A call that must be blocked, and the field the block names. */
export interface MustBlock {
  tool: PublicTool;
  what: string;
  args: Record<string, unknown>;
  /** The field reported missing or wrong. */
  field: string;
}

/**
 * Calls the validator must block on the same servers: a field the schema requires left out, an
 * amount of zero or below, an unbalanced journal, empty lines, a date or currency that is none.
 */
export const MUST_BLOCK: readonly MustBlock[] = [
  {
    tool: xero.createPayment,
    what: 'a payment without the account its schema requires',
    args: { invoiceId: 'i-1', amount: 500 },
    field: 'accountId',
  },
  {
    tool: xero.createPayment,
    what: 'a payment of zero',
    args: { invoiceId: 'i-1', accountId: 'a-1', amount: 0 },
    field: 'amount',
  },
  {
    tool: xero.createInvoice,
    what: 'an invoice with no lines',
    args: { contactId: XERO_CONTACT, lineItems: [] },
    field: 'lineItems',
  },
  {
    tool: xero.createInvoice,
    what: 'an invoice without its contact',
    args: { lineItems: [ACCREC_LINE] },
    field: 'contactId',
  },
  {
    tool: xero.createManualJournal,
    what: 'an unbalanced signed journal',
    args: {
      narration: 'x',
      manualJournalLines: [
        { lineAmount: 100, accountCode: '445' },
        { lineAmount: -90, accountCode: '800' },
      ],
    },
    field: 'manualJournalLines',
  },
  {
    tool: xero.createManualJournal,
    what: 'a one-line journal',
    args: { narration: 'x', manualJournalLines: [{ lineAmount: 100, accountCode: '445' }] },
    field: 'manualJournalLines',
  },
  {
    tool: xero.updateInvoice,
    what: 'an invoice update naming no invoice',
    args: { dueDate: '2025-04-30' },
    field: 'invoiceId',
  },
  {
    tool: xero.apiInvoices,
    what: 'an invoice due on 30 February',
    args: { Type: 'ACCREC', Contact: { ContactID: XERO_CONTACT }, DueDate: '2025-02-30' },
    field: 'DueDate',
  },
  {
    tool: xero.apiPayment,
    what: 'a negative payment',
    args: { Invoice: { InvoiceNumber: 'INV-0001' }, Account: { Code: '090' }, Amount: -32.06 },
    field: 'Amount',
  },
  {
    tool: xero.apiBankTransfer,
    what: 'a transfer without its destination',
    args: { FromBankAccount: { Code: '090' }, Amount: 20 },
    field: 'ToBankAccount',
  },
  {
    tool: xero.apiBankTransfer,
    what: 'a transfer of zero',
    args: { FromBankAccount: { Code: '090' }, ToBankAccount: { Code: '091' }, Amount: 0 },
    field: 'Amount',
  },
  {
    tool: qbo.createJournalEntry,
    what: 'an unbalanced journal entry',
    args: {
      journalEntry: {
        TxnDate: '2025-01-31',
        Line: [
          {
            Amount: 5000,
            DetailType: 'JournalEntryLineDetail',
            JournalEntryLineDetail: { PostingType: 'Debit', AccountRef: { value: '39' } },
          },
          {
            Amount: 4000,
            DetailType: 'JournalEntryLineDetail',
            JournalEntryLineDetail: { PostingType: 'Credit', AccountRef: { value: '40' } },
          },
        ],
      },
    },
    field: 'journalEntry.Line',
  },
  {
    tool: qbo.createBill,
    what: 'a bill with no lines',
    args: { bill: { VendorRef: { value: '56' }, Line: [] } },
    field: 'bill.Line',
  },
  {
    tool: qbo.createBill,
    what: 'a bill without its vendor',
    args: {
      bill: {
        Line: [{ Amount: 1, DetailType: 'AccountBasedExpenseLineDetail', AccountRef: { value: '7' } }],
      },
    },
    field: 'bill.VendorRef',
  },
  {
    tool: qbo.receivePayment,
    what: 'a payment without its amount',
    args: { customer_id: '58', invoice_id: '145' },
    field: 'amount',
  },
  {
    tool: qbo.receivePayment,
    what: 'a payment of zero',
    args: { customer_id: '58', amount: 0 },
    field: 'amount',
  },
  {
    tool: qbo.apiPayment,
    what: 'an API payment of zero',
    args: { TotalAmt: 0, CustomerRef: { value: '20' } },
    field: 'TotalAmt',
  },
  {
    tool: qbo.apiTransfer,
    what: 'a transfer without its source',
    args: { ToAccountRef: { value: '36' }, Amount: 120 },
    field: 'FromAccountRef',
  },
  {
    tool: qbo.apiPayment,
    what: 'a payment dated in month 13',
    args: { TotalAmt: 5, CustomerRef: { value: '3' }, CurrencyRef: { value: 'USD' }, TxnDate: '2025-13-01' },
    field: 'TxnDate',
  },
  {
    tool: stripe.createPrice,
    what: 'a negative price',
    args: { product: 'prod_1', unit_amount: -1200, currency: 'usd' },
    field: 'unit_amount',
  },
  {
    tool: stripe.createPrice,
    what: 'a price in a made-up currency',
    args: { product: 'prod_1', unit_amount: 1200, currency: 'dollars' },
    field: 'currency',
  },
  { tool: stripe.createRefund, what: 'a refund of nothing', args: { amount: 1000 }, field: 'payment_intent' },
  {
    tool: stripe.createRefund,
    what: 'a negative refund',
    args: { payment_intent: 'pi_1', amount: -5 },
    field: 'amount',
  },
  {
    tool: zoho.createJournal,
    what: 'an unbalanced journal',
    args: {
      journal_date: '2025-01-31',
      line_items: [
        { account_id: 'a', debit_or_credit: 'debit', amount: 25000 },
        { account_id: 'b', debit_or_credit: 'credit', amount: 20000 },
      ],
    },
    field: 'line_items',
  },
  {
    tool: zoho.createCustomerPayment,
    what: 'a payment applied to an empty list',
    args: { customer_id: 'c', amount: 450, date: '2025-02-10', account_id: 'a', invoices: [] },
    field: 'invoices',
  },
  {
    tool: zoho.createCustomerPayment,
    what: 'a payment without its deposit account',
    args: { customer_id: 'c', amount: 450, date: '2025-02-10' },
    field: 'account_id',
  },
  {
    tool: zoho.createInvoice,
    what: 'an invoice with no lines',
    args: { customer_id: 'c', date: '2025-02-01', line_items: [] },
    field: 'line_items',
  },
  { tool: zoho.voidInvoice, what: 'a void naming no invoice', args: {}, field: 'invoice_id' },
  {
    tool: zoho.createExpense,
    what: 'an expense of zero',
    args: { account_id: 'a', paid_through_account_id: 'b', date: '2025-02-05', amount: 0 },
    field: 'amount',
  },
  {
    tool: odoo.createRecord,
    what: 'a negative payment in generic values',
    args: { model: 'account.payment', values: { payment_type: 'inbound', partner_id: 7, amount: -1150 } },
    field: 'values.amount',
  },
  {
    tool: odoo.createInvoice,
    what: 'an invoice line without its price',
    args: { partner_id: 7, lines: [{ name: 'Desk' }] },
    field: 'lines[0].price_unit',
  },
  {
    tool: odoo.registerPayment,
    what: 'a payment naming no invoice',
    args: { amount: 200 },
    field: 'invoice_id',
  },
];
