/**
 * Receivables and payables from the books' open documents: who owes most, what falls due in a
 * window, and how late each party usually pays. The same functions serve payables: pass bills.
 * Also the calendar and money helpers the other analytics share (UTC calendar days, paise).
 */

/** An open document: an invoice (owed to us) or a bill (owed by us), with what is still outstanding. */
export interface OpenDoc {
  kind: 'invoice' | 'bill';
  number?: string;
  party: string;
  /** Document date, `YYYY-MM-DD`. */
  date: string;
  /** Due date, `YYYY-MM-DD`; absent means due on the document date. */
  dueDate?: string;
  total: number;
  /** Outstanding amount. */
  due: number;
}

/** A document paid in full, for payment history. */
export interface Settlement {
  kind: 'invoice' | 'bill';
  party: string;
  dueDate?: string;
  paidDate: string;
  amount: number;
  /** Document date; stands for the due date when that is absent. */
  date?: string;
}

const DAY_MS = 86_400_000;
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 of a `YYYY-MM-DD` calendar day; throws on anything else. */
export function dayNumber(iso: string): number {
  const m = ISO_DAY.exec(iso);
  if (!m) throw new RangeError(`not a YYYY-MM-DD date: ${JSON.stringify(iso)}`);
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  // Date.UTC rolls 2027-02-29 over to 1 March: such a day does not exist.
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) {
    throw new RangeError(`no such calendar day: ${iso}`);
  }
  return ms / DAY_MS;
}

/** The `YYYY-MM-DD` of a day number. */
export function isoDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** `iso` plus `n` calendar days. */
export function addDays(iso: string, n: number): string {
  return isoDay(dayNumber(iso) + n);
}

/** Calendar days from `a` to `b` (negative when `b` is earlier). */
export function daysBetween(a: string, b: string): number {
  return dayNumber(b) - dayNumber(a);
}

const ISO_MONTH = /^(\d{4})-(\d{2})$/;

/** The `YYYY-MM` month of a `YYYY-MM-DD` day. */
export function monthOf(iso: string): string {
  dayNumber(iso);
  return iso.slice(0, 7);
}

/** `YYYY-MM` plus `n` months; throws on anything but a `YYYY-MM` month. */
export function addMonths(month: string, n: number): string {
  const m = ISO_MONTH.exec(month);
  const mo = m ? Number(m[2]) : 0;
  if (!m || mo < 1 || mo > 12) throw new RangeError(`not a YYYY-MM month: ${JSON.stringify(month)}`);
  const index = Number(m[1]) * 12 + mo - 1 + n;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** Days in a `YYYY-MM` month (29 for February of a leap year). */
export function daysInMonth(month: string): number {
  return dayNumber(`${addMonths(month, 1)}-01`) - dayNumber(`${addMonths(month, 0)}-01`);
}

/** Amount in paise written with Indian digit grouping: 12345678 → "1,23,456.78". */
export function formatPaise(paise: number): string {
  const sign = paise < 0 ? '-' : '';
  const abs = Math.abs(paise);
  const whole = String(Math.floor(abs / 100));
  const frac = String(abs % 100).padStart(2, '0');
  const head = whole.slice(0, -3).replace(/\B(?=(\d{2})+$)/g, ',');
  return `${sign}${head === '' ? '' : `${head},`}${whole.slice(-3)}.${frac}`;
}

/** Amount to integer paise; throws on a non-finite amount. */
export function toPaise(amount: number): number {
  if (!Number.isFinite(amount)) throw new RangeError(`not an amount: ${amount}`);
  return Math.round(amount * 100);
}

/** Integer paise back to an amount in rupees (or the books' currency unit). */
export function fromPaise(paise: number): number {
  return paise / 100;
}

/** Median of numbers (the mean of the middle two for an even count); undefined when empty. */
export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const hi = sorted[mid] as number;
  return sorted.length % 2 === 1 ? hi : ((sorted[mid - 1] as number) + hi) / 2;
}

