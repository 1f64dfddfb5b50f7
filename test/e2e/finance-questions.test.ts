// A CFO's everyday questions, asked with no model configured: a labelled set of questions in
// English, Hinglish and Hindi, with periods and filters. Each expected figure is computed here from
// the demo books' own reports and records (with this file's own date arithmetic), never by munim's
// code. Scored: at least 90 % answered with the right figure, no wrong figure, every miss a decline.
import { runTool } from '@munim/demo-books';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

let sys: TestSystem;
const tenant = { entityId: 'ent-cfo-questions', orgId: 'org-cfo-questions' };

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({ database, nats, llm: false });
});

afterAll(async () => {
  await sys?.stop();
});

// ---- this file's own calendar (India: the financial year starts in April) ----------------------
const pad = (n: number) => String(n).padStart(2, '0');
const day = (y: number, m: number, d: number) => {
  const date = new Date(Date.UTC(y, m - 1, d));
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
};
const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();
const todayText = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Asia/Kolkata',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
}).format(new Date());
const [Y, M, D] = todayText.split('-').map(Number) as [number, number, number];
const fyStart = M >= 4 ? Y : Y - 1;
const month = (offset: number) => {
  const m0 = (M - 1 + offset + 1200) % 12;
  const y = Y + Math.floor((M - 1 + offset) / 12);
  return { from: day(y, m0 + 1, 1), to: day(y, m0 + 1, lastDay(y, m0 + 1)) };
};
const thisMonth = { from: day(Y, M, 1), to: todayText };
const lastMonth = month(-1);
const thisFy = { from: day(fyStart, 4, 1), to: todayText };
const lastFy = { from: day(fyStart - 1, 4, 1), to: day(fyStart, 3, 31) };
/** FY quarter q (1 = Apr–Jun) of the current financial year. */
const fyQuarter = (q: number) => {
  const startMonth = 4 + (q - 1) * 3;
  const y = startMonth > 12 ? fyStart + 1 : fyStart;
  const m = ((startMonth - 1) % 12) + 1;
  return { from: day(y, m, 1), to: day(y, m + 2, lastDay(y, m + 2)) };
};
const currentQuarter = (() => {
  const q = Math.floor(((M - 4 + 12) % 12) / 3) + 1;
  return { ...fyQuarter(q), to: todayText };
})();
const sinceApril = { from: day(M >= 4 ? Y : Y - 1, 4, 1), to: todayText };

// ---- the books' own figures --------------------------------------------------------------------
type Row = Record<string, unknown>;
const report = (tool: string, args: Row = {}) =>
  runTool(sys.books.store, tool, args).structuredContent as Row;
const pnl = (p: { from: string; to: string }) =>
  report('get_profit_loss', { FromDate: p.from, ToDate: p.to });
const income = (p: { from: string; to: string }) => Number(pnl(p).TotalIncome);
const netProfit = (p: { from: string; to: string }) => Number(pnl(p).NetProfit);
const spent = (p: { from: string; to: string }) => {
  const r = pnl(p);
  return Number(r.TotalCostOfSales) + Number(r.TotalOperatingExpenses);
};
const gstPayable = (p: { from: string; to: string }) =>
  Number(report('get_gst_summary', { FromDate: p.from, ToDate: p.to }).NetGSTPayable);
const aged = (side: 'receivables' | 'payables') =>
  report(side === 'receivables' ? 'get_aged_receivables_report' : 'get_aged_payables_report') as {
    Contacts: { ContactName: string; Total: number; Current: number }[];
    Totals: { Total: number };
  };
const top = (side: 'receivables' | 'payables') =>
  [...aged(side).Contacts].sort((a, b) => b.Total - a.Total)[0]?.Total ?? Number.NaN;
const owedBy = (side: 'receivables' | 'payables', name: string) =>
  aged(side).Contacts.find((c) => c.ContactName === name)?.Total ?? 0;
