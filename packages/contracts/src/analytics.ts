import { z } from 'zod';

/**
 * The figures a finance person asks for that munim computes by code (on the fast path, with no
 * model): each names what to compute; the router reads it off the question, the agent computes it
 * from the books' own reports and records.
 */
export const ANALYTIC_MEASURES = [
  /** Who owes the business most (receivables by customer, largest first). */
  'receivables.top',
  /** What customers owe in total (and how much of it is overdue). */
  'receivables.total',
  /** Open invoices, overdue ones first; with a party, that customer's. */
  'receivables.overdue',
  /** Invoices falling due in a window ("due this week"). */
  'receivables.due',
  'payables.top',
  /** What the business owes its vendors in total (not only what is overdue). */
  'payables.total',
  'payables.overdue',
  /** Bills falling due in a window ("bills due this week"). */
  'payables.due',
  /** Cash and bank today, by account. */
  'cash.today',
  /** The next 13 weeks of cash: "will I run short of cash". */
  'cash.forecast',
  /** Sales (income) for a period, optionally against another. */
  'sales',
  /** Expenses for a period, optionally against another. */
  'expenses',
  /** Net (and gross) profit for a period, optionally against another. */
  'profit',
  /** GST payable for a period: output tax less input tax credit. */
  'gst.payable',
  /** Gross and net margin. */
  'kpi.margin',
  /** Days sales outstanding: how long customers take to pay. */
  'kpi.dso',
  /** Days payables outstanding: how long the business takes to pay. */
  'kpi.dpo',
  /** Current assets over current liabilities. */
  'kpi.current_ratio',
  /** Monthly cash burn and the months of cash left. */
  'kpi.runway',
  /** Expense lines and vendors at twice or more their usual, and payments out of pattern. */
  'anomalies',
  /** Budget against actual, where the books have budgets. */
  'budget',
] as const;
export const AnalyticMeasureSchema = z.enum(ANALYTIC_MEASURES);
export type AnalyticMeasure = z.infer<typeof AnalyticMeasureSchema>;

const IsoDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a YYYY-MM-DD day');

/** A span of days the question names, in the business's financial year and words. */
export const AnalyticPeriodSchema = z.object({
  from: IsoDay,
  to: IsoDay,
  grain: z.enum(['day', 'week', 'month', 'quarter', 'fy', 'year', 'custom']),
  /** In words: "November 2026", "Q2 FY 2026-27", "FY 2025-26 to date". */
  label: z.string().max(120),
});
export type AnalyticPeriod = z.infer<typeof AnalyticPeriodSchema>;

/** The reports and lists of the books an analytic is computed from, whatever a server calls them. */
export const BOOK_ROLES = [
  'profit_and_loss',
  'balance_sheet',
  'aged_receivables',
  'aged_payables',
  'cash_flow',
  'gst_summary',
  'invoices',
  'bills',
  'payments',
  'accounts',
  /** The budgets the books keep, by account and period. */
  'budgets',
] as const;
export const BookRoleSchema = z.enum(BOOK_ROLES);
export type BookRole = z.infer<typeof BookRoleSchema>;

/** One call of an analytic's pipeline: which report or list it fetches, and for which days. */
export const AnalyticInputSchema = z.object({
  role: BookRoleSchema,
  /** The days a period report covers (profit and loss, cash flow, GST). */
  period: AnalyticPeriodSchema.optional(),
  /** The day a position is taken on (balance sheet, aging). */
  asOf: IsoDay.optional(),
});
export type AnalyticInput = z.infer<typeof AnalyticInputSchema>;

/**
 * What the router read off a finance question (`RouteDecision.extractedEntities.analytic`): the
 * measure, the period (none: the measure's natural one, e.g. today for what is owed), what to
 * compare it with, and a party the answer must be limited to. An answer that cannot apply the
 * party never falls back to the unfiltered figure.
 */
export const AnalyticRequestSchema = z.object({
  measure: AnalyticMeasureSchema,
  period: AnalyticPeriodSchema.optional(),
  /** Against the period just before, or the same period a year earlier. */
  compare: z.enum(['previous', 'last_year']).optional(),
  /** The customer or vendor named ("for Acme Corp"), as written. */
  party: z.string().min(1).max(200).optional(),
  /** How many rows a ranking shows ("top 5"). */
  top: z.number().int().min(1).max(100).optional(),
  /** The day the question was asked, in the business's time zone. */
  today: IsoDay,
  /** The planned pipeline's calls, in order: what each result is. */
  inputs: z.array(AnalyticInputSchema).max(24),
});
export type AnalyticRequest = z.infer<typeof AnalyticRequestSchema>;
