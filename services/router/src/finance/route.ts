import type { ToolDefinition } from '@munim/contracts';
import { readPeriod } from '@munim/finance';
import type { BusinessCalendar } from './clock.ts';
import { type AnalyticPlan, planAnalytic } from './plan.ts';
import { readFinanceQuestion } from './question.ts';

export type { AnalyticPlan };

/** A finance question planned for the business's calendar, or undefined: the model's to answer. */
export function financeRoute(
  query: string,
  registry: readonly ToolDefinition[],
  calendar: BusinessCalendar,
): AnalyticPlan | undefined {
  const question = readFinanceQuestion(query);
  if (!question) return undefined;
  const reading = readPeriod(query, calendar.today, calendar.fyStartMonth);
  return planAnalytic(question, reading, { ...calendar, registry });
}
