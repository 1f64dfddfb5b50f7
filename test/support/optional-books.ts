// An accounting MCP server whose payment tools leave fields optional, as QuickBooks' and Zoho
// Books' servers do: `receive_payment` may omit the deposit account ("omit to let QuickBooks use
// its own default") and a vendor payment may omit the paid-through account and the bills it pays
// (an advance). Snake-case names over Streamable HTTP by default; camelCase names when spawned
// over stdio (`node test/support/optional-books.ts camel`), each call appended as a JSON line to
// FIXTURE_CALL_LOG. It records every call received, so a test can assert what was never sent.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { type Args, type FixtureSpec, jsonResult, serveStdio } from './mcp-fixture.ts';

export type { ReceivedCall } from './mcp-fixture.ts';

/** The naming style of the server's tools and fields. */
export type OptionalBooksStyle = 'snake' | 'camel';

const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The server's tool names in a style: `receive_payment` or `receivePayment`. */
export function optionalBooksNames(style: OptionalBooksStyle) {
  const name = (snake: string) => (style === 'snake' ? snake : camel(snake));
  return {
    listInvoices: name('list_invoices'),
    receivePayment: name('receive_payment'),
    createVendorPayment: name('create_vendor_payment'),
    field: name,
  };
}

const INVOICES = [
  {
    Id: '145',
    DocNumber: '1037',
    CustomerRef: { value: '58', name: 'Acme Corp' },
    TxnDate: '2025-05-02',
    TotalAmt: 5000,
    Balance: 5000,
  },
  {
    Id: '146',
    DocNumber: '1038',
    CustomerRef: { value: '58', name: 'Acme Corp' },
    TxnDate: '2025-05-09',
    TotalAmt: 1200,
    Balance: 1200,
  },
];
const DEFAULT_DEPOSIT_ACCOUNT = '35';

function tools(style: OptionalBooksStyle): Tool[] {
  const f = optionalBooksNames(style).field;
  const names = optionalBooksNames(style);
  const text = (description: string) => ({ type: 'string', description });
  return [
    {
      name: names.listInvoices,
      description: 'Lists open invoices with their customer, number, date and balance.',
      inputSchema: { type: 'object', properties: { [f('customer_id')]: text('Only this customer') } },
    },
    {
      name: names.receivePayment,
      description: 'Records a customer payment and applies it to an invoice.',
      inputSchema: {
        type: 'object',
        properties: {
          [f('customer_id')]: text('QuickBooks customer Id'),
          amount: { type: 'number', exclusiveMinimum: 0, description: 'Amount received' },
          [f('invoice_id')]: text('Invoice to apply the payment to'),
          [f('payment_date')]: { type: 'string', format: 'date', description: 'Defaults to today' },
          [f('deposit_to_account')]: text(
            'Account Id the money is deposited to; omit to let QuickBooks use its own default',
          ),
        },
        required: [f('customer_id'), 'amount'],
      },
    },
    {
      name: names.createVendorPayment,
      description: 'Records a payment to a vendor; without bills it is an advance.',
      inputSchema: {
        type: 'object',
        properties: {
          [f('vendor_id')]: text('Vendor Id'),
          amount: { type: 'number', description: 'Amount paid' },
          date: { type: 'string', format: 'date' },
          [f('paid_through_account_id')]: text('Bank or cash account paid from; omit for the default'),
          bills: {
            type: 'array',
            description: 'Bills the payment settles; omit for an advance',
            items: {
              type: 'object',
              properties: { [f('bill_id')]: { type: 'string' }, [f('amount_applied')]: { type: 'number' } },
              required: [f('bill_id'), f('amount_applied')],
            },
          },
        },
        required: [f('vendor_id'), 'amount'],
      },
    },
  ];
}

function run(style: OptionalBooksStyle, name: string, args: Args): CallToolResult {
  const names = optionalBooksNames(style);
  const f = names.field;
  const reply = jsonResult;
  if (name === names.listInvoices) return reply({ Invoice: INVOICES });
  if (name === names.receivePayment)
    return reply({
      Payment: {
        Id: randomUUID().slice(0, 8),
        CustomerRef: { value: args[f('customer_id')] },
        TotalAmt: args.amount,
        DepositToAccountRef: { value: args[f('deposit_to_account')] ?? DEFAULT_DEPOSIT_ACCOUNT },
      },
    });
  if (name === names.createVendorPayment)
    return reply({ vendorpayment: { payment_id: randomUUID().slice(0, 8), amount: args.amount } });
  return { isError: true, content: [{ type: 'text', text: `Unknown tool: ${name}` }] };
}

/** The server in `style`, to serve with `serveHttp` or over stdio. */
export function optionalBooks(style: OptionalBooksStyle): FixtureSpec {
  return {
    name: `optional-books-${style}`,
    tools: () => tools(style),
    call: (name, args) => run(style, name, args),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await serveStdio(optionalBooks(process.argv[2] === 'camel' ? 'camel' : 'snake'));
