import type {
  AnalyticInput,
  AnalyticMeasure,
  AnalyticPeriod,
  AnalyticRequest,
  BookRole,
  PlannedCall,
  ToolDefinition,
} from '@munim/contracts';
import {
  customPeriod,
  financialYearOf,
  monthPeriod,
  type Period,
  type PeriodReading,
  parseDate,
  previousPeriod,
  samePeriodLastYear,
  toDate,
} from '@munim/finance';
import type { FinanceQuestion } from './question.ts';
import { type RoleTool, toolForRole } from './roles.ts';

/** A finance question planned: what the agent computes, and the calls that fetch its inputs. */
export interface AnalyticPlan {
  request: AnalyticRequest;
  pipeline: PlannedCall[];
}

/** Measures a question may limit to one customer or vendor: the figure is then that party's. */
const PARTY_MEASURES: ReadonlySet<AnalyticMeasure> = new Set([
  'receivables.top',
  'receivables.total',
  'receivables.overdue',
  'receivables.due',
  'payables.top',
  'payables.total',
  'payables.overdue',
  'payables.due',
  'sales',
]);

const ROLE_WORDS: Readonly<Record<BookRole, string>> = {
  profit_and_loss: 'profit and loss',
  balance_sheet: 'balance sheet',
  aged_receivables: 'aged receivables',
  aged_payables: 'aged payables',
  cash_flow: 'cash flow statement',
  gst_summary: 'GST summary',
  invoices: 'invoices',
  bills: 'bills',
  payments: 'payments',
  accounts: 'chart of accounts',
  budgets: 'budgets',
};

const asAnalytic = (p: Period): AnalyticPeriod => ({
  from: p.from,
  to: p.to,
  grain: p.grain,
  label: p.label,
});

/**
 * One call: the role's tool with its dates set (and, for a list about one party, narrowed to it by
 * name where the tool can be); undefined when the tool cannot take the dates asked.
 */
function call(
  input: AnalyticInput,
  found: RoleTool,
  purpose: string,
  party?: string,
): PlannedCall | undefined {
  const args: Record<string, unknown> = {};
  if (party && found.search) args[found.search] = party;
  if (input.period && found.from && found.to) {
    args[found.from] = input.period.from;
    args[found.to] = input.period.to;
    // Budgets are read whole when the tool takes no dates: the agent keeps those covering the period.
  } else if (input.period && input.role !== 'budgets') return undefined;
  if (input.asOf && found.asOf) args[found.asOf] = input.asOf;
  if (found.pageSize) args[found.pageSize.name] = found.pageSize.max;
  const when = input.period ? ` for ${input.period.label}` : input.asOf ? ` as of ${input.asOf}` : '';
  return { tool: found.tool, args, description: `Fetch the ${ROLE_WORDS[input.role]}${when}`, purpose };
}

/** The first role of `choices` the registry serves. */
function pick(
  choices: readonly BookRole[],
  registry: readonly ToolDefinition[],
): { role: BookRole; tool: RoleTool } | undefined {
  for (const role of choices) {
    const tool = toolForRole(role, registry);
    if (tool) return { role, tool };
  }
  return undefined;
}

/** The last complete month before `today`. */
function lastFullMonth(today: string): Period {
  const { y, m } = parseDate(today);
  return m === 1 ? monthPeriod(y - 1, 12) : monthPeriod(y, m - 1);
}

/**
 * The plan of a finance question: the analytic's request and the read calls of its inputs, or
 * undefined when the books' server lacks a report it needs, cannot take the period asked, or the
 * question names a party this measure cannot be limited to (the model answers those; an unfiltered
 * figure is never the answer to a filtered question).
 */