const overdueOf = (name: string) => {
  const c = aged('receivables').Contacts.find((x) => x.ContactName === name);
  return c ? c.Total - c.Current : 0;
};
const balances = () =>
  (report('get_balance_sheet') as { Assets: { Code: string; Name: string; Amount: number }[] }).Assets;
const cashAndBank = () =>
  balances()
    .filter((a) => /bank|cash/i.test(a.Name))
    .reduce((s, a) => s + a.Amount, 0);
const bankOnly = () =>
  balances()
    .filter((a) => /bank/i.test(a.Name))
    .reduce((s, a) => s + a.Amount, 0);
/** Sales to one customer in a period: its invoices' amounts before tax. */
const salesTo = (name: string, p: { from: string; to: string }) => {
  const id = sys.books.store.contacts.find((c) => c.Name === name)?.ContactId;
  return sys.books.store.invoices
    .filter(
      (i) =>
        i.ContactId === id &&
        i.Date >= p.from &&
        i.Date <= p.to &&
        !['VOIDED', 'DRAFT', 'DELETED'].includes(i.Status),
    )
    .reduce((s, i) => s + i.Lines.reduce((t, l) => t + l.LineAmount, 0), 0);
};

/**
 * A question and the figures its answer must state (the first is its headline); where the
 * question can fairly mean either of two figures, either is right (a list).
 */
type Labelled = [question: string, expected: () => (number | number[])[]];

