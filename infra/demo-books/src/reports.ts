// Views (records as the API returns them) and reports, all computed from the books on every call.
import {
  type Account,
  type Bill,
  type Books,
  type Contact,
  type CreditNote,
  daysBetween,
  type Invoice,
  type JournalEntry,
  type Line,
  lineTotals,
  type Payment,
  round2,
  sum,
} from './data.ts';

const EPS = 0.005;
const LAST = '9999-12-31';

export const findAccount = (books: Books, id: unknown): Account | undefined =>
  books.accounts.find((a) => a.AccountId === id);
export const findContact = (books: Books, id: unknown): Contact | undefined =>
  books.contacts.find((c) => c.ContactId === id);
const contactName = (books: Books, id: string | null): string | null => findContact(books, id)?.Name ?? null;

// ── documents ───────────────────────────────────────────────────────────────

/** Sum applied to an invoice or bill by active payments dated on or before `upTo`. */
function applied(books: Books, key: 'InvoiceId' | 'BillId', id: string, upTo = LAST): number {
  return sum(
    books.payments
      .filter((p) => p.Status === 'ACTIVE' && p.Date <= upTo)
      .flatMap((p) => p.Applications.filter((a) => a[key] === id).map((a) => a.Amount)),
  );
}

function credited(books: Books, invoiceId: string, upTo = LAST): number {
  return sum(
    books.creditNotes
      .filter((c) => c.Status === 'AUTHORISED' && c.InvoiceId === invoiceId && c.Date <= upTo)
      .map((c) => lineTotals(c.Lines).Total),
  );
}

function taxSplit(books: Books, contactId: string | null, totalTax: number, place?: string | null) {
  const state = place ?? findContact(books, contactId)?.State ?? books.company.State;
  if (state === books.company.State) {
    const half = round2(totalTax / 2);
    return { PlaceOfSupply: state, CGST: half, SGST: round2(totalTax - half), IGST: 0 };
  }
  return { PlaceOfSupply: state, CGST: 0, SGST: 0, IGST: totalTax };
}

export interface ViewOptions {
  /** Date overdue days are counted to (default: the books' asOf). */
  asOf?: string | undefined;
  /** Ignore payments and credits after this date (default: none). */
  cutoff?: string | undefined;
}

export function invoiceView(books: Books, inv: Invoice, opts: ViewOptions = {}) {
  const asOf = opts.asOf ?? books.asOf;
  const t = lineTotals(inv.Lines);
  const AmountPaid = applied(books, 'InvoiceId', inv.InvoiceId, opts.cutoff);
  const AmountCredited = credited(books, inv.InvoiceId, opts.cutoff);
  const AmountDue = inv.Status === 'VOIDED' ? 0 : round2(t.Total - AmountPaid - AmountCredited);
  const settled = AmountPaid + AmountCredited > 0;
  const open = inv.Status === 'AUTHORISED' && AmountDue > EPS;
  const DaysOverdue = open ? Math.max(0, daysBetween(inv.DueDate, asOf)) : 0;
  return {
    InvoiceId: inv.InvoiceId,
    InvoiceNumber: inv.InvoiceNumber,
    ContactId: inv.ContactId,
    ContactName: contactName(books, inv.ContactId),
    Date: inv.Date,
    DueDate: inv.DueDate,
    Reference: inv.Reference,
    Status: inv.Status === 'AUTHORISED' && settled && AmountDue <= EPS ? 'PAID' : inv.Status,
    PaymentStatus: !settled ? 'UNPAID' : AmountDue <= EPS ? 'PAID' : 'PARTIALLY_PAID',
    IsOverdue: DaysOverdue > 0,
    DaysOverdue,
    Lines: inv.Lines,
    ...t,
    ...taxSplit(books, inv.ContactId, t.TotalTax, inv.PlaceOfSupply),
    AmountPaid,
    AmountCredited,
    AmountDue,
    CurrencyCode: inv.CurrencyCode,
    SentToContact: inv.SentToContact,
    SentTo: inv.SentTo,
    Notes: inv.Notes,
    CreatedAt: inv.CreatedAt,
    UpdatedAt: inv.UpdatedAt,
  };
}