export function planAnalytic(
  question: FinanceQuestion,
  reading: PeriodReading | undefined,
  opts: { today: string; fyStartMonth: number; registry: readonly ToolDefinition[] },
): AnalyticPlan | undefined {
  const { measure, party } = question;
  const { today, fyStartMonth, registry } = opts;
  if (party && !PARTY_MEASURES.has(measure)) return undefined;
  const fyToDate = toDate(financialYearOf(today, fyStartMonth), today);
  const period = reading ? toDate(reading.period, today) : undefined;
  const compare = reading?.compare ?? (question.compares && !reading?.against ? 'previous' : undefined);

  const steps: Step[] = [];
  const add = (choices: readonly BookRole[], purpose: string, when: { period?: Period; asOf?: string }) =>
    steps.push({
      input: {
        role: choices[0] as BookRole,
        ...(when.period ? { period: asAnalytic(when.period) } : {}),
        ...(when.asOf ? { asOf: when.asOf } : {}),
      },
      choices,
      purpose,
    });
  const asOf = period?.to ?? today;

  let used: Period | undefined;
  switch (measure) {
    case 'receivables.top':
    case 'receivables.total':
    case 'receivables.overdue':
    case 'receivables.due':
      add(['aged_receivables', 'invoices'], 'What each customer owes, and since when', { asOf: today });
      used = measure === 'receivables.due' ? period : undefined;
      break;
    case 'payables.top':
    case 'payables.total':
    case 'payables.overdue':
    case 'payables.due':
      add(['aged_payables', 'bills'], 'What is owed to each vendor, and since when', { asOf: today });
      used = measure === 'payables.due' ? period : undefined;
      break;
    case 'cash.today':
      add(['balance_sheet'], 'Cash and bank balances', { asOf });
      break;
    case 'cash.forecast':
      add(['balance_sheet'], 'Cash and bank today', { asOf: today });
      add(['invoices', 'aged_receivables'], 'Open invoices and when customers paid before', {});
      add(['bills', 'aged_payables'], 'Open bills by due date', {});
      add(['payments'], 'Past payments: recurring expenses and customers’ habits', {});
      break;
    case 'kpi.current_ratio':
      add(['balance_sheet'], 'Current assets and liabilities', { asOf });
      break;
    case 'kpi.runway': {
      const lastMonth = lastFullMonth(today);
      const trailing = customPeriod(previousPeriod(previousPeriod(lastMonth)).from, lastMonth.to);
      add(['balance_sheet'], 'Cash and bank today', { asOf: today });
      add(['cash_flow', 'profit_and_loss'], 'Cash spent a month over the last three months', {
        period: trailing,
      });
      used = trailing;
      break;
    }
    case 'sales':
    case 'expenses':
    case 'profit':
    case 'kpi.margin': {
      used =
        period ??
        (measure === 'sales' || measure === 'expenses' ? toDate(monthPeriod(...ym(today)), today) : fyToDate);
      if (party && measure === 'sales') {
        add(['invoices'], `Invoices to ${party} in ${used.label}`, { period: used });
        break;
      }
      add(['profit_and_loss'], `${measure === 'kpi.margin' ? 'Margins' : 'Figures'} for ${used.label}`, {
        period: used,
      });
      const named = reading?.against ? toDate(reading.against, today) : undefined;
      // "last month vs the one before it" read as the same month twice: the one before it is meant.
      const same = named && named.from === used.from && named.to === used.to;
      const against =
        named && !same
          ? named
          : compare === 'previous' || same
            ? previousPeriod(used)
            : compare === 'last_year'
              ? samePeriodLastYear(used)
              : undefined;
      if (against) add(['profit_and_loss'], `Figures for ${against.label}, to compare`, { period: against });
      break;
    }
    case 'gst.payable':
      used = period ?? toDate(monthPeriod(...ym(today)), today);
      add(['gst_summary'], `GST for ${used.label}`, { period: used });
      break;
    case 'kpi.dso':
    case 'kpi.dpo':
      used = period ?? fyToDate;
      add(
        measure === 'kpi.dso' ? ['aged_receivables', 'invoices'] : ['aged_payables', 'bills'],
        'What is owed today',
        { asOf: today },
      );
      add(['profit_and_loss'], `Sales and purchases for ${used.label}`, { period: used });
      break;
    case 'anomalies': {
      const month = period ?? lastFullMonth(today);
      used = month;
      add(['profit_and_loss'], `Expenses for ${month.label}`, { period: month });
      let prior: Period = month;
      for (let i = 0; i < 3; i++) {
        prior = previousPeriod(prior);
        add(['profit_and_loss'], `Expenses for ${prior.label}, the usual level`, { period: prior });
      }
      add(['payments'], 'Payments, for ones out of pattern', {});
      break;
    }
    case 'budget':
      // This month to date unless a period is named: the month's budget is pro-rated to the days so far.
      // Books without a budgets tool: no plan, so the model answers (or, without one, the decline).
      used = period ?? toDate(monthPeriod(...ym(today)), today);
      add(['profit_and_loss'], `Actual figures for ${used.label}`, { period: used });
      // The budgets tool takes the period's days when it has date arguments, and is read whole otherwise.
      add(['budgets'], `Budgets covering ${used.label}`, { period: used });
      break;
  }

  const calls = resolveSteps(steps, registry, measure, party);
  if (!calls) return undefined;
  const { inputs, pipeline } = calls;
  return {
    request: {
      measure,
      ...(used ? { period: asAnalytic(used) } : period ? { period: asAnalytic(period) } : {}),
      ...(compare ? { compare } : {}),
      ...(party ? { party } : {}),
      ...(question.top ? { top: question.top } : {}),
      today,
      inputs,
    },
    pipeline,
  };
}

/** A planned step: the roles that may serve it (first choice first), and for which days. */
interface Step {
  input: AnalyticInput;
  choices: readonly BookRole[];
  purpose: string;
}

/** Each step's call on the registry's tool for it; undefined when one cannot be made. */
function resolveSteps(
  steps: readonly Step[],
  registry: readonly ToolDefinition[],
  measure: AnalyticMeasure,
  party: string | undefined,
): { inputs: AnalyticInput[]; pipeline: PlannedCall[] } | undefined {
  const inputs: AnalyticInput[] = [];
  const pipeline: PlannedCall[] = [];
  for (const step of steps) {
    const found = pick(step.choices, registry);
    if (!found) {
      // Past payments only sharpen the forecast; it stands without them.
      if (measure === 'cash.forecast' && step.input.role === 'payments') continue;
      return undefined;
    }
    const input = { ...step.input, role: found.role };
    const planned = call(input, found.tool, step.purpose, party);
    if (!planned) return undefined;
    inputs.push(input);
    pipeline.push(planned);
  }
  return { inputs, pipeline };
}

const ym = (date: string): [number, number] => {
  const { y, m } = parseDate(date);
  return [y, m];
};
