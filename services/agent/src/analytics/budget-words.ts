/**
 * Budget against actual in words: the totals against the budget and the variance first, then the
 * lines that differ most, then how the budgets were brought to the period.
 */
import type { BudgetVariance } from '@munim/finance';
import type { Formats } from '../render/locale.ts';
import { bold, table } from '../render/markdown.ts';
import type { BudgetSide, Computed } from './common.ts';

const MAX_LINES = 8;
const MAX_UNBUDGETED = 5;

/** A period's label inside a sentence, as words.ts writes it. */
const mid = (label: string) => label.replace(/^(Week|Calendar|Quarter|Year)\b/, (w) => w.toLowerCase());

const signed = (n: number, fmt: Formats) => `${n > 0 ? '+' : n < 0 ? '−' : ''}${fmt.money(Math.abs(n))}`;
const pct = (p: number | null, fmt: Formats) =>
  p === null ? '' : ` (${p > 0 ? '+' : p < 0 ? '−' : ''}${fmt.percent(Math.abs(p) / 100)})`;

function sideWords(s: BudgetSide, label: string, fmt: Formats): string {
  const t = s.result.totals;
  const what = s.side === 'expenses' ? 'Spending' : 'Income';
  const [over, under] =
    s.side === 'expenses' ? ['over budget', 'under budget'] : ['above budget', 'below budget'];
  const by =
    t.variance === 0
      ? 'exactly on budget'
      : `${t.variance > 0 ? over : under} by ${fmt.money(Math.abs(t.variance))}${pct(t.variancePct, fmt)}`;
  return `${what} in ${mid(label)}: ${fmt.money(t.actual)} against a budget of ${fmt.money(t.budget)}, ${by}`;
}

/** One budget counted in part, as an example of the pro-rating: "Rent: ₹30,000 for 1–30 Nov 2026, 28/30 days, ₹28,000". */
function example(lines: readonly BudgetVariance[], fmt: Formats): string {
  for (const l of lines)
    for (const b of l.basis) {
      const [num, rest] = b.share.split('/');
      if (num === rest?.split(' ')[0]) continue;
      return `For example ${l.name}: ${fmt.money(b.amount)} budgeted for ${fmt.date(b.period.from)} to ${fmt.date(b.period.to)}, of which ${b.share} count: ${fmt.money(b.counted)}.`;
    }
  return '';
}

/** Budget against actual in words. */
export function budgetWords(c: Extract<Computed, { kind: 'budget' }>, fmt: Formats): string {
  const [first, ...rest] = c.sides;
  if (!first) return '';
  const head = `${bold(sideWords(first, c.label, fmt))}.${rest.map((s) => ` ${sideWords(s, c.label, fmt)}.`).join('')}`;
  const lines: (BudgetVariance & { side: BudgetSide['side'] })[] = c.sides
    .flatMap((s) => s.result.lines.map((l) => ({ ...l, side: s.side })))
    .sort((a, b) => Math.abs(b.variance) - Math.abs(a.variance) || a.name.localeCompare(b.name));
  const both = c.sides.length > 1;
  const rows = lines
    .slice(0, MAX_LINES)
    .map((l) => [
      both ? `${l.name} (${l.side === 'income' ? 'income' : 'spending'})` : l.name,
      fmt.money(l.budget),
      fmt.money(l.actual),
      `${signed(l.variance, fmt)}${pct(l.variancePct, fmt)}`,
    ]);
  const more =
    lines.length > MAX_LINES
      ? `\n\n…and ${lines.length - MAX_LINES} more budgeted line${lines.length - MAX_LINES === 1 ? '' : 's'}.`
      : '';
  const dates = (text: string) => text.replace(/\b\d{4}-\d{2}-\d{2}\b/g, (d) => fmt.date(d) ?? d);
  const unbudgeted = c.sides.flatMap((s) => s.result.unbudgeted);
  const notes = [
    ...new Set(c.sides.map((s) => dates(s.result.assumptions[0] ?? ''))),
    example(lines, fmt),
    both || first.side === 'income'
      ? 'Variance is actual minus budget: positive is spending over budget, or income above it.'
      : 'Variance is actual minus budget: positive is over budget.',
    ...(unbudgeted.length
      ? [
          `Not budgeted, so not in the totals: ${unbudgeted
            .slice(0, MAX_UNBUDGETED)
            .map((u) => `${u.name} ${fmt.money(u.actual)}`)
            .join(
              ', ',
            )}${unbudgeted.length > MAX_UNBUDGETED ? ` and ${unbudgeted.length - MAX_UNBUDGETED} more` : ''}.`,
        ]
      : []),
  ].filter(Boolean);
  return `${head}\n\n${table(['Line', 'Budget', 'Actual', 'Variance'], rows, [false, true, true, true])}${more}\n\n**Assumptions**\n${notes.map((n) => `- ${n}`).join('\n')}`;
}