/** A party name as a grouping key: trimmed, spaces collapsed, case folded. */
export function partyKey(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** A document's due date, or its date when it has none (due on receipt). */
export function effectiveDueDate(doc: { date: string; dueDate?: string }): string {
  return doc.dueDate ?? doc.date;
}

/** One open document as it was counted. */
export interface DocLine {
  kind: 'invoice' | 'bill';
  number?: string;
  party: string;
  date: string;
  /** The due date used: the document's, or its date when it has none. */
  dueDate: string;
  due: number;
  /** Days past the due date as of the reference day; 0 when not yet due. */
  daysOverdue: number;
}

/** What one party owes (or is owed), with the documents it is made of. */
export interface PartyBalance {
  party: string;
  due: number;
  overdue: number;
  /** Days past due of the oldest overdue document; null when nothing is overdue (or no `today`). */
  oldestDaysOverdue: number | null;
  count: number;
  documents: DocLine[];
}

/** Balances per party, largest first, and the totals. */
export interface OwedBy {
  today: string | null;
  kind: 'invoice' | 'bill' | 'all';
  parties: PartyBalance[];
  total: number;
  overdue: number;
  count: number;
}

interface KindOption {
  /** Only documents of this kind; all given documents when absent. */
  kind?: 'invoice' | 'bill';
}

function selectOpen(docs: readonly OpenDoc[], kind: 'invoice' | 'bill' | undefined): OpenDoc[] {
  return docs.filter((d) => (kind === undefined || d.kind === kind) && toPaise(d.due) !== 0);
}

function docLine(doc: OpenDoc, today: string | null): DocLine {
  const dueDate = effectiveDueDate(doc);
  dayNumber(doc.date);
  const late = today === null ? 0 : Math.max(0, daysBetween(dueDate, today));
  const line: DocLine = {
    kind: doc.kind,
    party: doc.party.trim(),
    date: doc.date,
    dueDate,
    due: fromPaise(toPaise(doc.due)),
    daysOverdue: late,
  };
  if (doc.number !== undefined) line.number = doc.number;
  return line;
}

/**
 * What each party owes: the outstanding (`due`) of its open documents summed per party, the part
 * already past its due date as of `today` (a document is overdue from the day after its due date;
 * one without a due date is due on its date), the days past due of its oldest overdue document,
 * and how many documents. Parties are matched by name ignoring case and extra spaces; documents
 * with nothing outstanding are left out, and a negative outstanding (a credit) counts against its
 * party. Sorted by amount due, largest first (then by name). Totals are the sums over all parties,
 * computed in paise. For payables pass bills, or `kind: 'bill'`.
 */
export function owedBy(docs: readonly OpenDoc[], options: { today?: string } & KindOption = {}): OwedBy {
  const today = options.today ?? null;
  if (today !== null) dayNumber(today);
  const groups = new Map<
    string,
    { party: string; duePaise: number; overduePaise: number; lines: DocLine[] }
  >();
  for (const doc of selectOpen(docs, options.kind)) {
    const line = docLine(doc, today);
    const key = partyKey(doc.party);
    let g = groups.get(key);
    if (!g) {
      g = { party: line.party, duePaise: 0, overduePaise: 0, lines: [] };
      groups.set(key, g);
    }
    const p = toPaise(doc.due);
    g.duePaise += p;
    if (line.daysOverdue > 0) g.overduePaise += p;
    g.lines.push(line);
  }
  const parties: PartyBalance[] = [...groups.values()]
    .sort((a, b) => b.duePaise - a.duePaise || a.party.localeCompare(b.party))
    .map((g) => {
      const overdueDays = g.lines.filter((l) => l.daysOverdue > 0).map((l) => l.daysOverdue);
      return {
        party: g.party,
        due: fromPaise(g.duePaise),
        overdue: fromPaise(g.overduePaise),
        oldestDaysOverdue: overdueDays.length > 0 ? Math.max(...overdueDays) : null,
        count: g.lines.length,
        documents: g.lines.sort((a, b) => a.dueDate.localeCompare(b.dueDate)),
      };
    });
  const kinds = [...new Set(docs.map((d) => d.kind))];
  return {
    today,
    kind: options.kind ?? (kinds.length === 1 && kinds[0] !== undefined ? kinds[0] : 'all'),
    parties,
    total: fromPaise([...groups.values()].reduce((s, g) => s + g.duePaise, 0)),
    overdue: fromPaise([...groups.values()].reduce((s, g) => s + g.overduePaise, 0)),
    count: parties.reduce((s, p) => s + p.count, 0),
  };
}

/**
 * The `n` parties that owe the most (for bills: whom we owe the most), by amount outstanding as in
 * {@link owedBy}; parties whose balance is nil or a credit are not debtors and are left out. With
 * `today`, their overdue parts are filled in too.
 */
export function topDebtors(
  docs: readonly OpenDoc[],
  n: number,
  options: { today?: string } & KindOption = {},
): PartyBalance[] {
  const count = Math.max(0, Math.floor(n));
  return owedBy(docs, options)
    .parties.filter((p) => p.due > 0)
    .slice(0, count);
}

/** Documents falling due in a window, and those already overdue when it opens. */
export interface DueIn {
  window: { from: string; to: string };
  /** Documents whose due date is within the window (both ends included), earliest first. */
  due: DocLine[];
  total: number;
  /** Documents due before the window opens and still outstanding; `daysOverdue` as of `from`. */
  overdue: DocLine[];
  overdueTotal: number;
}

/**
 * What falls due between `window.from` and `window.to`, both days included: the open documents
 * whose due date (their date when they have none) lies in the window, earliest first, with their
 * total; and, listed separately, those due before `from` and still outstanding — overdue as the
 * window opens, with days overdue counted to `from`. Documents due after `to` are not listed.
 */
export function dueIn(
  docs: readonly OpenDoc[],
  window: { from: string; to: string },
  options: KindOption = {},
): DueIn {
  const from = dayNumber(window.from);
  const to = dayNumber(window.to);
  if (to < from) throw new RangeError(`window ends (${window.to}) before it starts (${window.from})`);
  const due: DocLine[] = [];
  const overdue: DocLine[] = [];
  for (const doc of selectOpen(docs, options.kind)) {
    const line = docLine(doc, window.from);
    const d = dayNumber(line.dueDate);
    if (d < from) overdue.push(line);
    else if (d <= to) due.push(line);
  }
  const byDue = (a: DocLine, b: DocLine) =>
    a.dueDate.localeCompare(b.dueDate) || a.party.localeCompare(b.party);
  const sum = (lines: DocLine[]) => fromPaise(lines.reduce((s, l) => s + toPaise(l.due), 0));
  return {
    window: { from: window.from, to: window.to },
    due: due.sort(byDue),
    total: sum(due),
    overdue: overdue.sort(byDue),
    overdueTotal: sum(overdue),
  };
}

/** How late a party usually pays, and the history it is read from. */
export interface DaysLate {
  party: string;
  /** Median of the days late; a half day when the sample is even and the middle two differ. */
  medianDaysLate: number;
  sample: number;
  /** Days late of each settlement used, in the order given. */
  daysLate: number[];
}

function lateness(s: Settlement): number | undefined {
  const due = s.dueDate ?? s.date;
  if (due === undefined) return undefined;
  return Math.max(0, daysBetween(due, s.paidDate));
}

/**
 * How many days late `party` usually pays: over its settlements (documents paid in full), days late
 * is the paid date minus the due date (the document date when there is no due date), counted as 0
 * when paid early or on time; the answer is the median, so one very late payment does not set the
 * usual. Settlements with neither a due date nor a document date are left out. A party with no
 * usable history gives null — the caller falls back (see {@link portfolioDaysLate}).
 */
export function usualDaysLate(
  settlements: readonly Settlement[],
  party: string,
  options: KindOption = {},
): DaysLate | null {
  const key = partyKey(party);
  const daysLate: number[] = [];
  for (const s of settlements) {
    if (options.kind !== undefined && s.kind !== options.kind) continue;
    if (partyKey(s.party) !== key) continue;
    const late = lateness(s);
    if (late !== undefined) daysLate.push(late);
  }
  const m = median(daysLate);
  return m === undefined
    ? null
    : { party: party.trim(), medianDaysLate: m, sample: daysLate.length, daysLate };
}

/**
 * How late the whole book pays: the median days late over every settlement (of `kind` when given),
 * each counted as in {@link usualDaysLate}; null when there is none. The fallback for a party with
 * no history of its own.
 */
export function portfolioDaysLate(
  settlements: readonly Settlement[],
  options: KindOption = {},
): { medianDaysLate: number; sample: number } | null {
  const days = settlements
    .filter((s) => options.kind === undefined || s.kind === options.kind)
    .map(lateness)
    .filter((d): d is number => d !== undefined);
  const m = median(days);
  return m === undefined ? null : { medianDaysLate: m, sample: days.length };
}
