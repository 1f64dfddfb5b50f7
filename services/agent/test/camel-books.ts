// A small company's books behind tools named in camelCase (listContacts, recordPayment, getInvoice)
// with records shaped unlike the demo books (`displayName`, `taxDetails.gstNumber`,
// `customer: { id, name }`, `total: { amount, currencyCode }`, `customerRef`, `docNumber`,
// `postedOn`), and the new records a duplicate check is measured by: 20 that repeat a record of
// these books in another spelling, 20 that do not.
import type { ToolDefinition } from '@munim/contracts';

type Args = Record<string, unknown>;

const prop = (type: string, extra: Args = {}) => ({ type, ...extra });
/** A tool of a server's registry, its properties as given: a read unless `write` says otherwise. */
export function tool(name: string, properties: Args, opts: { write?: boolean; required?: string[] } = {}) {
  const def: ToolDefinition = {
    name,
    inputSchema: { type: 'object', properties, ...(opts.required ? { required: opts.required } : {}) },
    isWrite: opts.write === true,
  };
  return def;
}

const contacts = [
  { id: 'ct_1', name: 'Bolt Ltd', kind: 'vendor', gst: '27AABCB1234C1Z5' },
  { id: 'ct_2', name: 'Sharma & Verma Associates', kind: 'customer', gst: '07AAFFS5678D1Z3' },
  { id: 'ct_3', name: 'Crux Traders Private Limited', kind: 'customer', gst: '24AAKCC9012E1Z1' },
  { id: 'ct_4', name: 'Deccan Foods', kind: 'customer', pan: 'AAGCD3456F' },
  { id: 'ct_5', name: 'Evergreen Agro LLP', kind: 'vendor', gst: '29AAEFE7890G1Z6' },
  { id: 'ct_6', name: 'Fortune Steels Pvt. Ltd.', kind: 'vendor' },
  { id: 'ct_7', name: 'Ganesh Medical Stores', kind: 'customer' },
  { id: 'ct_8', name: 'Himalaya Pharma Co.', kind: 'customer', gst: '05AACCH2222H1Z9' },
].map((c) => ({
  contactId: c.id,
  displayName: c.name,
  kind: c.kind,
  taxDetails: { gstNumber: c.gst ?? null, panNumber: c.pan ?? c.gst?.slice(2, 12) ?? null },
  createdOn: '2025-06-03',
}));
const nameOf = (id: unknown) => contacts.find((c) => c.contactId === id)?.displayName ?? null;

const payments = [
  { id: 'pay_1', customer: 'ct_7', amount: 4500, date: '2026-11-12', ref: 'UTR123456' },
  { id: 'pay_2', customer: 'ct_2', amount: 18000, date: '2026-11-05', ref: 'UTR555000' },
  { id: 'pay_3', customer: 'ct_8', amount: 72000, date: '2026-10-30', ref: 'CHQ-004512' },
].map((p) => ({
  paymentId: p.id,
  txnDate: p.date,
  customer: { id: p.customer, name: nameOf(p.customer) },
  total: { amount: p.amount, currencyCode: 'INR' },
  referenceNumber: p.ref,
  state: 'posted',
}));

const invoices = [
  { id: 'inv_1', number: 'SI/2026/041', customer: 'ct_2', total: 118000, date: '2026-11-02' },
  { id: 'inv_2', number: 'SI/2026/042', customer: 'ct_4', total: 5900, date: '2026-11-10' },
].map((i) => ({
  invoiceId: i.id,
  docNumber: i.number,
  txnDate: i.date,
  customerRef: { value: i.customer, name: nameOf(i.customer) },
  totalAmt: i.total,
  balance: i.total,
}));

const journals = [
  {
    journalId: 'jr_1',
    postedOn: '2026-11-15',
    memo: 'Depreciation November',
    lines: [
      { accountId: 'acc_depr', debit: 12500, credit: 0 },
      { accountId: 'acc_accum', debit: 0, credit: 12500 },
    ],
    totalDebit: 12500,
  },
];

const TOOLS: ToolDefinition[] = [
  tool('listContacts', {
    kind: prop('string'),
    cursor: prop('string'),
    limit: prop('integer', { maximum: 100 }),
  }),
  tool('searchContacts', { query: prop('string') }, { required: ['query'] }),
  tool(
    'createContact',
    {
      displayName: prop('string'),
      kind: prop('string'),
      gstNumber: prop('string'),
      panNumber: prop('string'),
    },
    { write: true, required: ['displayName'] },
  ),
  tool('listPayments', {
    customerId: prop('string'),
    since: prop('string'),
    until: prop('string'),
    limit: prop('integer', { maximum: 100 }),
  }),
  tool(
    'recordPayment',
    {
      customerId: prop('string'),
      amount: prop('number'),
      paymentDate: prop('string'),
      referenceNumber: prop('string'),
    },
    { write: true, required: ['customerId', 'amount'] },
  ),
  tool('listInvoices', { customerId: prop('string'), limit: prop('integer', { maximum: 100 }) }),
  tool('getInvoice', { docNumber: prop('string') }, { required: ['docNumber'] }),
  tool(
    'createInvoice',
    { customerRef: prop('object'), docNumber: prop('string'), txnDate: prop('string'), lines: prop('array') },
    { write: true, required: ['customerRef', 'lines'] },
  ),
  tool('listJournals', { since: prop('string'), until: prop('string'), limit: prop('integer') }),
  tool(
    'createJournal',
    { postedOn: prop('string'), memo: prop('string'), lines: prop('array') },
    { write: true, required: ['lines'] },
  ),
];

