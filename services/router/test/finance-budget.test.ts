import type { ToolDefinition } from '@munim/contracts';
import { readPeriod } from '@munim/finance';
import { describe, expect, it } from 'vitest';
import { demoRegistry } from '../eval/evaluate.ts';
import { planAnalytic } from '../src/finance/plan.ts';
import { readFinanceQuestion } from '../src/finance/question.ts';
import { toolForRole } from '../src/finance/roles.ts';

const today = '2026-11-28';
const fyStartMonth = 4;

function plan(question: string, registry: readonly ToolDefinition[]) {
  const read = readFinanceQuestion(question);
  if (!read) return undefined;
  return planAnalytic(read, readPeriod(question, today, fyStartMonth), { today, fyStartMonth, registry });
}

const tool = (
  name: string,
  properties: Record<string, unknown> = {},
  required: string[] = [],
  isWrite = false,
): ToolDefinition => ({ name, inputSchema: { type: 'object', properties, required }, isWrite });

const dates = { FromDate: { type: 'string' }, ToDate: { type: 'string' } };

/** Xero's names: a prefix, PascalCase, a one-budget get by id beside the list. */
const XERO: ToolDefinition[] = [
  tool('xero__GetProfitAndLoss', dates),
  tool('xero__GetBudget', { BudgetID: { type: 'string' } }, ['BudgetID']),
  tool('xero__GetBudgets', { DateFrom: { type: 'string' }, DateTo: { type: 'string' } }),
];

/** Dotted names, a budgets list that takes no dates, and a write beside it. */
const DOTTED: ToolDefinition[] = [
  tool('reports.profitAndLoss', { start_date: { type: 'string' }, end_date: { type: 'string' } }),
  tool('budgets.create', { name: { type: 'string' } }, ['name'], true),
  tool('budgets.list'),
];

describe('budget against actual planned', () => {
  it('goes to the model when the books have no budgets tool', () => {
    expect(toolForRole('budgets', demoRegistry())).toBeUndefined();
    expect(plan('budget vs actual this quarter', demoRegistry())).toBeUndefined();
  });

  it('finds the budgets tool in any naming style, never a write or a one-budget get', () => {
    expect(toolForRole('budgets', XERO)).toMatchObject({
      tool: 'xero__GetBudgets',
      from: 'DateFrom',
      to: 'DateTo',
    });
    expect(toolForRole('budgets', DOTTED)?.tool).toBe('budgets.list');
    expect(toolForRole('budgets', [tool('get_budgets', { page: { type: 'integer' } })])?.tool).toBe(
      'get_budgets',
    );
    expect(toolForRole('budgets', [tool('budget_summary')])?.tool).toBe('budget_summary');
    expect(
      toolForRole('budgets', [tool('get_budget', { budget_id: { type: 'string' } }, ['budget_id'])]),
    ).toBeUndefined();
  });

  it('fetches the profit and loss and the budgets of the period named, with its days where the tool takes them', () => {
    const xero = plan('budget vs actual this quarter', XERO);
    expect(xero?.request).toMatchObject({
      measure: 'budget',
      period: { from: '2026-10-01', to: '2026-11-28', grain: 'quarter' },
    });
    expect(xero?.request.inputs.map((i) => i.role)).toEqual(['profit_and_loss', 'budgets']);
    expect(xero?.pipeline.map((c) => [c.tool, c.args])).toEqual([
      ['xero__GetProfitAndLoss', { FromDate: '2026-10-01', ToDate: '2026-11-28' }],
      ['xero__GetBudgets', { DateFrom: '2026-10-01', DateTo: '2026-11-28' }],
    ]);
    const dotted = plan('budget vs actual last month', DOTTED);
    expect(dotted?.pipeline.map((c) => [c.tool, c.args])).toEqual([
      ['reports.profitAndLoss', { start_date: '2026-10-01', end_date: '2026-10-31' }],
      ['budgets.list', {}],
    ]);
  });

  it('is this month to date when no period is named', () => {
    const p = plan('budget vs actual', XERO);
    expect(p?.request.period).toMatchObject({ from: '2026-11-01', to: '2026-11-28' });
    expect(p?.pipeline[1]?.args).toEqual({ DateFrom: '2026-11-01', DateTo: '2026-11-28' });
  });

  it('goes to the model when the books have budgets but no profit and loss it can date', () => {
    expect(plan('budget vs actual this quarter', DOTTED.slice(1))).toBeUndefined();
    expect(plan('budget vs actual this quarter', [tool('profit_loss'), tool('get_budgets')])).toBeUndefined();
  });
});
