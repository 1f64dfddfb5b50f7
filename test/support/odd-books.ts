// Accounting MCP servers whose records are shaped unlike ours, for the confirmation cards:
// "ledgerly" keeps an invoice's number in `InvoiceId` and its customer in `Customer`,
// dated `IssuedOn`; "quickly" is shaped like QuickBooks Online (`Id`, `DocNumber`, `TxnDate`,
// `CustomerRef: { value, name }`, `TotalAmt`, payments linked through `Line[].LinkedTxn`). Every
// tools/call received is recorded, so a test can assert what was never sent. Served over
// Streamable HTTP with `serveHttp`; over stdio when node runs this file (`odd-books.ts <shape>`).
import { fileURLToPath } from 'node:url';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { type Args, type FixtureSpec, jsonResult, serveStdio } from './mcp-fixture.ts';

export const SHAPES = ['ledgerly', 'quickly'] as const;
export type Shape = (typeof SHAPES)[number];

export const isShape = (value: unknown): value is Shape => SHAPES.includes(value as Shape);

interface OddTool {
  tool: Tool;
  run(args: Args): unknown;
}

const str = { type: 'string' };
const num = { type: 'number' };

class NotFound extends Error {}

function ledgerly(): OddTool[] {
  const invoices = [
    { InvoiceId: 'INV-042', Customer: 'Bolt Ltd', Total: 8000, IssuedOn: '2026-01-08', Status: 'open' },
    { InvoiceId: 'INV-043', Customer: 'Acme Corp', Total: 12000, IssuedOn: '2026-01-10', Status: 'open' },
  ];
  const accounts = [
    { AccountId: 'ACC-BANK', AccountName: 'HDFC Bank' },
    { AccountId: 'ACC-CASH', AccountName: 'Petty Cash' },
  ];
  const find = (id: unknown) => {
    const hit = invoices.find((i) => i.InvoiceId === id);
    if (!hit) throw new NotFound(`Invoice ${String(id)} not found`);
    return hit;
  };
  return [
    {
      tool: {
        name: 'list_invoices',
        description: 'Lists the invoices.',
        inputSchema: { type: 'object', properties: { Status: str } },
      },
      run: () => ({ invoices }),
    },
    {
      tool: {
        name: 'get_invoice',
        description: 'One invoice by its id.',
        inputSchema: { type: 'object', properties: { InvoiceId: str }, required: ['InvoiceId'] },
      },
      run: (args) => find(args.InvoiceId),
    },
    {
      tool: {
        name: 'list_accounts',
        description: 'Lists the bank and cash accounts.',
        inputSchema: { type: 'object', properties: {} },
      },
      run: () => ({ accounts }),
    },
    {
      tool: {
        name: 'void_invoice',
        description: 'Voids an invoice.',
        inputSchema: { type: 'object', properties: { InvoiceId: str, Reason: str }, required: ['InvoiceId'] },
      },
      run: (args) => ({ ...find(args.InvoiceId), Status: 'void' }),
    },
    {
      tool: {
        name: 'record_payment',
        description: 'Records a payment received against an invoice.',
        inputSchema: {
          type: 'object',
          properties: { InvoiceId: str, AccountId: str, Amount: num, Date: str },
          required: ['InvoiceId', 'AccountId', 'Amount'],
        },
      },
      run: (args) => ({ PaymentId: 'PAY-1', InvoiceId: find(args.InvoiceId).InvoiceId, Amount: args.Amount }),
    },
  ];
}

function quickly(): OddTool[] {
  const invoices = [
    {
      Id: '129',
      SyncToken: '0',
      DocNumber: '1036',
      TxnDate: '2026-02-02',
      CustomerRef: { value: '58', name: 'Bolt Ltd' },
      TotalAmt: 4200,
      Balance: 4200,
      CurrencyRef: { value: 'INR', name: 'Indian Rupee' },
    },
    {
      Id: '130',
      SyncToken: '0',
      DocNumber: '1037',
      TxnDate: '2026-02-03',
      DueDate: '2026-03-05',
      CustomerRef: { value: '24', name: 'Sonnenschein Family Store' },
      TotalAmt: 36207.5,
      Balance: 36207.5,
      CurrencyRef: { value: 'INR', name: 'Indian Rupee' },
      Line: [{ Id: '1', LineNum: 1, Amount: 36207.5, DetailType: 'SalesItemLineDetail' }],
    },
  ];
  const find = (id: unknown) => {
    const hit = invoices.find((i) => i.Id === id);
    if (!hit) throw new NotFound(`Object Not Found: Invoice ${String(id)}`);
    return hit;
  };
  const ref = { type: 'object', properties: { value: str, name: str }, required: ['value'] };
  return [
    {
      tool: {
        name: 'list_sales_invoices',
        description: 'Lists the sales invoices.',
        inputSchema: { type: 'object', properties: { Status: str } },
      },
      run: () => ({ QueryResponse: { Invoice: invoices, startPosition: 1, maxResults: invoices.length } }),
    },
    {
      tool: {
        name: 'void_sales_invoice',
        description: 'Voids an invoice.',
        inputSchema: {
          type: 'object',
          properties: { Id: str, SyncToken: str },
          required: ['Id', 'SyncToken'],
        },
      },
      run: (args) => ({ Invoice: { ...find(args.Id), Balance: 0 } }),
    },
    {
      tool: {
        name: 'receive_payment',
        description: 'Records a payment from a customer, linked to the invoices it pays.',
        inputSchema: {
          type: 'object',
          properties: {
            CustomerRef: ref,
            TotalAmt: num,
            TxnDate: str,
            Line: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  Amount: num,
                  LinkedTxn: {
                    type: 'array',
                    items: { type: 'object', properties: { TxnId: str, TxnType: str } },
                  },
                },
              },
            },
          },
          required: ['CustomerRef', 'TotalAmt'],
        },
      },
      run: (args) => ({ Payment: { Id: '901', TotalAmt: args.TotalAmt } }),
    },
  ];
}

const TOOLS_OF: Record<Shape, () => OddTool[]> = { ledgerly, quickly };

/** The names of the tools a shape's server lists. */
export function oddToolNames(shape: Shape): string[] {
  return TOOLS_OF[shape]().map((t) => t.tool.name);
}

/** The server of a shape (no input validation, like a real accounting API), to serve with `serveHttp` or over stdio. */
export function oddBooks(shape: Shape): FixtureSpec {
  const tools = new Map(TOOLS_OF[shape]().map((t) => [t.tool.name, t]));
  return {
    name: `odd-books-${shape}`,
    tools: () => [...tools.values()].map((t) => t.tool),
    call(name: string, args: Args): CallToolResult {
      const entry = tools.get(name);
      if (!entry) return { isError: true, content: [{ type: 'text', text: `Unknown tool: ${name}` }] };
      try {
        return jsonResult(entry.run(args));
      } catch (error) {
        if (!(error instanceof NotFound)) throw error;
        return { isError: true, content: [{ type: 'text', text: error.message }] };
      }
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const shape = process.argv[2];
  if (!isShape(shape)) {
    process.stderr.write(`usage: odd-books.ts <${SHAPES.join('|')}>\n`);
    process.exit(2);
  }
  await serveStdio(oddBooks(shape));
}
