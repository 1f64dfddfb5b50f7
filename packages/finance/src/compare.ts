/**
 * Profit and loss compared across two or three periods, computed in paise (integers) so sums never drift,
 * and given back in rupees to the paisa. Column 0 is the period asked about; the others are what it is
 * compared with (the previous period, the same period a year ago).
 */

export type PnlSection = 'income' | 'cost_of_sales' | 'expense' | 'other_income' | 'other_expense';

/** One line of a profit and loss report, its amount positive as reported. */
export interface PnlLine {
  section: PnlSection;
  name: string;
  amount: number;
}

/** One period's report: a label for the column and its lines. */
export interface PnlColumn {
  label: string;
  lines: readonly PnlLine[];
}

/** The change from a prior figure: percent is null when the prior is zero (growth from nothing has no ratio). */
export interface Change {
  amount: number;
  percent: number | null;
}

/** A figure in every column, with its change against each prior column (changes[i] is column 0 vs column i+1). */
export interface ComparedFigure {
  name: string;
  section?: PnlSection;
  values: number[];
  changes: Change[];
}

export type TotalKey =
  | 'income'
  | 'costOfSales'
  | 'grossProfit'
  | 'expenses'
  | 'otherIncome'
  | 'otherExpenses'
  | 'netProfit';

export interface PnlComparison {
  columns: string[];
  totals: Record<TotalKey, ComparedFigure>;
  lines: ComparedFigure[];
}

const SECTIONS: readonly PnlSection[] = [
  'income',
  'cost_of_sales',
  'expense',
  'other_income',
  'other_expense',
];

/** Rupees to paise, rounding half away from zero at the third decimal as written (1.005 → 101). */
export function toPaise(rupees: number): number {
  if (!Number.isFinite(rupees)) throw new RangeError(`not an amount: ${rupees}`);
  const abs = Math.abs(rupees);
  // Shifting the decimal text, not multiplying the binary float: 1.005 * 100 is 100.49999….
  const text = String(abs);
  const shifted = text.includes('e') ? abs * 100 : Number(`${text}e2`);
  return (rupees < 0 ? -1 : 1) * Math.round(shifted);
}

/** Paise to rupees. */
export function fromPaise(paise: number): number {
  return paise / 100;
}

/** The change from `prior` to `current` (in paise), its percent against the size of the prior. */
export function changeOf(currentPaise: number, priorPaise: number): Change {
  const diff = currentPaise - priorPaise;
  return { amount: fromPaise(diff), percent: priorPaise === 0 ? null : (diff / Math.abs(priorPaise)) * 100 };
}

function figure(name: string, paise: number[], section?: PnlSection): ComparedFigure {
  const [current = 0, ...priors] = paise;
  return {
    name,
    ...(section ? { section } : {}),
    values: paise.map(fromPaise),
    changes: priors.map((prior) => changeOf(current, prior)),
  };
}

/** Section totals of one report, in paise. */
export function pnlTotalsPaise(lines: readonly PnlLine[]): Record<TotalKey, number> {
  const sum: Record<PnlSection, number> = {
    income: 0,
    cost_of_sales: 0,
    expense: 0,
    other_income: 0,
    other_expense: 0,
  };
  for (const line of lines) sum[line.section] += toPaise(line.amount);
  const grossProfit = sum.income - sum.cost_of_sales;
  return {
    income: sum.income,
    costOfSales: sum.cost_of_sales,
    grossProfit,
    expenses: sum.expense,
    otherIncome: sum.other_income,
    otherExpenses: sum.other_expense,
    netProfit: grossProfit - sum.expense + sum.other_income - sum.other_expense,
  };
}

const TOTAL_NAMES: Record<TotalKey, string> = {
  income: 'Income',
  costOfSales: 'Cost of sales',
  grossProfit: 'Gross profit',
  expenses: 'Expenses',
  otherIncome: 'Other income',
  otherExpenses: 'Other expenses',
  netProfit: 'Net profit',
};

