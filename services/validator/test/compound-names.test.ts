// A name that does more than one thing (`preview_and_post_journal` is a write: any write verb makes one) is
// checked by the rules of every change it names: a "read" verb in front never skips them.
import { classifyTool, type ToolDefinition } from '@munim/contracts';
import { describe, expect, it } from 'vitest';
import { SchemaCompiler, validateCall } from '../src/app.ts';

const compiler = new SchemaCompiler();

function tool(name: string, properties: Record<string, unknown>, required: string[]): ToolDefinition {
  const access = classifyTool(name);
  return {
    name,
    isWrite: access.kind === 'write',
    access,
    inputSchema: { type: 'object', properties, required, additionalProperties: false },
  };
}

const check = (definition: ToolDefinition, args: unknown) =>
  validateCall(definition, { tool: definition.name, args, callId: 'c', attempt: 1 }, compiler, new Set());

const lines = {
  type: 'array',
  items: {
    type: 'object',
    properties: { account_id: { type: 'string' }, debit: { type: 'number' }, credit: { type: 'number' } },
  },
};

describe('compound names bring the rules of each change they name', () => {
  const journal = (name: string) => tool(name, { date: { type: 'string' }, lines }, ['date', 'lines']);

  it.each([
    'preview_and_post_journal',
    'previewAndPostJournal',
    'journals.preview_then_post',
    'books__view_or_post_journal',
  ])('%s: debits 5,000 against credits 4,000 is blocked', (name) => {
    const outcome = check(journal(name), {
      date: '2026-11-01',
      lines: [
        { account_id: 'A', debit: 5000, credit: 0 },
        { account_id: 'B', debit: 0, credit: 4000 },
      ],
    });
    expect(outcome.isWrite).toBe(true);
    expect(outcome.status).toBe('blocked');
    expect(JSON.stringify(outcome.issues)).toMatch(/balance|debit|credit/i);
  });

  it('a balanced journal on the same tool passes', () => {
    const outcome = check(journal('preview_and_post_journal'), {
      date: '2026-11-01',
      lines: [
        { account_id: 'A', debit: 5000, credit: 0 },
        { account_id: 'B', debit: 0, credit: 5000 },
      ],
    });
    expect(outcome.status).toBe('passed');
  });

  it.each(['fetch_and_pay_bill', 'getBillThenPay', 'show_bill_plus_pay'])(
    '%s: a payment of zero is blocked',
    (name) => {
      const payment = tool(name, { bill_id: { type: 'string' }, amount: { type: 'number' } }, [
        'bill_id',
        'amount',
      ]);
      const outcome = check(payment, { bill_id: 'BILL-1', amount: 0 });
      expect(outcome.isWrite).toBe(true);
      expect(outcome.status).toBe('blocked');
      expect(check(payment, { bill_id: 'BILL-1', amount: 1200 }).status).toBe('passed');
    },
  );

  it('create_and_send_invoice needs what creating needs and what sending needs', () => {
    const invoice = tool(
      'create_and_send_invoice',
      {
        customer_id: { type: 'string' },
        lines: { type: 'array', items: { type: 'object' } },
        email: { type: 'string' },
      },
      ['customer_id', 'lines', 'email'],
    );
    const empty = check(invoice, { customer_id: 'C-1', lines: [], email: 'a@b.in' });
    expect(empty.status).toBe('blocked');
    expect(empty.missingFields).toContain('lines');
  });
});