export function billView(books: Books, bill: Bill, opts: ViewOptions = {}) {
  const asOf = opts.asOf ?? books.asOf;
  const t = lineTotals(bill.Lines);
  const AmountPaid = applied(books, 'BillId', bill.BillId, opts.cutoff);
  const AmountDue = bill.Status === 'VOIDED' ? 0 : round2(t.Total - AmountPaid);
  const open = bill.Status === 'AUTHORISED' && AmountDue > EPS;
  const DaysOverdue = open ? Math.max(0, daysBetween(bill.DueDate, asOf)) : 0;
  return {
    BillId: bill.BillId,
    BillNumber: bill.BillNumber,
    ContactId: bill.ContactId,
    ContactName: contactName(books, bill.ContactId),
    Date: bill.Date,
    DueDate: bill.DueDate,
    Reference: bill.Reference,
    Status: bill.Status === 'AUTHORISED' && AmountPaid > 0 && AmountDue <= EPS ? 'PAID' : bill.Status,
    IsOverdue: DaysOverdue > 0,
    DaysOverdue,
    Lines: bill.Lines,
    ...t,
    ...taxSplit(books, bill.ContactId, t.TotalTax),
    AmountPaid,
    AmountDue,
    CurrencyCode: bill.CurrencyCode,
    CreatedAt: bill.CreatedAt,
    UpdatedAt: bill.UpdatedAt,
  };
}

export function paymentView(books: Books, p: Payment) {
  const appliedTotal = sum(p.Applications.map((a) => a.Amount));
  return {
    ...p,
    ContactName: contactName(books, p.ContactId),
    AccountName: findAccount(books, p.AccountId)?.Name ?? null,
    Applications: p.Applications.map((a) => ({
      ...a,
      ...(a.InvoiceId != null && {
        InvoiceNumber: books.invoices.find((i) => i.InvoiceId === a.InvoiceId)?.InvoiceNumber ?? null,
      }),
      ...(a.BillId != null && {
        BillNumber: books.bills.find((b) => b.BillId === a.BillId)?.BillNumber ?? null,
      }),
    })),
    UnappliedAmount: round2(p.Amount - appliedTotal),
  };
}

export function creditNoteView(books: Books, c: CreditNote) {
  return {
    ...c,
    ContactName: contactName(books, c.ContactId),
    InvoiceNumber: books.invoices.find((i) => i.InvoiceId === c.InvoiceId)?.InvoiceNumber ?? null,
    ...lineTotals(c.Lines),
  };
}

export function journalView(books: Books, j: JournalEntry) {
  return {
    ...j,
    Lines: j.Lines.map((l) => ({ ...l, AccountName: findAccount(books, l.AccountId)?.Name ?? null })),
    TotalDebit: sum(j.Lines.map((l) => l.DebitAmount)),
    TotalCredit: sum(j.Lines.map((l) => l.CreditAmount)),
  };
}

export function contactView(books: Books, c: Contact) {
  const open =
    c.ContactType === 'CUSTOMER'
      ? books.invoices.filter((i) => i.ContactId === c.ContactId).map((i) => invoiceView(books, i))
      : books.bills.filter((b) => b.ContactId === c.ContactId).map((b) => billView(books, b));
  return {
    ...c,
    OutstandingBalance: sum(open.map((d) => (d.Status === 'AUTHORISED' ? d.AmountDue : 0))),
    OverdueBalance: sum(open.map((d) => (d.IsOverdue ? d.AmountDue : 0))),
  };
}

// ── the ledger ──────────────────────────────────────────────────────────────

interface Posting {
  AccountId: string;
  Debit: number;
  Credit: number;
}

export interface Transaction {
  Date: string;
  Source: 'INVOICE' | 'CREDIT_NOTE' | 'BILL' | 'PAYMENT' | 'JOURNAL';
  SourceId: string;
  Kind?: Payment['Type'];
  Postings: Posting[];
}

const code = (books: Books, c: string): string => books.accounts.find((a) => a.Code === c)?.AccountId ?? '';

