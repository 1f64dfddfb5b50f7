// The public surface of @munim/finance: each module exports its own.

export {
  type ExpenseLineFinding,
  type PaymentFinding,
  type PaymentPatternOptions,
  paymentsOutOfPattern,
  type UnusualExpenseOptions,
  type UnusualExpenses,
  unusualExpenses,
} from './anomalies.ts';
export { type BudgetLine, type BudgetVariance, type BudgetVsActual, budgetVsActual } from './budget.ts';
export { type CashAccount, type CashToday, cashToday, type Movement } from './cash.ts';
export {
  type CashForecast,
  cashForecast,
  type ForecastInput,
  type ForecastItem,
  type ForecastWeek,
  type RecurringExpense,
} from './forecast.ts';
export {
  type DaysLate,
  type DocLine,
  type DueIn,
  dueIn,
  type OpenDoc,
  type OwedBy,
  owedBy,
  type PartyBalance,
  portfolioDaysLate,
  type Settlement,
  topDebtors,
  usualDaysLate,
} from './receivables.ts';