const within = (date: string, args: Args) =>
  (typeof args.since !== 'string' || date >= args.since) &&
  (typeof args.until !== 'string' || date <= args.until);

function read(name: string, args: Args): unknown {
  switch (name) {
    case 'listContacts':
      return { contacts: contacts.filter((c) => !args.kind || c.kind === args.kind), nextCursor: null };
    case 'searchContacts': {
      const q = String(args.query).toLowerCase();
      const hits = contacts.filter((c) => JSON.stringify(c).toLowerCase().includes(q));
      return { results: hits };
    }
    case 'listPayments':
      return {
        items: payments.filter(
          (p) => (!args.customerId || p.customer.id === args.customerId) && within(p.txnDate, args),
        ),
        hasMore: false,
      };
    case 'listInvoices':
      return { items: invoices.filter((i) => !args.customerId || i.customerRef.value === args.customerId) };
    case 'getInvoice': {
      const found = invoices.find((i) => i.docNumber === args.docNumber);
      if (!found) throw new Error('Invoice not found');
      return found;
    }
    case 'listJournals':
      return { items: journals.filter((j) => within(j.postedOn, args)) };
    default:
      throw new Error(`${name} was not expected`);
  }
}

const contact = (displayName: string, extra: Args = {}) => ({
  what: `contact ${displayName}`,
  tool: 'createContact',
  args: { displayName, ...extra },
});
const payment = (
  what: string,
  customerId: string,
  amount: number,
  paymentDate: string,
  extra: Args = {},
) => ({
  what,
  tool: 'recordPayment',
  args: { customerId, amount, paymentDate, ...extra },
});
const invoice = (what: string, customer: string, amount: number, txnDate: string, extra: Args = {}) => ({
  what,
  tool: 'createInvoice',
  args: { customerRef: { value: customer }, txnDate, lines: [{ description: 'Goods', amount }], ...extra },
});
const journal = (
  what: string,
  postedOn: string,
  memo: string,
  accounts: [string, string],
  amount: number,
) => ({
  what,
  tool: 'createJournal',
  args: {
    postedOn,
    memo,
    lines: [
      { accountId: accounts[0], debit: amount, credit: 0 },
      { accountId: accounts[1], debit: 0, credit: amount },
    ],
  },
});

/** The server (its tools and how it answers reads) and the cases measured on it. */
export function camelBooks() {
  return {
    tools: TOOLS,
    books: read,
    duplicates: [
      contact('Bolt Limited', { kind: 'vendor' }),
      contact('BOLT LTD.'),
      contact('Sharma and Verma Associates'),
      contact('sharma & verma associates pvt ltd'),
      contact('Crux Traders Pvt Ltd'),
      contact('M/s Crux Traders'),
      contact('Evergreen Agro L.L.P.'),
      contact('Fortune Steels Private Limited'),
      contact('Himalaya Pharma Company'),
      contact('Ganesh  Medical   Stores'),
      contact('HP Distributors', { gstNumber: '05AACCH2222H1Z9' }),
      contact('Deccan Foods & Beverages', { panNumber: 'AAGCD3456F' }),
      contact('DECCAN FOODS'),
      payment('the same payment two days later', 'ct_7', 4500, '2026-11-14'),
      payment('the same payment two days earlier', 'ct_7', 4500, '2026-11-10'),
      payment('a payment with the same reference', 'ct_2', 9999, '2026-11-25', {
        referenceNumber: 'utr555000',
      }),
      payment('the same cheque two days later, another reference', 'ct_8', 72000, '2026-11-01', {
        referenceNumber: 'CHQ-004999',
      }),
      invoice('an invoice number again', 'ct_2', 500, '2026-11-20', { docNumber: 'SI/2026/041' }),
      invoice('the same invoice two days later', 'ct_4', 5900, '2026-11-12'),
      journal(
        'the same journal two days later',
        '2026-11-17',
        'Depreciation for November',
        ['acc_depr', 'acc_accum'],
        12500,
      ),
    ],
    distinct: [
      contact('Bolt Robotics'),
      contact('Sharma Associates'),
      contact('Crux Logistics Pvt Ltd'),
      contact('Evergreen Nurseries LLP'),
      contact('Fortune Textiles'),
      contact('Himalaya Travels', { gstNumber: '05AADCH7777K1Z4' }),
      contact('Ganesh Traders'),
      contact('Deccan Foods', { panNumber: 'AAGCD9999X' }),
      contact('Indus Valley Exports'),
      contact('Jupiter Solar Pvt Ltd', { panNumber: 'AAJCJ1111M' }),
      payment('another amount', 'ct_7', 4600, '2026-11-12'),
      payment('the same amount from another customer', 'ct_2', 4500, '2026-11-12'),
      payment('the same payment eight days later', 'ct_7', 4500, '2026-11-20'),
      payment('the same cheque six weeks later', 'ct_8', 72000, '2026-12-15'),
      payment('the same amount and day, another customer and reference', 'ct_4', 18000, '2026-11-05', {
        referenceNumber: 'UTR777111',
      }),
      invoice('a new invoice number', 'ct_2', 500, '2026-11-20', { docNumber: 'SI/2026/043' }),
      invoice('the same invoice a month later', 'ct_4', 5900, '2026-12-20'),
      invoice('the same amount and day for another customer', 'ct_7', 5900, '2026-11-10'),
      journal(
        'the same amount to other accounts',
        '2026-11-15',
        'Bonus provision',
        ['acc_salary', 'acc_payable'],
        12500,
      ),
      journal(
        'next month’s depreciation',
        '2026-12-15',
        'Depreciation December',
        ['acc_depr', 'acc_accum'],
        12500,
      ),
    ],
  };
}