/** Every document as double-entry postings. Postings to unknown accounts land in Suspense. */
export function transactions(books: Books): Transaction[] {
  const known = new Set(books.accounts.map((a) => a.AccountId));
  const suspense = code(books, '1900');
  const acct = (id: string | null | undefined, fallback = suspense): string =>
    id && known.has(id) ? id : fallback;
  const [AR, AP, SALES, PURCHASES, GST_IN, GST_OUT] = ['1100', '2000', '4000', '5000', '1200', '2100'].map(
    (c) => code(books, c),
  ) as [string, string, string, string, string, string];
  const dr = (AccountId: string, amount: number): Posting => ({ AccountId, Debit: amount, Credit: 0 });
  const cr = (AccountId: string, amount: number): Posting => ({ AccountId, Debit: 0, Credit: amount });
  const lineSide = (lines: Line[], side: typeof dr, fallback: string) =>
    lines.map((l) => side(acct(l.AccountId, fallback), l.LineAmount));
  const out: Transaction[] = [];

  for (const i of books.invoices) {
    if (i.Status !== 'AUTHORISED') continue;
    const t = lineTotals(i.Lines);
    out.push({
      Date: i.Date,
      Source: 'INVOICE',
      SourceId: i.InvoiceId,
      Postings: [dr(AR, t.Total), ...lineSide(i.Lines, cr, SALES), cr(GST_OUT, t.TotalTax)],
    });
  }
  for (const c of books.creditNotes) {
    if (c.Status !== 'AUTHORISED') continue;
    const t = lineTotals(c.Lines);
    out.push({
      Date: c.Date,
      Source: 'CREDIT_NOTE',
      SourceId: c.CreditNoteId,
      Postings: [...lineSide(c.Lines, dr, SALES), dr(GST_OUT, t.TotalTax), cr(AR, t.Total)],
    });
  }
  for (const b of books.bills) {
    if (b.Status !== 'AUTHORISED') continue;
    const t = lineTotals(b.Lines);
    out.push({
      Date: b.Date,
      Source: 'BILL',
      SourceId: b.BillId,
      Postings: [...lineSide(b.Lines, dr, PURCHASES), dr(GST_IN, t.TotalTax), cr(AP, t.Total)],
    });
  }
  for (const p of books.payments) {
    if (p.Status !== 'ACTIVE') continue;
    const money = acct(p.AccountId);
    out.push({
      Date: p.Date,
      Source: 'PAYMENT',
      SourceId: p.PaymentId,
      Kind: p.Type,
      Postings:
        p.Type === 'SPEND'
          ? [dr(AP, p.Amount), cr(money, p.Amount)]
          : [dr(money, p.Amount), cr(AR, p.Amount)],
    });
  }
  for (const j of books.journals) {
    out.push({
      Date: j.Date,
      Source: 'JOURNAL',
      SourceId: j.JournalEntryId,
      Postings: j.Lines.map((l) => ({
        AccountId: acct(l.AccountId),
        Debit: l.DebitAmount,
        Credit: l.CreditAmount,
      })),
    });
  }
  return out.sort((a, b) => a.Date.localeCompare(b.Date));
}

/** Net balance per account (debit-positive for assets and expenses, credit-positive otherwise). */
export function balances(books: Books, from = '0000-01-01', to = LAST): Map<string, number> {
  const net = new Map<string, number>();
  for (const t of transactions(books)) {
    if (t.Date < from || t.Date > to) continue;
    for (const p of t.Postings) net.set(p.AccountId, (net.get(p.AccountId) ?? 0) + p.Debit - p.Credit);
  }
  const out = new Map<string, number>();
  for (const a of books.accounts) {
    const d = net.get(a.AccountId) ?? 0;
    out.set(a.AccountId, round2(a.Type === 'ASSET' || a.Type === 'EXPENSE' ? d : -d));
  }
  return out;
}

const rows = (books: Books, bal: Map<string, number>, keep: (a: Account) => boolean) =>
  books.accounts
    .filter((a) => keep(a) && Math.abs(bal.get(a.AccountId) ?? 0) > EPS)
    .map((a) => ({ AccountId: a.AccountId, Code: a.Code, Name: a.Name, Amount: bal.get(a.AccountId) ?? 0 }));

const total = (xs: { Amount: number }[]): number => sum(xs.map((x) => x.Amount));

// ── reports ─────────────────────────────────────────────────────────────────

