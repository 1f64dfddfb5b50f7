import type { ToolDefinition } from '@munim/contracts';
import { readPeriod } from '@munim/finance';
import { describe, expect, it } from 'vitest';
import { demoRegistry } from '../eval/evaluate.ts';
import { planAnalytic } from '../src/finance/plan.ts';
import { readFinanceQuestion } from '../src/finance/question.ts';
import { toolForRole } from '../src/finance/roles.ts';

const today = '2026-11-28';
const fyStartMonth = 4;

function plan(question: string, registry: readonly ToolDefinition[] = demoRegistry()) {
  const read = readFinanceQuestion(question);
  if (!read) return undefined;
  return planAnalytic(read, readPeriod(question, today, fyStartMonth), { today, fyStartMonth, registry });
}

const tool = (
  name: string,
  properties: Record<string, unknown> = {},
  required: string[] = [],
): ToolDefinition => ({
  name,
  inputSchema: { type: 'object', properties, required },
  isWrite: false,
});

/** The same books behind another server's names and argument spellings. */
const OTHER_SERVER: ToolDefinition[] = [
  tool('books__reports.profitAndLoss', { start_date: { type: 'string' }, end_date: { type: 'string' } }),
  tool('books__reports.balanceSheet', { as_of: { type: 'string' } }),
  tool('books__reports.agedReceivables', { reportDate: { type: 'string' } }),
  tool('books__reports.agedPayables', { reportDate: { type: 'string' } }),
  tool('books__gst.summary', { periodStart: { type: 'string' }, periodEnd: { type: 'string' } }),
  tool('books__invoices.search', { customer: { type: 'string' } }),
  tool('books__invoices.get', { id: { type: 'string' } }, ['id']),
  { ...tool('books__invoices.create', { customer: { type: 'string' } }), isWrite: true },
];

describe('a finance question planned', () => {
  it('picks each report by what it is, whatever the server calls it, and never a write or a one-record get', () => {
    expect(toolForRole('profit_and_loss', demoRegistry())).toEqual({
      tool: 'get_profit_loss',
      from: 'FromDate',
      to: 'ToDate',
    });
    expect(toolForRole('profit_and_loss', OTHER_SERVER)).toEqual({
      tool: 'books__reports.profitAndLoss',
      from: 'start_date',
      to: 'end_date',
    });
    expect(toolForRole('balance_sheet', OTHER_SERVER)).toMatchObject({ asOf: 'as_of' });
    expect(toolForRole('invoices', OTHER_SERVER)?.tool).toBe('books__invoices.search');
    expect(toolForRole('gst_summary', OTHER_SERVER)).toMatchObject({ from: 'periodStart', to: 'periodEnd' });
  });

  it('sets the period’s days on the report, in the business’s financial year', () => {
    const sales = plan('what were my sales last month?');
    expect(sales?.request).toMatchObject({
      measure: 'sales',
      period: { from: '2026-10-01', to: '2026-10-31' },
    });
    expect(sales?.pipeline).toEqual([
      expect.objectContaining({
        tool: 'get_profit_loss',
        args: { FromDate: '2026-10-01', ToDate: '2026-10-31' },
      }),
    ]);
    const profit = plan('what is my profit this year?');
    expect(profit?.request.period).toMatchObject({ from: '2026-04-01', to: '2026-11-28' });
    const other = plan('what is my profit this year?', OTHER_SERVER);
    expect(other?.pipeline[0]?.args).toEqual({ start_date: '2026-04-01', end_date: '2026-11-28' });
  });

  it('fetches the period to compare with', () => {
    const compared = plan("compare this month's sales with last month");
    expect(compared?.request.compare).toBe('previous');
    expect(compared?.pipeline.map((c) => c.args)).toEqual([
      { FromDate: '2026-11-01', ToDate: '2026-11-28' },
      { FromDate: '2026-10-01', ToDate: '2026-10-28' },
    ]);
    expect(compared?.request.inputs.map((i) => i.role)).toEqual(['profit_and_loss', 'profit_and_loss']);
  });

  it('keeps a party, and sends a party to the model where the figure cannot be limited to it', () => {
    expect(plan('show overdue invoices for Acme Corp')?.request).toMatchObject({
      measure: 'receivables.overdue',
      party: 'Acme Corp',
    });
    expect(plan('what is the GST for Acme Corp this month')).toBeUndefined();
  });

  it('sends a question to the model when the books lack a report it needs, or cannot take its dates', () => {
    const noPnl = demoRegistry().filter((t) => t.name !== 'get_profit_loss');
    expect(plan('what is my profit this year?', noPnl)).toBeUndefined();
    const undated = [tool('profit_and_loss_report')];
    expect(plan('what were my sales last month?', undated)).toBeUndefined();
    expect(plan('budget vs actual this quarter')).toBeUndefined();
  });

  it('plans what is owed, cash and the forecast from the reports that hold them', () => {
    expect(plan('who owes me the most money?')?.pipeline.map((c) => c.tool)).toEqual([
      'get_aged_receivables_report',
    ]);
    expect(plan('how much do I owe my vendors?')?.pipeline.map((c) => c.tool)).toEqual([
      'get_aged_payables_report',
    ]);
    expect(plan('how much cash do I have?')?.pipeline[0]).toMatchObject({
      tool: 'get_balance_sheet',
      args: { AsOfDate: today },
    });
    expect(plan('will I run short of cash?')?.request.inputs.map((i) => i.role)).toEqual([
      'balance_sheet',
      'invoices',
      'bills',
      'payments',
    ]);
    expect(plan('how much GST do I owe this month?')?.pipeline[0]).toMatchObject({
      tool: 'get_gst_summary',
      args: { FromDate: '2026-11-01', ToDate: '2026-11-28' },
    });
  });
});