/**
 * Compares two or three periods' profit and loss: totals (gross profit = income − cost of sales; net profit =
 * gross profit − expenses + other income − other expenses) and each line, matched by section and name
 * (case and spacing aside); a line missing from a period counts as zero there.
 */
export function comparePnl(columns: readonly PnlColumn[]): PnlComparison {
  if (columns.length < 2 || columns.length > 3) throw new RangeError('compare two or three periods');
  const keyOf = (line: PnlLine) =>
    `${line.section}\u0000${line.name.trim().replace(/\s+/g, ' ').toLowerCase()}`;
  const rows = new Map<string, { name: string; section: PnlSection; paise: number[] }>();
  columns.forEach((column, i) => {
    for (const line of column.lines) {
      const key = keyOf(line);
      let row = rows.get(key);
      if (!row) {
        row = { name: line.name.trim(), section: line.section, paise: columns.map(() => 0) };
        rows.set(key, row);
      }
      row.paise[i] = (row.paise[i] ?? 0) + toPaise(line.amount);
    }
  });
  const lines = [...rows.values()]
    .sort((a, b) => SECTIONS.indexOf(a.section) - SECTIONS.indexOf(b.section))
    .map((row) => figure(row.name, row.paise, row.section));
  const perColumn = columns.map((column) => pnlTotalsPaise(column.lines));
  const totals = Object.fromEntries(
    (Object.keys(TOTAL_NAMES) as TotalKey[]).map((key) => [
      key,
      figure(
        TOTAL_NAMES[key],
        perColumn.map((t) => t[key]),
      ),
    ]),
  ) as Record<TotalKey, ComparedFigure>;
  return { columns: columns.map((c) => c.label), totals, lines };
}

export interface MaterialityOptions {
  /** Smallest absolute change (rupees) that matters; 0 when not given. */
  materialityAmount?: number;
  /** Smallest absolute percent change that matters; a line new from zero always passes. 0 when not given. */
  materialityPercent?: number;
  /** How many lines at most. */
  top?: number;
  /** Which prior column to measure against (0: the first prior, the default). */
  against?: number;
}

/** A line that moved, and whether the move helps profit (income up, or costs down). */
export interface VarianceLine {
  name: string;
  section: PnlSection;
  current: number;
  prior: number;
  change: Change;
  direction: 'up' | 'down';
  favourable: boolean;
}

/**
 * The lines that moved most: those whose change passes every threshold given (amount and percent), sorted by
 * absolute change, largest first (ties by name), at most `top` of them.
 */
export function variance(
  compared: readonly ComparedFigure[] | PnlComparison,
  options: MaterialityOptions = {},
): VarianceLine[] {
  const lines = 'lines' in compared ? compared.lines : compared;
  const against = options.against ?? 0;
  const minPaise = toPaise(options.materialityAmount ?? 0);
  const minPercent = options.materialityPercent ?? 0;
  const moved: (VarianceLine & { abs: number })[] = [];
  for (const line of lines) {
    const change = line.changes[against];
    if (!line.section || !change) continue;
    const abs = Math.abs(toPaise(change.amount));
    if (abs === 0 || abs < minPaise) continue;
    if (change.percent !== null && Math.abs(change.percent) < minPercent) continue;
    const up = change.amount > 0;
    const earns = line.section === 'income' || line.section === 'other_income';
    moved.push({
      name: line.name,
      section: line.section,
      current: line.values[0] ?? 0,
      prior: line.values[against + 1] ?? 0,
      change,
      direction: up ? 'up' : 'down',
      favourable: up === earns,
      abs,
    });
  }
  moved.sort((a, b) => b.abs - a.abs || a.name.localeCompare(b.name));
  return moved.slice(0, options.top ?? moved.length).map(({ abs: _abs, ...line }) => line);
}