export function profitAndLoss(books: Books, fromDate = books.startDate, toDate = books.asOf) {
  const bal = balances(books, fromDate, toDate);
  const Income = rows(books, bal, (a) => a.Type === 'REVENUE');
  const CostOfSales = rows(books, bal, (a) => a.Type === 'EXPENSE' && a.SubType === 'COST_OF_SALES');
  const OperatingExpenses = rows(books, bal, (a) => a.Type === 'EXPENSE' && a.SubType !== 'COST_OF_SALES');
  const GrossProfit = round2(total(Income) - total(CostOfSales));
  return {
    ReportName: 'Profit and Loss',
    Company: books.company.LegalName,
    FromDate: fromDate,
    ToDate: toDate,
    CurrencyCode: 'INR',
    Income,
    TotalIncome: total(Income),
    CostOfSales,
    TotalCostOfSales: total(CostOfSales),
    GrossProfit,
    OperatingExpenses,
    TotalOperatingExpenses: total(OperatingExpenses),
    NetProfit: round2(GrossProfit - total(OperatingExpenses)),
  };
}

export function balanceSheet(books: Books, asOfDate = books.asOf) {
  const bal = balances(books, undefined, asOfDate);
  const Assets = rows(books, bal, (a) => a.Type === 'ASSET');
  const Liabilities = rows(books, bal, (a) => a.Type === 'LIABILITY');
  const earnings = round2(
    sum(
      books.accounts.map(
        (a) => (a.Type === 'REVENUE' ? 1 : a.Type === 'EXPENSE' ? -1 : 0) * (bal.get(a.AccountId) ?? 0),
      ),
    ),
  );
  const Equity = [
    ...rows(books, bal, (a) => a.Type === 'EQUITY'),
    { AccountId: null, Code: null, Name: 'Current Year Earnings', Amount: earnings },
  ];
  const TotalAssets = total(Assets);
  const TotalLiabilitiesAndEquity = round2(total(Liabilities) + total(Equity));
  return {
    ReportName: 'Balance Sheet',
    Company: books.company.LegalName,
    AsOfDate: asOfDate,
    CurrencyCode: 'INR',
    Assets,
    TotalAssets,
    Liabilities,
    TotalLiabilities: total(Liabilities),
    Equity,
    TotalEquity: total(Equity),
    TotalLiabilitiesAndEquity,
    Difference: round2(TotalAssets - TotalLiabilitiesAndEquity),
    Balanced: Math.abs(TotalAssets - TotalLiabilitiesAndEquity) < 0.01,
  };
}

export function trialBalance(books: Books, asOfDate = books.asOf) {
  const bal = balances(books, undefined, asOfDate);
  const Accounts = books.accounts
    .filter((a) => Math.abs(bal.get(a.AccountId) ?? 0) > EPS)
    .map((a) => {
      const signed = (bal.get(a.AccountId) ?? 0) * (a.Type === 'ASSET' || a.Type === 'EXPENSE' ? 1 : -1);
      return {
        AccountId: a.AccountId,
        Code: a.Code,
        Name: a.Name,
        Type: a.Type,
        Debit: Math.max(signed, 0),
        Credit: Math.max(-signed, 0),
      };
    });
  const TotalDebit = sum(Accounts.map((a) => a.Debit));
  const TotalCredit = sum(Accounts.map((a) => a.Credit));
  return {
    ReportName: 'Trial Balance',
    AsOfDate: asOfDate,
    CurrencyCode: 'INR',
    Accounts,
    TotalDebit,
    TotalCredit,
    Balanced: Math.abs(TotalDebit - TotalCredit) < 0.01,
  };
}

const BUCKETS = ['Current', 'Days1To30', 'Days31To60', 'Days61To90', 'Over90Days'] as const;
type Bucket = (typeof BUCKETS)[number];
const bucketOf = (daysOverdue: number): Bucket =>
  daysOverdue <= 0
    ? 'Current'
    : daysOverdue <= 30
      ? 'Days1To30'
      : daysOverdue <= 60
        ? 'Days31To60'
        : daysOverdue <= 90
          ? 'Days61To90'
          : 'Over90Days';

