/**
 * Key ratios from figures the books already hold. Each function gives back its value, the formula in words
 * and the inputs it used, so an answer can show its working. Money is rounded to the paisa; ratios are not
 * rounded. A ratio without a meaningful denominator is null, never Infinity or NaN.
 */

import { toPaise } from './compare.ts';

/** A computed figure with its working. */
export interface Kpi<I> {
  value: number | null;
  formula: string;
  inputs: I;
}

function ratio(numerator: number, denominator: number): number | null {
  return denominator === 0 ? null : numerator / denominator;
}

function paisa(rupees: number): number {
  return toPaise(rupees) / 100;
}

/** Gross margin % = (income − cost of sales) ÷ income × 100; null without income. */
export function grossMargin(inputs: { income: number; costOfSales: number }): Kpi<{
  income: number;
  costOfSales: number;
  grossProfit: number;
}> {
  const grossProfit = paisa(inputs.income - inputs.costOfSales);
  const r = ratio(grossProfit, inputs.income);
  return {
    value: r === null ? null : r * 100,
    formula: '(income − cost of sales) ÷ income × 100',
    inputs: { income: inputs.income, costOfSales: inputs.costOfSales, grossProfit },
  };
}

/** Net margin % = net profit ÷ income × 100; null without income. */
export function netMargin(inputs: {
  income: number;
  netProfit: number;
}): Kpi<{ income: number; netProfit: number }> {
  const r = ratio(inputs.netProfit, inputs.income);
  return { value: r === null ? null : r * 100, formula: 'net profit ÷ income × 100', inputs: { ...inputs } };
}

/**
 * Days sales outstanding = receivables ÷ credit sales × days in the period: how many days of credit sales are
 * still to be collected. Null without credit sales.
 */
export function dso(inputs: { receivables: number; creditSales: number; days: number }): Kpi<{
  receivables: number;
  creditSales: number;
  days: number;
}> {
  const r = ratio(inputs.receivables, inputs.creditSales);
  return {
    value: r === null ? null : r * inputs.days,
    formula: 'receivables ÷ credit sales × days in period',
    inputs: { ...inputs },
  };
}

/** Days payables outstanding = payables ÷ purchases × days in the period. Null without purchases. */
export function dpo(inputs: { payables: number; purchases: number; days: number }): Kpi<{
  payables: number;
  purchases: number;
  days: number;
}> {
  const r = ratio(inputs.payables, inputs.purchases);
  return {
    value: r === null ? null : r * inputs.days,
    formula: 'payables ÷ purchases × days in period',
    inputs: { ...inputs },
  };
}

/** Current ratio = current assets ÷ current liabilities; null when there are no current liabilities. */
export function currentRatio(inputs: { currentAssets: number; currentLiabilities: number }): Kpi<{
  currentAssets: number;
  currentLiabilities: number;
}> {
  return {
    value: ratio(inputs.currentAssets, inputs.currentLiabilities),
    formula: 'current assets ÷ current liabilities',
    inputs: { ...inputs },
  };
}

/** One month's cash in and out. */
export interface MonthCash {
  label: string;
  inflow: number;
  outflow: number;
}

/**
 * Cash burn per month = Σ (outflow − inflow) ÷ number of months, over the window given. A burn of zero or
 * less means the business is not burning cash (`burning` false). Null for an empty window.
 */
export function cashBurn(inputs: { months: readonly MonthCash[] }): Kpi<{
  months: MonthCash[];
  netOutflow: number;
  monthCount: number;
}> & { burning: boolean } {
  const paise = inputs.months.reduce((sum, m) => sum + toPaise(m.outflow) - toPaise(m.inflow), 0);
  const monthCount = inputs.months.length;
  const value = monthCount === 0 ? null : paisa(paise / 100 / monthCount);
  return {
    value,
    burning: value !== null && value > 0,
    formula: 'Σ (cash out − cash in) ÷ months',
    inputs: { months: inputs.months.map((m) => ({ ...m })), netOutflow: paise / 100, monthCount },
  };
}

/** Runway in months = cash ÷ monthly burn; null when the business is not burning cash (burn ≤ 0). */
export function runway(inputs: {
  cash: number;
  monthlyBurn: number;
}): Kpi<{ cash: number; monthlyBurn: number }> {
  return {
    value: inputs.monthlyBurn > 0 ? Math.max(0, inputs.cash) / inputs.monthlyBurn : null,
    formula: 'cash ÷ monthly burn',
    inputs: { ...inputs },
  };
}