const QUESTIONS: Labelled[] = [
  // Who owes me, and how much
  ['who owes me the most money?', () => [top('receivables')]],
  ['Who owes me the most?', () => [top('receivables')]],
  ['which customer owes me the most', () => [top('receivables')]],
  ['sabse zyada paisa kiska baaki hai', () => [top('receivables')]],
  ['सबसे ज़्यादा पैसा किसका बाकी है', () => [top('receivables')]],
  ['top debtor kaun hai', () => [top('receivables')]],
  ['how much do customers owe me?', () => [aged('receivables').Totals.Total]],
  ['total receivables', () => [aged('receivables').Totals.Total]],
  ['customers se kitna lena hai', () => [aged('receivables').Totals.Total]],
  ['mujhe customers se kitna paisa lena hai', () => [aged('receivables').Totals.Total]],
  ['ग्राहकों से कितना लेना है', () => [aged('receivables').Totals.Total]],
  ['how much money is outstanding from customers', () => [aged('receivables').Totals.Total]],
  ['How much does Acme Corp owe me?', () => [owedBy('receivables', 'Acme Corp')]],
  ['Acme Corp ka kitna baaki hai', () => [owedBy('receivables', 'Acme Corp')]],
  ['how much does Singh & Sons Hardware owe us', () => [owedBy('receivables', 'Singh & Sons Hardware')]],
  ['Reddy Builders se kitna lena hai', () => [owedBy('receivables', 'Reddy Builders Pvt Ltd')]],
  ['show overdue invoices for Acme Corp', () => [overdueOf('Acme Corp')]],
  ['overdue amount for Singh & Sons Hardware', () => [overdueOf('Singh & Sons Hardware')]],
  // What I owe
  ['how much do I owe my vendors?', () => [aged('payables').Totals.Total]],
  ['how much do we owe suppliers', () => [aged('payables').Totals.Total]],
  ['suppliers ko kitna dena hai', () => [aged('payables').Totals.Total]],
  ['vendors ka kitna dena baaki hai', () => [aged('payables').Totals.Total]],
  ['मुझे सप्लायर को कितना देना है', () => [aged('payables').Totals.Total]],
  ['total payables', () => [aged('payables').Totals.Total]],
  ['which vendor do I owe the most', () => [top('payables')]],
  ['sabse zyada kisko dena hai', () => [top('payables')]],
  [
    'how much do I owe Mehta Electricals Wholesale',
    () => [owedBy('payables', 'Mehta Electricals Wholesale')],
  ],
  ['Gupta Wires ko kitna dena hai', () => [owedBy('payables', 'Gupta Wires & Cables Pvt Ltd')]],
  // Cash
  ['how much cash do I have?', () => [cashAndBank()]],
  ['what is my cash position', () => [cashAndBank()]],
  ['cash kitna hai', () => [cashAndBank()]],
  ['मेरे पास कितना कैश है', () => [cashAndBank()]],
  ['how much money is in the bank', () => [bankOnly()]],
  ['bank balance kitna hai', () => [bankOnly()]],
  ['what is my bank balance today', () => [bankOnly()]],
  // Profit
  ['what is my profit this year?', () => [netProfit(thisFy)]],
  ['net profit this financial year', () => [netProfit(thisFy)]],
  ['is saal kitna munafa hua', () => [netProfit(thisFy)]],
  ['इस साल का मुनाफा कितना है', () => [netProfit(thisFy)]],
  ['profit last month', () => [netProfit(lastMonth)]],
  ['pichle mahine ka profit', () => [netProfit(lastMonth)]],
  ['पिछले महीने का मुनाफा', () => [netProfit(lastMonth)]],
  ['profit this month', () => [netProfit(thisMonth)]],
  ['what was my profit in Q2', () => [netProfit(fyQuarter(2))]],
  ['profit for Q1', () => [netProfit(fyQuarter(1))]],
  ['profit this quarter', () => [netProfit(currentQuarter)]],
  ['profit since April', () => [netProfit(sinceApril)]],
  ['what was my profit last FY', () => [netProfit(lastFy)]],
  // Sales
  ['what were my sales last month?', () => [income(lastMonth)]],
  ['sales last month', () => [income(lastMonth)]],
  ['pichle mahine ki bikri', () => [income(lastMonth)]],
  ['pichle mahine ki sales kitni thi', () => [income(lastMonth)]],
  ['पिछले महीने की बिक्री कितनी थी', () => [income(lastMonth)]],
  ['sales this month', () => [income(thisMonth)]],
  ['is mahine kitni bikri hui', () => [income(thisMonth)]],
  ['revenue this quarter', () => [income(currentQuarter)]],
  ['sales in Q2', () => [income(fyQuarter(2))]],
  ['turnover this financial year', () => [income(thisFy)]],
  ['total sales since April', () => [income(sinceApril)]],
  ['sales last FY', () => [income(lastFy)]],
  ['sales to Acme Corp this year', () => [salesTo('Acme Corp', thisFy)]],
  ['Acme Corp ko is saal kitna becha', () => [salesTo('Acme Corp', thisFy)]],
  // Comparisons
  [
    "compare this month's sales with last month",
    // Last month whole, or its same days (like for like): either is a fair reading.
    () => [income(thisMonth), [income(lastMonth), income({ from: lastMonth.from, to: sameDayLastMonth() })]],
  ],
  ['sales last month vs the month before', () => [income(lastMonth), income(month(-2))]],
  ['profit last month compared with the month before', () => [netProfit(lastMonth), netProfit(month(-2))]],
  ['pichle mahine ka profit vs usse pichle mahine', () => [netProfit(lastMonth), netProfit(month(-2))]],
  // GST
  ['how much GST do I owe this month?', () => [gstPayable(thisMonth)]],
  ['GST payable this month', () => [gstPayable(thisMonth)]],
  ['is mahine GST kitna bharna hai', () => [gstPayable(thisMonth)]],
  ['इस महीने कितना जीएसटी देना है', () => [gstPayable(thisMonth)]],
  ['GST payable last month', () => [gstPayable(lastMonth)]],
  ['pichle mahine ka GST kitna dena tha', () => [gstPayable(lastMonth)]],
  ['how much GST do I owe for Q2', () => [gstPayable(fyQuarter(2))]],
  // Expenses
  ['what did I spend last month', () => [spent(lastMonth)]],
  ['expenses last month', () => [spent(lastMonth)]],
  ['pichle mahine ka kharcha', () => [spent(lastMonth)]],
  ['पिछले महीने का खर्च कितना था', () => [spent(lastMonth)]],
  ['total expenses this financial year', () => [spent(thisFy)]],
  ['expenses this month', () => [spent(thisMonth)]],
  ['kharcha is saal kitna hua', () => [spent(thisFy)]],
  // Margins
  ['what is my gross margin this year', () => [pct(Number(pnl(thisFy).GrossProfit), income(thisFy))]],
  ['net margin last month', () => [pct(netProfit(lastMonth), income(lastMonth))]],
];