function aging(
  docs: { ContactId: string | null; ContactName: string | null; AmountDue: number; DaysOverdue: number }[],
) {
  const empty = (): Record<Bucket, number> => ({
    Current: 0,
    Days1To30: 0,
    Days31To60: 0,
    Days61To90: 0,
    Over90Days: 0,
  });
  const byContact = new Map<
    string,
    { ContactId: string | null; ContactName: string | null } & Record<Bucket, number>
  >();
  const totals = empty();
  for (const d of docs) {
    const key = d.ContactId ?? '';
    const row = byContact.get(key) ?? { ContactId: d.ContactId, ContactName: d.ContactName, ...empty() };
    const b = bucketOf(d.DaysOverdue);
    row[b] = round2(row[b] + d.AmountDue);
    totals[b] = round2(totals[b] + d.AmountDue);
    byContact.set(key, row);
  }
  const Contacts = [...byContact.values()]
    .map((r) => ({ ...r, Total: sum(BUCKETS.map((b) => r[b])) }))
    .sort((a, b) => b.Total - a.Total);
  return { Contacts, Totals: { ...totals, Total: sum(BUCKETS.map((b) => totals[b])) } };
}

export function agedReceivables(books: Books, asOfDate?: string) {
  const opts = { asOf: asOfDate ?? books.asOf, cutoff: asOfDate };
  const Invoices = books.invoices
    .filter((i) => i.Status === 'AUTHORISED' && i.Date <= (asOfDate ?? LAST))
    .map((i) => invoiceView(books, i, opts))
    .filter((i) => i.AmountDue > EPS)
    .map((i) => ({
      InvoiceId: i.InvoiceId,
      InvoiceNumber: i.InvoiceNumber,
      ContactId: i.ContactId,
      ContactName: i.ContactName,
      Date: i.Date,
      DueDate: i.DueDate,
      Total: i.Total,
      AmountDue: i.AmountDue,
      DaysOverdue: i.DaysOverdue,
      Bucket: bucketOf(i.DaysOverdue),
    }));
  return {
    ReportName: 'Aged Receivables',
    AsOfDate: opts.asOf,
    CurrencyCode: 'INR',
    ...aging(Invoices),
    Invoices,
  };
}

export function agedPayables(books: Books, asOfDate?: string) {
  const opts = { asOf: asOfDate ?? books.asOf, cutoff: asOfDate };
  const Bills = books.bills
    .filter((b) => b.Status === 'AUTHORISED' && b.Date <= (asOfDate ?? LAST))
    .map((b) => billView(books, b, opts))
    .filter((b) => b.AmountDue > EPS)
    .map((b) => ({
      BillId: b.BillId,
      BillNumber: b.BillNumber,
      ContactId: b.ContactId,
      ContactName: b.ContactName,
      Date: b.Date,
      DueDate: b.DueDate,
      Total: b.Total,
      AmountDue: b.AmountDue,
      DaysOverdue: b.DaysOverdue,
      Bucket: bucketOf(b.DaysOverdue),
    }));
  return { ReportName: 'Aged Payables', AsOfDate: opts.asOf, CurrencyCode: 'INR', ...aging(Bills), Bills };
}

