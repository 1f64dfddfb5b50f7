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
  type Change,
  type ComparedFigure,
  changeOf,
  comparePnl,
  fromPaise,
  type MaterialityOptions,
  type PnlColumn,
  type PnlComparison,
  type PnlLine,
  type PnlSection,
  pnlTotalsPaise,
  type TotalKey,
  toPaise,
  type VarianceLine,
  variance,
} from './compare.ts';
export {
  type CashForecast,
  cashForecast,
  type ForecastInput,
  type ForecastItem,
  type ForecastWeek,
  type RecurringExpense,
} from './forecast.ts';
export {
  cashBurn,
  currentRatio,
  dpo,
  dso,
  grossMargin,
  type Kpi,
  type MonthCash,
  netMargin,
  runway,
} from './kpis.ts';
export { NUMBER_SCALES, NUMBER_WORDS, SAADE_WORDS } from './number-words.ts';
export { type PeriodReading, readPeriod } from './period-words.ts';
export {
  addDays,
  addMonths,
  calendarYear,
  compareDates,
  contains,
  customPeriod,
  dayPeriod,
  daysIn,
  daysInMonth,
  financialYearOf,
  fyName,
  fyPeriod,
  fyQuarter,
  fyStartYear,
  type Grain,
  isLeapYear,
  isoDate,
  monthPeriod,
  nextPeriod,
  type Period,
  parseDate,
  previousPeriod,
  quarterOf,
  samePeriodLastYear,
  spanLabel,
  toDate,
  weekOf,
} from './periods.ts';
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
