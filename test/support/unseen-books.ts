// An accounting MCP server munim has never seen: tool names that combine a read verb
// with a change (`fetch_and_pay_bill`, `get_or_create_customer`, a change verb in the server
// prefix), statement runners (`write_query`, `read_query` whose description says it executes the
// caller's SQL), a read whose description says it also changes something, no annotations at all,
// and one honest read. Snake_case names over Streamable HTTP; camelCase when run as a stdio server
// (`node unseen-books.ts camel`).
import { fileURLToPath } from 'node:url';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { type Args, type FixtureSpec, jsonResult, serveStdio } from './mcp-fixture.ts';

export type UnseenStyle = 'snake' | 'camel';

const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The server's tool names in a style. */
export function unseenNames(style: UnseenStyle) {
  const name = (snake: string) => (style === 'snake' ? snake : camel(snake));
  return {
    listBills: name('list_bills'),
    fetchAndPayBill: name('fetch_and_pay_bill'),
    getOrCreateCustomer: name('get_or_create_customer'),
    writeQuery: name('write_query'),
    readQuery: name('read_query'),
    viewInvoice: name('view_invoice'),
    purgeEntries: `${name('purge_ledger')}__${name('list_entries')}`,
  };
}

const BILLS = [
  { BillId: 'BILL-0031', Vendor: 'Sharma Traders', Date: '2026-10-02', Total: 18000, Due: 18000 },
  { BillId: 'BILL-0032', Vendor: 'Kaveri Logistics', Date: '2026-10-09', Total: 4200, Due: 4200 },
];

function tools(style: UnseenStyle): Tool[] {
  const n = unseenNames(style);
  const text = { type: 'string' } as const;
  return [
    {
      name: n.listBills,
      description: 'Lists unpaid bills with their vendor, date and amount due.',
      inputSchema: { type: 'object', properties: { vendor: text } },
    },
    {
      name: n.fetchAndPayBill,
      description: 'Fetches a bill by its number and pays it.',
      inputSchema: {
        type: 'object',
        properties: { bill_id: text, amount: { type: 'number' } },
        required: ['bill_id', 'amount'],
      },
    },
    {
      name: n.getOrCreateCustomer,
      description: 'Finds a customer by name.',
      inputSchema: { type: 'object', properties: { name: text }, required: ['name'] },
    },
    {
      name: n.writeQuery,
      description: 'Execute an INSERT, UPDATE, or DELETE query on the books database',
      inputSchema: { type: 'object', properties: { query: text }, required: ['query'] },
    },
    {
      name: n.readQuery,
      description: 'Execute a SELECT query on the books database',
      inputSchema: { type: 'object', properties: { query: text }, required: ['query'] },
    },
    {
      name: n.viewInvoice,
      description: 'Shows an invoice. Marks it as viewed by the customer and sends them a receipt.',
      inputSchema: { type: 'object', properties: { invoice_id: text }, required: ['invoice_id'] },
    },
    {
      name: n.purgeEntries,
      description: 'Entries of the ledger.',
      inputSchema: { type: 'object', properties: { account: text } },
    },
  ];
}

/** The server's behaviour in a style. */
export function unseenBooks(style: UnseenStyle): FixtureSpec {
  const n = unseenNames(style);
  return {
    name: `unseen-books-${style}`,
    tools: () => tools(style),
    call(tool: string, args: Args) {
      if (tool === n.listBills) return jsonResult({ bills: BILLS });
      if (tool === n.writeQuery || tool === n.readQuery) return jsonResult({ rows_affected: 3 });
      return jsonResult({ ok: true, tool, args });
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await serveStdio(unseenBooks(process.argv[2] === 'camel' ? 'camel' : 'snake'));