export function cashFlow(books: Books, fromDate = books.startDate, toDate = books.asOf) {
  const cash = new Set(
    books.accounts.filter((a) => a.SubType === 'BANK' || a.SubType === 'CASH').map((a) => a.AccountId),
  );
  const byId = new Map(books.accounts.map((a) => [a.AccountId, a]));
  const sections = {
    Operating: new Map<string, number>(),
    Investing: new Map<string, number>(),
    Financing: new Map<string, number>(),
  };
  let opening = 0;
  for (const t of transactions(books)) {
    if (t.Date > toDate) continue;
    const delta = round2(sum(t.Postings.filter((p) => cash.has(p.AccountId)).map((p) => p.Debit - p.Credit)));
    if (t.Date < fromDate) {
      opening += delta;
      continue;
    }
    if (Math.abs(delta) < EPS) continue;
    const other = t.Postings.map((p) => byId.get(p.AccountId)).filter(
      (a): a is Account => !!a && !cash.has(a.AccountId),
    );
    let section: keyof typeof sections = 'Operating';
    let label: string;
    if (t.Source === 'PAYMENT')
      label = t.Kind === 'SPEND' ? 'Payments to suppliers' : 'Receipts from customers';
    else if (other.some((a) => a.Type === 'EQUITY'))
      [section, label] = ['Financing', 'Capital introduced / withdrawn'];
    else if (other.some((a) => a.SubType === 'FIXED_ASSET')) [section, label] = ['Investing', 'Fixed assets'];
    else if (other.some((a) => a.SubType === 'TAX')) label = 'GST paid';
    else label = other[0]?.Name ?? 'Other';
    sections[section].set(label, round2((sections[section].get(label) ?? 0) + delta));
  }
  const section = (m: Map<string, number>) => {
    const Items = [...m].map(([Description, Amount]) => ({ Description, Amount }));
    return { Items, NetCash: total(Items) };
  };
  const OperatingActivities = section(sections.Operating);
  const InvestingActivities = section(sections.Investing);
  const FinancingActivities = section(sections.Financing);
  const NetChangeInCash = round2(
    OperatingActivities.NetCash + InvestingActivities.NetCash + FinancingActivities.NetCash,
  );
  const closing = balances(books, undefined, toDate);
  return {
    ReportName: 'Cash Flow Statement',
    Method: 'direct',
    FromDate: fromDate,
    ToDate: toDate,
    CurrencyCode: 'INR',
    OpeningCashBalance: round2(opening),
    OperatingActivities,
    InvestingActivities,
    FinancingActivities,
    NetChangeInCash,
    ClosingCashBalance: round2(opening + NetChangeInCash),
    CashAccounts: books.accounts
      .filter((a) => cash.has(a.AccountId))
      .map((a) => ({ AccountId: a.AccountId, Name: a.Name, Balance: closing.get(a.AccountId) ?? 0 })),
  };
}

export function gstSummary(books: Books, fromDate = books.startDate, toDate = books.asOf) {
  const within = (d: { Date: string }) => d.Date >= fromDate && d.Date <= toDate;
  const blank = () => ({ TaxableValue: 0, CGST: 0, SGST: 0, IGST: 0, TotalTax: 0 });
  type Tally = ReturnType<typeof blank>;
  const add = (t: Tally, contactId: string | null, lines: Line[], sign: 1 | -1) => {
    const lt = lineTotals(lines);
    const s = taxSplit(books, contactId, lt.TotalTax);
    t.TaxableValue = round2(t.TaxableValue + sign * lt.SubTotal);
    t.CGST = round2(t.CGST + sign * s.CGST);
    t.SGST = round2(t.SGST + sign * s.SGST);
    t.IGST = round2(t.IGST + sign * s.IGST);
    t.TotalTax = round2(t.TotalTax + sign * lt.TotalTax);
  };
  const Output = blank();
  const Input = blank();
  const months = new Map<string, { Month: string; OutputTax: number; InputTax: number }>();
  const month = (date: string) => {
    const key = date.slice(0, 7);
    const m = months.get(key) ?? { Month: key, OutputTax: 0, InputTax: 0 };
    months.set(key, m);
    return m;
  };
  for (const i of books.invoices.filter((x) => x.Status === 'AUTHORISED' && within(x))) {
    add(Output, i.ContactId, i.Lines, 1);
    const m = month(i.Date);
    m.OutputTax = round2(m.OutputTax + lineTotals(i.Lines).TotalTax);
  }
  for (const c of books.creditNotes.filter((x) => x.Status === 'AUTHORISED' && within(x))) {
    add(Output, c.ContactId, c.Lines, -1);
    const m = month(c.Date);
    m.OutputTax = round2(m.OutputTax - lineTotals(c.Lines).TotalTax);
  }
  for (const b of books.bills.filter((x) => x.Status === 'AUTHORISED' && within(x))) {
    add(Input, b.ContactId, b.Lines, 1);
    const m = month(b.Date);
    m.InputTax = round2(m.InputTax + lineTotals(b.Lines).TotalTax);
  }
  return {
    ReportName: 'GST Summary',
    GSTIN: books.company.GSTIN,
    FromDate: fromDate,
    ToDate: toDate,
    CurrencyCode: 'INR',
    OutputTax: Output,
    InputTaxCredit: Input,
    NetGSTPayable: round2(Output.TotalTax - Input.TotalTax),
    ByMonth: [...months.values()]
      .sort((a, b) => a.Month.localeCompare(b.Month))
      .map((m) => ({ ...m, NetTax: round2(m.OutputTax - m.InputTax) })),
  };
}
