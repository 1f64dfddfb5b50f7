import { isRecord, parseToolName } from '@munim/contracts';
import { currencyOf, type RenderInput } from './input.ts';
import type { Formats } from './locale.ts';
import { heading, table } from './markdown.ts';
import { type Rec, records, text } from './shape.ts';
import { display, isIdKey, isTechnicalKey, plainKeys } from './values.ts';
import { capitalise, label } from './words.ts';

/** The records as a table of their plain columns, with no totals: nothing is known about what adds up. */
function plainTable(rows: Rec[], fmt: Formats, currency: string): string {
  const keys = plainKeys(rows);
  if (keys.length === 0) return '';
  return table(
    keys.map(label),
    rows.map((r) => keys.map((k) => display(k, r[k], fmt, currency))),
    keys.map((k) => rows.some((r) => typeof r[k] === 'number')),
  );
}

function fields(obj: Rec, fmt: Formats, currency: string): string[] {
  return Object.entries(obj)
    .filter(
      ([k, v]) =>
        v !== null &&
        v !== undefined &&
        (typeof v !== 'object' || text(v)) &&
        !isIdKey(k, [v]) &&
        !isTechnicalKey(k),
    )
    .map(([k, v]) => `- ${label(k)}: ${display(k, v, fmt, currency)}`);
}

/**
 * A result of no known shape, shown whole: its fields in words, each list of records as its own
 * table and each nested group under its own name. It states what the books said and adds nothing.
 */
export function renderGeneric(input: RenderInput): string {
  const { result, fmt } = input;
  const title = capitalise(parseToolName(input.tool).nouns.join(' ') || 'Result');
  if (typeof result === 'string') return `${heading(title)}\n\n${result}`;
  if (Array.isArray(result)) {
    const rows = records(result) ?? [];
    if (rows.length === 0)
      return `${heading(title)}\n\n${result.length ? result.map(String).join(', ') : 'Nothing found.'}`;
    return `${heading(title)}\n\n${plainTable(rows, fmt, fmt.business.currency)}`;
  }
  if (!isRecord(result)) return `${heading(title)}\n\n${String(result ?? 'Nothing found.')}`;
  const currency = currencyOf(result, fmt);
  const parts = [heading(title)];
  const own = fields(result, fmt, currency);
  if (own.length) parts.push(own.join('\n'));
  for (const [k, v] of Object.entries(result)) {
    if (isIdKey(k, [v]) || isTechnicalKey(k)) continue;
    const rows = records(v);
    if (rows?.length) parts.push(`**${label(k)}**\n\n${plainTable(rows, fmt, currency)}`);
    else if (Array.isArray(v) && v.length)
      parts.push(
        `**${label(k)}**: ${v
          .map((x) => text(x) ?? '')
          .filter(Boolean)
          .join(', ')}`,
      );
    else if (isRecord(v) && !text(v)) {
      const inner = fields(v, fmt, currency);
      if (inner.length) parts.push(`**${label(k)}**\n${inner.join('\n')}`);
    }
  }
  return parts.join('\n\n');
}
