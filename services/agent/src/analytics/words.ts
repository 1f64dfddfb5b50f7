/**
 * A computed measure in words for a finance person: the headline figure first, in bold, then a
 * few lines or a small table; names and document numbers (never ids), the period's label, the
 * business's money and date formats.
 */
import type { AnalyticRequest } from '@munim/contracts';
import type { Change, DocLine, PnlLine, TotalKey } from '@munim/finance';
import type { Formats } from '../render/locale.ts';
import { bold, table } from '../render/markdown.ts';
import { budgetWords } from './budget-words.ts';
import type { Computed, Side } from './common.ts';

const MAX_ROWS = 15;

const NOUNS = {
  receivables: { party: 'Customer', doc: 'invoice', docs: 'invoices', num: 'Invoice #' },
  payables: { party: 'Vendor', doc: 'bill', docs: 'bills', num: 'Bill #' },
} as const;

/** A period's label inside a sentence: "week of 16–22 Nov 2026", months and FY names as they are. */
const mid = (label: string | undefined) =>
  (label ?? '').replace(/^(Week|Calendar|Quarter|Year)\b/, (w) => w.toLowerCase());

/** A fraction as shown: one that rounds to nothing is 0, never −0%. */
const round = (x: number) => (Math.abs(x) < 0.0005 ? 0 : x);

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** ISO days in text (the forecast's assumptions) in the business's date format. */
const datesIn = (text: string, fmt: Formats) =>
  text.replace(/\b\d{4}-\d{2}-\d{2}\b/g, (d) => fmt.date(d) ?? d);

function change(c: Change | undefined, fmt: Formats): string {
  if (!c) return '';
  const pct =
    c.percent === null ? '' : ` (${c.percent >= 0 ? '+' : '−'}${fmt.percent(Math.abs(c.percent) / 100)})`;
  if (c.amount === 0) return 'no change';
  return `${c.amount > 0 ? 'up' : 'down'} ${fmt.money(Math.abs(c.amount))}${pct}`;
}

const more = (n: number, noun: string) =>
  n > MAX_ROWS ? `\n\n…and ${plural(n - MAX_ROWS, noun)} more.` : '';

function docTable(docs: DocLine[], side: Side, fmt: Formats, withParty: boolean, days: boolean): string {
  const n = NOUNS[side];
  const head = [
    n.num,
    ...(withParty ? [n.party] : []),
    'Due date',
    ...(days ? ['Days overdue'] : []),
    'Amount due',
  ];
  const rows = docs
    .slice(0, MAX_ROWS)
    .map((d) => [
      d.number ?? '',
      ...(withParty ? [d.party] : []),
      fmt.date(d.dueDate) ?? d.dueDate,
      ...(days ? [fmt.number(d.daysOverdue)] : []),
      fmt.money(d.due),
    ]);
  return (
    table(
      head,
      rows,
      head.map((_, i) => i >= head.length - (days ? 2 : 1)),
    ) + more(docs.length, n.doc)
  );
}

function owedWords(c: Extract<Computed, { kind: 'owed' }>, request: AnalyticRequest, fmt: Formats): string {
  const { owed, side, party } = c;
  const n = NOUNS[side];
  const theyOwe = (who: string, amount: string) =>
    side === 'receivables'
      ? `${who} owe${who === 'Customers' ? '' : 's'} you ${amount}`
      : `You owe ${who === 'Customers' ? 'vendors' : who} ${amount}`;
  const overdueDocs = owed.parties
    .flatMap((p) => p.documents)
    .filter((d) => d.daysOverdue > 0)
    .sort((a, b) => b.daysOverdue - a.daysOverdue || b.due - a.due);
  const when = fmt.date(request.today);
  if (request.measure.endsWith('.overdue')) {
    const whose = party ? ` ${side === 'receivables' ? 'from' : 'to'} ${party}` : '';
    if (owed.overdue <= 0)
      return `${bold(`Nothing is overdue${whose}`)} as of ${when}.${owed.total > 0 ? ` ${fmt.money(owed.total)} is open on ${plural(owed.count, n.doc)}, not yet due.` : ''}`;
    const head = `${bold(`${fmt.money(owed.overdue)} is overdue${whose}`)} on ${plural(overdueDocs.length, n.doc)}, as of ${when}.`;
    if (!c.byDocument) {
      const rows = owed.parties
        .filter((p) => p.overdue > 0)
        .map((p) => [p.party, fmt.money(p.overdue), fmt.money(p.due)]);
      return `${head}\n\n${table([n.party, 'Overdue', 'Total owed'], rows, [false, true, true])}`;
    }
    const rest = owed.total - owed.overdue;
    return `${head}\n\n${docTable(overdueDocs, side, fmt, !party, true)}${rest > 0 ? `\n\nA further ${fmt.money(rest)} is open, not yet due.` : ''}`;
  }
  if (party) {
    const p = owed.parties[0];
    if (!p) return `${bold(`${theyOwe(party, fmt.money(0))}`)}: no open ${n.docs}.`;
    const overdue =
      p.overdue > 0
        ? `; ${fmt.money(p.overdue)} of it is overdue${p.oldestDaysOverdue && c.byDocument ? `, the oldest by ${plural(p.oldestDaysOverdue, 'day')}` : ''}`
        : '; none of it is overdue';
    const docs = c.byDocument ? `\n\n${docTable(p.documents, side, fmt, false, p.overdue > 0)}` : '';
    return `${bold(theyOwe(p.party, fmt.money(p.due)))} on ${plural(p.count, `open ${n.doc}`)}${overdue}.${docs}`;
  }
  if (owed.total <= 0)
    return (
      bold(side === 'receivables' ? 'No customer owes you anything' : 'You owe no vendor anything') +
      `: there are no open ${n.docs}.`
    );
  const owing = owed.parties.filter((p) => p.due > 0);
  const top = owing.slice(0, request.top ?? 5);
  // Ages read off a report's columns are spans (over 90 days), not one document's days.
  const days = c.byDocument;
  const rows = top.map((p) => [
    p.party,
    fmt.money(p.due),
    p.overdue > 0 ? fmt.money(p.overdue) : '',
    ...(days ? [p.oldestDaysOverdue ? fmt.number(p.oldestDaysOverdue) : ''] : []),
  ]);
  const tableText = table(
    [
      n.party,
      side === 'receivables' ? 'Owes you' : 'You owe',
      'Overdue',
      ...(days ? ['Oldest overdue (days)'] : []),
    ],
    rows,
    [false, true, true, true],
  );
  const overdue =
    owed.overdue > 0
      ? ` ${fmt.money(owed.overdue)} of it is overdue (${fmt.percent(owed.overdue / owed.total)}).`
      : ' None of it is overdue.';
  const whole = `${side === 'receivables' ? 'Customers owe you' : 'You owe vendors'} ${fmt.money(owed.total)} in all on ${plural(owed.count, `open ${n.doc}`)} from ${plural(owing.length, n.party.toLowerCase())}, as of ${when}.${overdue}`;
  if (request.measure.endsWith('.top')) {
    const first = top[0];
    if (!first) return whole;
    const headline =
      side === 'receivables'
        ? `${first.party} owes you the most: ${fmt.money(first.due)}`
        : `You owe ${first.party} the most: ${fmt.money(first.due)}`;
    return `${bold(headline)}${first.overdue > 0 ? `, ${fmt.money(first.overdue)} of it overdue` : ''}.\n\n${tableText}\n\n${whole}`;
  }
  return `${bold(side === 'receivables' ? `Customers owe you ${fmt.money(owed.total)}` : `You owe vendors ${fmt.money(owed.total)}`)} on ${plural(owed.count, `open ${n.doc}`)} from ${plural(owing.length, n.party.toLowerCase())}, as of ${when}.${overdue}\n\n${tableText}${owing.length > top.length ? `\n\n…and ${plural(owing.length - top.length, n.party.toLowerCase())} more.` : ''}`;
}

function dueWords(c: Extract<Computed, { kind: 'due' }>, fmt: Formats): string {
  const n = NOUNS[c.side];
  const whose = c.party ? ` ${c.side === 'receivables' ? 'from' : 'to'} ${c.party}` : '';
  const { due } = c;
  const span = `${fmt.date(due.window.from)} to ${fmt.date(due.window.to)}`;
  const head =
    due.due.length === 0
      ? `${bold(`No ${n.docs}${whose} fall due in ${mid(c.label)}`)} (${span}).`
      : `${bold(`${fmt.money(due.total)} falls due${whose} in ${mid(c.label)}`)} (${span}) on ${plural(due.due.length, n.doc)}.`;
  const list = due.due.length ? `\n\n${docTable(due.due, c.side, fmt, !c.party, false)}` : '';
  const late = due.overdue.length
    ? `\n\nAlready overdue before then: ${fmt.money(due.overdueTotal)} on ${plural(due.overdue.length, n.doc)}.`
    : '';
  return head + list + late;
}

const SECTION_ORDER: PnlLine['section'][] = ['cost_of_sales', 'expense', 'other_expense'];

function pnlWords(c: Extract<Computed, { kind: 'pnl' }>, request: AnalyticRequest, fmt: Formats): string {
  const [now, prior] = c.totals as [Record<TotalKey, number>, Record<TotalKey, number> | undefined];
  const [label, priorLabel] = c.columns;
  const cmp = c.comparison;
  const versus = (key: TotalKey) =>
    prior && cmp
      ? ` Against ${mid(priorLabel)}: ${fmt.money(prior[key])}, ${change(cmp.totals[key].changes[0], fmt)}.`
      : '';
  const spend = (t: Record<TotalKey, number>) =>
    (Math.round(t.costOfSales * 100) + Math.round(t.expenses * 100) + Math.round(t.otherExpenses * 100)) /
    100;
  const compareTable = (keys: [string, (t: Record<TotalKey, number>) => number][]) =>
    prior
      ? `\n\n${table(
          ['', label ?? '', priorLabel ?? '', 'Change'],
          keys.map(([name, get]) => {
            const a = get(now);
            const b = get(prior);
            const pct = b === 0 ? '' : ` (${fmt.percent((a - b) / Math.abs(b))})`;
            return [name, fmt.money(a), fmt.money(b), `${fmt.money(a - b)}${pct}`];
          }),
          [false, true, true, true],
        )}`
      : '';
  switch (request.measure) {
    case 'sales': {
      const lines = c.lines.filter((l) => l.section === 'income');
      const detail =
        !prior && lines.length > 1
          ? `\n\n${table(
              ['Income', 'Amount'],
              lines.map((l) => [l.name, fmt.money(l.amount)]),
              [false, true],
            )}`
          : '';
      return `${bold(`Sales in ${mid(label)}: ${fmt.money(now.income)}`)}.${versus('income')}${detail}`;
    }
    case 'expenses': {
      const lines = c.lines
        .filter((l) => SECTION_ORDER.includes(l.section))
        .sort((a, b) => b.amount - a.amount)
        .slice(0, 8);
      // Compared, every line of either period: one spent on before and not yet now shows as down.
      const moved = (cmp?.lines ?? [])
        .filter((l) => l.section && SECTION_ORDER.includes(l.section))
        .sort((a, b) => (b.values[0] ?? 0) - (a.values[0] ?? 0) || (b.values[1] ?? 0) - (a.values[1] ?? 0))
        .slice(0, 8);
      const rows = prior
        ? moved.map((m) => [
            m.name,
            fmt.money(m.values[0] ?? 0),
            fmt.money(m.values[1] ?? 0),
            change(m.changes[0], fmt),
          ])
        : lines.map((l) => [l.name, fmt.money(l.amount)]);
      const head = ['Expense', label ?? '', ...(prior ? [priorLabel ?? '', 'Change'] : [])];
      const versusSpend = prior
        ? ` Against ${mid(priorLabel)}: ${fmt.money(spend(prior))}, ${change({ amount: spend(now) - spend(prior), percent: spend(prior) === 0 ? null : ((spend(now) - spend(prior)) / spend(prior)) * 100 }, fmt)}.`
        : '';
      return `${bold(`Expenses in ${mid(label)}: ${fmt.money(spend(now))}`)}, of which cost of sales ${fmt.money(now.costOfSales)} and operating expenses ${fmt.money(now.expenses + now.otherExpenses)}.${versusSpend}\n\n${table(
        head,
        rows,
        head.map((_, i) => i > 0),
      )}`;
    }
    case 'kpi.margin': {
      const g = c.margins?.gross.value;
      const n = c.margins?.net.value;
      if (g === null || g === undefined || n === null || n === undefined)
        return `${bold(`No margins for ${mid(label)}`)}: there is no income in the period.`;
      return `${bold(`Gross margin ${fmt.percent(g / 100)}, net margin ${fmt.percent(n / 100)}`)} in ${mid(label)}.\n\n- Gross profit ${fmt.money(now.grossProfit)} (income ${fmt.money(now.income)} less cost of sales ${fmt.money(now.costOfSales)}) ÷ income\n- Net profit ${fmt.money(now.netProfit)} ÷ income`;
    }
    default: {
      const word = now.netProfit < 0 ? 'Net loss' : 'Net profit';
      const margin = now.income ? `, a net margin of ${fmt.percent(round(now.netProfit / now.income))}` : '';
      const lines = `\n\n- Income ${fmt.money(now.income)}\n- Gross profit ${fmt.money(now.grossProfit)}\n- Expenses ${fmt.money(now.expenses + now.otherExpenses)}`;
      const movers = cmp
        ? cmp.lines
            .filter((l) => l.changes[0] && l.changes[0].amount !== 0)
            .sort((a, b) => Math.abs(b.changes[0]?.amount ?? 0) - Math.abs(a.changes[0]?.amount ?? 0))
            .slice(0, 3)
            .map((l) => `${l.name} ${change(l.changes[0], fmt)}`)
        : [];
      return `${bold(`${word} in ${mid(label)}: ${fmt.money(Math.abs(now.netProfit))}`)}${margin}.${versus('netProfit')}${
        prior
          ? compareTable([
              ['Income', (t) => t.income],
              ['Gross profit', (t) => t.grossProfit],
              ['Expenses', (t) => (Math.round(t.expenses * 100) + Math.round(t.otherExpenses * 100)) / 100],
              ['Net profit', (t) => t.netProfit],
            ])
          : lines
      }${movers.length ? `\n\nBiggest moves: ${movers.join('; ')}.` : ''}`;
    }
  }
}

/** The measure in words. */
export function analyticWords(c: Computed, request: AnalyticRequest, fmt: Formats): string {
  switch (c.kind) {
    case 'decline':
      return c.words;
    case 'owed':
      return owedWords(c, request, fmt);
    case 'due':
      return dueWords(c, fmt);
    case 'cash': {
      const rows = c.cash.accounts.map((a) => [
        a.name,
        a.kind === 'bank' ? 'Bank' : 'Cash',
        fmt.money(a.balance),
      ]);
      return `${bold(`Cash and bank: ${fmt.money(c.cash.total)}`)} as of ${fmt.date(c.asOf)} (bank ${fmt.money(c.cash.bank)}, cash ${fmt.money(c.cash.cash)}).\n\n${table(['Account', 'Kind', 'Balance'], rows, [false, false, true])}`;
    }
    case 'forecast': {
      const f = c.forecast;
      const neg = f.firstNegativeWeek;
      const head = neg
        ? `${bold(`Cash runs short in week ${neg.week} (${fmt.date(neg.from)} to ${fmt.date(neg.to)})`)}: the balance falls to ${fmt.money(neg.closing)}.`
        : `${bold(`Cash stays positive for the next ${f.weeks.length} weeks`)}: the lowest is ${fmt.money(f.lowestClosing.closing)} in week ${f.lowestClosing.week}, and ${fmt.money(f.closing)} at the end on ${fmt.date(f.horizon.to)}.`;
      const rows = f.weeks.map((w) => [
        String(w.week),
        `${fmt.date(w.from)} to ${fmt.date(w.to)}`,
        fmt.money(w.inflows),
        fmt.money(w.outflows),
        fmt.money(w.closing),
      ]);
      const assumptions = [...f.assumptions, ...c.notes].map((a) => `- ${datesIn(a, fmt)}`).join('\n');
      return `${head} Opening cash ${fmt.money(f.opening)}; ${fmt.money(f.totalInflows)} expected in, ${fmt.money(f.totalOutflows)} out.\n\n${table(['Week', 'Dates', 'In', 'Out', 'Closing'], rows, [false, false, true, true, true])}\n\n**Assumptions**\n${assumptions}`;
    }
    case 'pnl':
      return pnlWords(c, request, fmt);
    case 'party_sales': {
      const tax = c.taxIncluded ? 'including tax' : 'before tax';
      if (c.invoices.length === 0)
        return `${bold(`No sales to ${c.party} in ${mid(c.label)}`)}: no invoices to them in the period.`;
      const rows = c.invoices
        .slice(0, MAX_ROWS)
        .map((i) => [i.number ?? '', fmt.date(i.date) ?? i.date, fmt.money(i.amount)]);
      return `${bold(`Sales to ${c.party} in ${mid(c.label)}: ${fmt.money(c.total)}`)} (${tax}) on ${plural(c.invoices.length, 'invoice')}.\n\n${table(['Invoice #', 'Date', 'Amount'], rows, [false, false, true])}${more(c.invoices.length, 'invoice')}`;
    }
    case 'gst': {
      const head =
        c.net >= 0
          ? bold(`GST payable for ${mid(c.label)}: ${fmt.money(c.net)}`)
          : `${bold(`No GST payable for ${mid(c.label)}`)}: input tax credit exceeds output tax by ${fmt.money(-c.net)}, carried forward.`;
      return `${head}\n\n- Output tax on sales: ${fmt.money(c.output)}\n- Input tax credit on purchases: ${fmt.money(c.input)}\n- Net: ${fmt.money(c.net)}`;
    }
    case 'kpi':
      return kpiWords(c, fmt);
    case 'budget':
      return budgetWords(c, fmt);
    case 'anomalies': {
      const priors = c.priors.length ? c.priors.join(', ') : 'the periods before';
      const found = c.unusual.length + c.payments.length;
      const head = found
        ? bold(`${plural(found, 'thing')} stand${found === 1 ? 's' : ''} out in ${mid(c.label)}`)
        : `${bold(`Nothing unusual in ${mid(c.label)}`)}: no expense line at twice or more its average of ${priors}, and no payment out of its pattern.`;
      const lines = c.unusual.length
        ? `\n\n${table(
            ['Expense', c.label, 'Usual (average)', 'Times usual'],
            c.unusual.map((u) => [
              u.name,
              fmt.money(u.amount),
              fmt.money(u.trailingAverage),
              u.ratio === null ? '' : `${u.ratio.toFixed(1)}×`,
            ]),
            [false, true, true, true],
          )}\n\nUsual is the average of ${priors}.`
        : '';
      const pay = c.payments.length
        ? `\n\n**Payments out of pattern**\n${c.payments
            .slice(0, MAX_ROWS)
            .map(
              (p) =>
                `- ${fmt.date(p.payment.date)}: ${fmt.money(p.amount)} to ${p.party}, ${paymentWhy(p, fmt)}`,
            )
            .join('\n')}`
        : '';
      const fresh = c.fresh.length
        ? `\n\nNew this period: ${c.fresh.map((f) => `${f.name} ${fmt.money(f.amount)}`).join('; ')}.`
        : '';
      return head + lines + pay + fresh;
    }
  }
}

function paymentWhy(p: Extract<Computed, { kind: 'anomalies' }>['payments'][number], fmt: Formats): string {
  if (p.reason === 'duplicate')
    return `the same amount as a payment ${p.daysApart === 0 ? 'the same day' : `${plural(p.daysApart ?? 0, 'day')} before`} (a possible duplicate)`;
  if (p.reason === 'above-usual') return `${(p.ratio ?? 0).toFixed(1)}× the usual ${fmt.money(p.usual ?? 0)}`;
  return 'a large first payment';
}

function kpiWords(c: Extract<Computed, { kind: 'kpi' }>, fmt: Formats): string {
  const v = c.kpi.value;
  const i = c.kpi.inputs as Record<string, number>;
  const notes = c.notes.length ? `\n\n${c.notes.map((n) => `- ${n}`).join('\n')}` : '';
  switch (c.name) {
    case 'dso':
    case 'dpo': {
      const name = c.name === 'dso' ? 'Days sales outstanding' : 'Days payables outstanding';
      const [owed, flow] =
        c.name === 'dso' ? [i.receivables ?? 0, i.creditSales ?? 0] : [i.payables ?? 0, i.purchases ?? 0];
      if (v === null)
        return `${bold(`${name}: not available`)}: there were no ${c.name === 'dso' ? 'sales' : 'purchases'} in ${mid(c.label)}.`;
      return `${bold(`${name}: ${fmt.number(Math.round(v))} days`)} over ${mid(c.label)}.\n\n- ${c.name === 'dso' ? 'Receivables' : 'Payables'} ${fmt.money(owed)} ÷ ${c.name === 'dso' ? 'sales' : 'purchases'} ${fmt.money(flow)} × ${fmt.number(i.days ?? 0)} days${notes}`;
    }
    case 'current_ratio':
      if (v === null)
        return `${bold('Current ratio: not available')}: the balance sheet shows no current liabilities.`;
      return `${bold(`Current ratio: ${v.toFixed(2)}`)}.\n\n- Current assets ${fmt.money(i.currentAssets ?? 0)} ÷ current liabilities ${fmt.money(i.currentLiabilities ?? 0)}${notes}`;
    case 'runway':
      if (v === null)
        return `${bold('You are not burning cash')}: over ${mid(c.label)} more cash came in than went out. Cash today ${fmt.money(i.cash ?? 0)}.${notes}`;
      return `${bold(`About ${v.toFixed(1)} months of cash`)} at the recent burn.\n\n- Cash today ${fmt.money(i.cash ?? 0)} ÷ monthly burn ${fmt.money(i.monthlyBurn ?? 0)}${notes}`;
  }
}
