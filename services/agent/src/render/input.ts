import { isRecord } from '@munim/contracts';
import type { Formats } from './locale.ts';
import { pick, type Rec, str } from './shape.ts';
import { keyWords } from './words.ts';

/** One tool result to render, with what is known about it. */
export interface RenderInput {
  tool: string;
  args: Rec;
  /** The payload, out of any API envelope. */
  result: unknown;
  /** The key the payload was wrapped in (`Invoice` of `{ Invoice: {…} }`), naming what it is. */
  under?: string | undefined;
  fmt: Formats;
  /** The user asked what is overdue: lists and aging show the overdue part first. */
  overdue: boolean;
}

/** Markdown for the result, or undefined when it is not this renderer's kind of result. */
export type Renderer = (input: RenderInput) => string | undefined;

/** Words saying what a result is: its tool's name, its report name or type, its wrapper key. */
export function hint(input: RenderInput): string {
  const own = isRecord(input.result)
    ? str(input.result, ['ReportName', 'ReportType', 'ReportID', 'report_name', 'Title'])
    : '';
  return [...keyWords(input.tool), ...keyWords(own ?? ''), ...keyWords(input.under ?? '')].join(' ');
}

/** The currency a result states, else the business's. */
export function currencyOf(obj: Rec, fmt: Formats): string {
  const code = pick(obj, ['CurrencyCode', 'Currency', 'CurrencyRef', 'BaseCurrency'], (v) =>
    typeof v === 'string' && /^[A-Z]{3}$/.test(v)
      ? v
      : isRecord(v) && typeof v.value === 'string'
        ? v.value
        : undefined,
  );
  return code ?? fmt.business.currency;
}

/** The company a report is of: its own statement, else the business context's name. */
export function companyOf(obj: Rec, fmt: Formats): string | undefined {
  return (
    str(obj, ['Company', 'CompanyName', 'OrganisationName', 'OrganizationName', 'company_name']) ??
    fmt.business.companyName ??
    undefined
  );
}

/** The period or date a report covers, in words. */
export function coverage(obj: Rec, fmt: Formats): string | undefined {
  const from = pick(
    obj,
    ['FromDate', 'StartDate', 'StartPeriod', 'from_date', 'PeriodStart', 'DateFrom'],
    (v) => v,
  );
  const to = pick(obj, ['ToDate', 'EndDate', 'EndPeriod', 'to_date', 'PeriodEnd', 'DateTo'], (v) => v);
  const period = fmt.period(from, to);
  if (period) return period;
  const asOf = pick(obj, ['AsOfDate', 'AsAt', 'AsOf', 'as_of_date', 'ReportDate', 'Date'], (v) =>
    fmt.longDate(v),
  );
  return asOf ? `as of ${asOf}` : undefined;
}