/** Today's day of the month, in last month (its last day when shorter). */
function sameDayLastMonth(): string {
  const y = Number(lastMonth.from.slice(0, 4));
  const m = Number(lastMonth.from.slice(5, 7));
  return day(y, m, Math.min(D, lastDay(y, m)));
}

/** A share as the percentage an answer states, to one decimal. */
function pct(part: number, whole: number): number {
  return Math.round((part / whole) * 1000) / 10;
}

/** Every figure an answer states: amounts (any grouping, ₹ or not) and percentages. */
function figuresIn(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(/-?₹?\s?-?\d[\d,]*(?:\.\d+)?\s?%?/g)) {
    const raw = m[0].replace(/[₹,\s%]/g, '');
    const value = Number(raw);
    if (Number.isFinite(value)) out.push(Math.abs(value));
  }
  return out;
}

/** Whether the answer states `expected`: to the paisa, or to the rupee when it rounds, or a % to 0.1. */
const states = (text: string, expected: number) =>
  figuresIn(text).some(
    (f) => Math.abs(f - Math.abs(expected)) < 0.051 || Math.abs(f - Math.round(Math.abs(expected))) < 0.001,
  );

function outcomeOf(events: SseEvent[]): { text: string; error: boolean } {
  const last = events.at(-1);
  if (last?.event === 'error') return { text: String(last.data.message), error: true };
  return { text: String(last?.data.response ?? ''), error: false };
}

/** A decline says it cannot answer, and states no figure that could be taken for an answer. */
const isDecline = (o: { text: string; error: boolean }) =>
  (o.error ||
    /can(?:no|')t|could not|couldn't|unable|not able|no (?:language )?model|try asking|i can answer/i.test(
      o.text,
    )) &&
  !/₹\s?\d/.test(o.text);

describe('a CFO’s questions without a model', () => {
  test(`${QUESTIONS.length} labelled questions: at least 90 % right, no wrong figure, every miss a decline`, async () => {
    expect(QUESTIONS.length).toBeGreaterThanOrEqual(80);
    const right: string[] = [];
    const wrong: string[] = [];
    const declined: string[] = [];
    for (const [question, expected] of QUESTIONS) {
      const figures = expected();
      const { events } = await ask(sys.gatewayUrl, { query: question, ...tenant });
      const outcome = outcomeOf(events);
      if (figures.every((f) => (Array.isArray(f) ? f : [f]).some((g) => states(outcome.text, g))))
        right.push(question);
      else if (isDecline(outcome)) declined.push(`${question} (${outcome.text.slice(0, 160)})`);
      else wrong.push(`${question} → expected ${figures.join(', ')}; got: ${outcome.text.slice(0, 300)}`);
    }
    const report = `right ${right.length}/${QUESTIONS.length}; declined: ${declined.join(' | ')}; wrong:\n${wrong.join('\n')}`;
    console.log(report);
    expect(wrong, report).toEqual([]);
    expect(right.length / QUESTIONS.length, report).toBeGreaterThanOrEqual(0.9);
  }, 600_000);

  test('a question munim cannot answer by code gets a short useful reply: what it can answer, with examples', async () => {
    for (const question of [
      'why did my profit fall this quarter',
      'budget vs actual this quarter',
      'kya mujhe naya godown lena chahiye',
    ]) {
      const { events } = await ask(sys.gatewayUrl, { query: question, ...tenant });
      const outcome = outcomeOf(events);
      expect(isDecline(outcome), `${question}: ${outcome.text}`).toBe(true);
      expect(outcome.text).toMatch(/e\.g\.|for example|like|such as|try/i);
    }
  }, 120_000);
});
