// Grounded figures: a labelled set of true answers raises no flag, invented figures are all caught,
// and generated figures behave the same way (from the sources in any format: verified; far from them: flagged).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkGrounding, groundAnswer, UNVERIFIED_WARNING } from '../src/answer/grounding.ts';
import { formatsFor } from '../src/render/locale.ts';

const invoices = {
  Invoices: [
    {
      InvoiceNumber: 'INV-0042',
      Customer: 'Acme Corp',
      Date: '2025-03-12',
      DueDate: '2025-04-11',
      Total: 117634.2,
      Balance: 117634.2,
      Status: 'Overdue',
    },
    {
      InvoiceNumber: 'INV-0043',
      Customer: 'Beta Traders',
      Date: '2025-03-15',
      DueDate: '2025-04-14',
      Total: 45000,
      Balance: 0,
      Status: 'Paid',
    },
    {
      InvoiceNumber: 'INV-0044',
      Customer: 'Acme Corp',
      Date: '2025-03-20',
      DueDate: '2025-04-19',
      Total: '2,36,000.00',
      Balance: '2,36,000.00',
      Status: 'Overdue',
    },
    {
      InvoiceNumber: 'INV-0045',
      Customer: 'Gamma Ltd',
      Date: '2025-03-28',
      DueDate: '2025-04-27',
      Total: 1250000,
      Balance: 625000,
      Status: 'Partial',
    },
  ],
  Page: 1,
  TotalCount: 4,
};
const march = {
  ReportName: 'Profit and Loss',
  FromDate: '2025-03-01',
  ToDate: '2025-03-31',
  TotalIncome: 420000,
  TotalExpenses: 357000,
  NetProfit: 63000,
};
const april = {
  ReportName: 'Profit and Loss',
  FromDate: '2025-04-01',
  ToDate: '2025-04-30',
  TotalIncome: 390000,
  TotalExpenses: 351000,
  NetProfit: 39000,
};
const contact = { Name: 'Acme Corp', GSTIN: '27AAPFU0939F1ZV', Phone: '+91 98765 43210', Balance: 353634.2 };
// Tool results as the MCP server sent them (JSON in a string), and a computed fact line.
const sources = [
  { tool: 'get_all_invoices', result: JSON.stringify(invoices) },
  { tool: 'get_profit_loss', result: march },
  { tool: 'get_profit_loss', result: april },
  { tool: 'get_contact', result: contact },
  ['Total outstanding: ₹9,78,634 (9.79 lakh) across 3 invoices'],
  'how are my receivables and profit this month vs last?',
];

/** True answers: each figure is a source's, rounded, or derived from them as an accountant would. */
const TRUE_ANSWERS = [
  'Acme Corp owes ₹1,17,634.20 on INV-0042.',
  'Acme owes about ₹1.2 lakh on INV-0042.',
  'INV-0042 is for roughly ₹1.18 lakh.',
  'INV-0042: ₹1.17 lakh, due 11/04/2025.',
  'INV-0042 is ₹1,17,634 (rounded).',
  'Gamma Ltd has ₹6,25,000 outstanding out of ₹12,50,000.',
  'Gamma Ltd: 12.5L invoiced, 6.25L due.',
  'Gamma owes ₹6.25 lakh — half of its ₹12.5 lakh invoice (50%).',
  'Total invoiced in March: ₹16,48,634.20.',
  'You invoiced ₹16.49 lakh in March across 4 invoices.',
  'Total outstanding is ₹9,78,634.20 across 3 invoices.',
  'Receivables: ₹9.79 lakh.',
  'Overdue: 2 invoices, ₹3,53,634.20 in all.',
  'Overdue amount is ~₹3.5 lakh from Acme Corp.',
  'Acme Corp accounts for 36.1% of what you are owed.',
  'Revenue fell from ₹4,20,000 in March to ₹3,90,000 in April, down ₹30,000 (7.1%).',
  'Revenue dropped 7.14% month on month.',
  'Net profit was ₹63,000 in March, a 15% margin.',
  'April net profit: ₹39,000 (10% of revenue), down 38.1% from March.',
  'Profit fell by ₹24,000.',
  'Expenses were ₹3.57 lakh in March and ₹3.51 lakh in April.',
  'March revenue of 4.2 lakh and April 3.9 lakh.',
  'Your March income was 4,20,000 rupees.',
  'In March you earned ₹420K.',
  'Total income for March and April: ₹8,10,000.',
  'Acme Corp (GSTIN 27AAPFU0939F1ZV, +91 98765 43210) owes ₹3,53,634.20.',
  'INV-0044 dated 20 March 2025 for ₹2,36,000 is overdue since 19/04/2025.',
  'FY 2024-25: 4 invoices issued in March 2025.',
  '| # | Invoice | Customer | Amount |\n|---|---|---|---|\n| 1 | INV-0042 | Acme Corp | ₹1,17,634.20 |\n| 2 | INV-0043 | Beta Traders | ₹45,000.00 |\n| 3 | INV-0044 | Acme Corp | ₹2,36,000.00 |\n| 4 | INV-0045 | Gamma Ltd | ₹12,50,000.00 |\n| | **Total** | | **₹16,48,634.20** |',
  '1. INV-0042 — ₹1,17,634.20\n2. INV-0044 — ₹2,36,000\n3. INV-0045 — ₹6,25,000',
  'Beta Traders paid INV-0043 (₹45,000) in full.',
  'Aapke 2 invoices overdue hain, total ₹3.54 lakh.',
  'Acme Corp ka balance ₹3,53,634.20 hai, jo 2 invoices ka hai.',
  'March mein revenue ₹4.2 lakh tha aur April mein 3.9 lakh, yaani 7.1% kam.',
  'Is mahine ka profit ₹39,000 hai, pichle mahine se ₹24,000 kam.',
  'Gamma ka saade chh lakh baki hai? Nahi, ₹6.25 lakh baki hai.',
  'Net margin dropped from 15% to 10%, 5 points lower.',
  'Gross receipts: ₹0 from Beta Traders outstanding; Beta paid ₹45,000.',
  'Of ₹16.49 lakh invoiced, ₹9.79 lakh (59.4%) is still unpaid.',
  'Average invoice: ₹4,12,158.55.',
  'Largest invoice: INV-0045 at ₹12.5 lakh, i.e. 75.8% of March invoicing.',
  'Your receivables stand at about ₹10 lakh.',
  'Nothing else to flag. Due dates are 11/04, 14/04, 19/04 and 27/04.',
  'You have 4 invoices this month; 1 is paid and 1 is partly paid.',
  'Acme ka kul baaki 3 lakh 53 hazaar hai, Gamma ka 6 lakh 25 hazaar.',
  'March ki bikri 16 lakh 48 hazaar rupaye rahi.',
];

/** Answers with an invented figure, and that figure as it must be named. */
const INVENTED: [string, string][] = [
  ['Acme Corp owes ₹4,50,000.', '₹4,50,000'],
  ['Total outstanding is ₹11,25,000.', '₹11,25,000'],
  ['Revenue grew 23% from March to April.', '23%'],
  ['Net profit in April was ₹52,000.', '₹52,000'],
  ['You have 7 overdue invoices.', '7'],
  ['Acme owes about ₹5.5 lakh.', '₹5.5 lakh'],
  ['Gamma Ltd owes 3.2 crore.', '3.2 crore'],
  ['Your margin is 42.5%.', '42.5%'],
  ['Beta Traders still owes ₹17,250.', '₹17,250'],
  ['Expenses were ₹3,99,999 in April.', '₹3,99,999'],
  ['Aapka profit ₹1.5 lakh hai.', '₹1.5 lakh'],
  ['INV-0042 (12/03/2025) is for ₹1,71,634.20.', '₹1,71,634.20'],
  ['Cash in bank is 72k.', '72k'],
  ['Revenue was ₹4,20,000, but GST payable is ₹88,300.', '₹88,300'],
  ['Receivables are dhai crore.', 'dhai crore'],
  ['You have 19 customers.', '19'],
];

/** A year's reports: profit and loss (its lines in lists) and the balance sheet, with the question. */
const year = [
  {
    tool: 'get_profit_loss',
    input: { FromDate: '2025-04-01', ToDate: '2026-03-31' },
    result: JSON.stringify({
      ReportName: 'Profit and Loss',
      FromDate: '2025-04-01',
      ToDate: '2026-03-31',
      Income: [
        { Name: 'Sales', Amount: 2450000 },
        { Name: 'Services', Amount: 350000 },
      ],
      TotalIncome: 2800000,
      CostOfSales: [{ Name: 'Purchases', Amount: 1200000 }],
      TotalCostOfSales: 1200000,
      GrossProfit: 1600000,
      OperatingExpenses: [
        { Name: 'Rent', Amount: 360000 },
        { Name: 'Salaries', Amount: 720000 },
        { Name: 'Utilities', Amount: 48500 },
      ],
      TotalOperatingExpenses: 1128500,
      NetProfit: 471500,
    }),
  },
  {
    tool: 'get_balance_sheet',
    result: {
      Assets: [
        { Name: 'Cash', Amount: 250000 },
        { Name: 'Bank', Amount: 1175000.5 },
        { Name: 'Debtors', Amount: 640000 },
      ],
      TotalAssets: 2065000.5,
      Liabilities: [
        { Name: 'Creditors', Amount: 410000 },
        { Name: 'GST Payable', Amount: 86400 },
      ],
      TotalLiabilities: 496400,
    },
  },
  'what is my profit this year and cash position',
];

const YEAR_TRUE = [
  'Net profit for FY 2025-26 is ₹4,71,500, a net margin of 16.8%.',
  'Gross profit: ₹16 lakh (57.1% gross margin).',
  'Revenue ₹28 lakh; expenses ₹11.29 lakh; net ₹4.72 lakh.',
  'Sales made up 87.5% of income.',
  'Salaries (₹7.2L) are your largest expense, 63.8% of operating expenses.',
  'Cash and bank together: ₹14,25,000.50.',
  'Cash + bank = ₹14.25 lakh.',
  'Rent is ₹30,000 a month.',
  'Debtors ₹6.4 lakh vs creditors ₹4.1 lakh.',
  'GST payable: ₹86,400, due by 20th April.',
  'Utilities cost ₹48.5k.',
  'Profit: ₹0.047 crore.',
  'Total assets of ₹20.65 lakh against liabilities of ₹4.96 lakh.',
  'Net worth ₹15,68,600.50.',
  'Cash ₹2,50,000 (12.1% of assets).',
  'You earned Rs.28,00,000/- in FY25-26.',
  'Expenses were 40.3% of revenue.',
  'Aapka net profit ₹4.7 lakh hai aur bank mein ₹11.75 lakh.',
  'Pichle saal ka munafa lagbhag paune paanch lakh raha.',
  'Operating expenses: 3 heads — rent, salaries and utilities.',
];
const YEAR_INVENTED: [string, string][] = [
  ['Net profit is ₹6,20,000.', '₹6,20,000'],
  ['Bank balance ₹18.4 lakh.', '₹18.4 lakh'],
  ['GST payable ₹1,12,000.', '₹1,12,000'],
  ['Salaries grew 14.2%.', '14.2%'],
  ['Profit: ₹0.47 crore.', '₹0.47 crore'],
];

describe('grounding: a year of reports', () => {
  it(`raises no flag on any of the ${YEAR_TRUE.length} true answers`, () => {
    const flagged = YEAR_TRUE.map((a) => ({ a, u: checkGrounding(a, year).unverified.map((f) => f.text) }));
    expect(flagged.filter((f) => f.u.length > 0)).toEqual([]);
  });

  it.each(YEAR_INVENTED)('catches %j', (answer, figure) => {
    expect(checkGrounding(answer, year).unverified.map((f) => f.text)).toEqual([figure]);
  });
});

describe('grounding: a labelled set of true answers', () => {
  it(`raises no flag on any of the ${TRUE_ANSWERS.length} true answers`, () => {
    expect(TRUE_ANSWERS.length).toBeGreaterThanOrEqual(40);
    const flagged = TRUE_ANSWERS.map((a) => ({
      a,
      u: checkGrounding(a, sources).unverified.map((f) => f.text),
    }));
    expect(flagged.filter((f) => f.u.length > 0)).toEqual([]);
  });

  it('never flags an answer without figures, whatever the sources', () => {
    expect(checkGrounding('All your invoices are paid. Nothing is overdue.', []).unverified).toEqual([]);
    expect(groundAnswer('INV-0042 was sent on 12/03/2025.', []).text).toBe(
      'INV-0042 was sent on 12/03/2025.',
    );
  });
});

describe('grounding: the precision a figure is stated to', () => {
  it('takes "₹1.2 lakh" as 1,20,000 ± 5,000, and "₹1.17 lakh" as a rounding or a truncation', () => {
    const of = (v: number) => [{ Balance: v }];
    expect(checkGrounding('₹1.2 lakh', of(117634.2)).unverified).toEqual([]);
    expect(checkGrounding('₹1.2 lakh', of(124999)).unverified).toEqual([]);
    expect(checkGrounding('₹1.2 lakh', of(127000)).unverified).toHaveLength(1);
    expect(checkGrounding('₹1.2 lakh', of(113000)).unverified).toHaveLength(1);
    expect(checkGrounding('₹1.17 lakh', of(117634.2)).unverified).toEqual([]);
    expect(checkGrounding('₹1.18 lakh', of(117634.2)).unverified).toEqual([]);
    expect(checkGrounding('₹1.19 lakh', of(117634.2)).unverified).toHaveLength(1);
    expect(checkGrounding('₹1,17,634.20', of(117634.2)).unverified).toEqual([]);
    expect(checkGrounding('₹1,17,634.30', of(117634.2)).unverified).toHaveLength(1);
    expect(checkGrounding('12%', of(0.1249)).unverified).toEqual([]);
    expect(checkGrounding('12%', of(0.126)).unverified).toHaveLength(1);
  });
});

describe('grounding: sources of any shape', () => {
  it.each([
    ['Revenue fell from ₹4.2 lakh to ₹3.9 lakh, down 7.1% (₹30,000).', [420000, 390000]],
    ['Revenue fell 7.1%, total ₹8.1 lakh.', [[420000, 390000]]],
    ['Margin is 15.2%.', [{ kpi: 'margin', value: 15.2 }]],
    ['Margin is 15.2%.', [{ rows: [{ kpi: 'Net margin %', value: '15.2' }] }]],
    ['Revenue up 12%, from ₹10 lakh to ₹11.2 lakh.', [{ revenue: { thisYear: 1120000, lastYear: 1000000 } }]],
    ['Margin 15.2%.', [{ content: [{ type: 'text', text: '{"NetMargin":0.152}' }] }]],
    ['Balance ₹1,17,634.20.', [{ Balance: 'INR 1,17,634.20' }]],
    ['Sales were ₹4.2 lakh.', ['Sales this month: 4.2 lakh']],
  ] as [string, unknown[]][])('%s', (answer, src) => {
    expect(checkGrounding(answer, src).unverified).toEqual([]);
  });
});

describe('grounding: rates', () => {
  it('verifies a rate applied to an amount beside it, or to a figure of the question', () => {
    const invoice = [{ InvoiceNumber: 'INV-7', TaxableValue: 10000, GSTRate: 18, Status: 'Draft' }];
    expect(checkGrounding('GST at 18% is ₹1,800, so INV-7 comes to ₹11,800.', invoice).unverified).toEqual(
      [],
    );
    const asked = ['what is 18% GST on 50000?'];
    expect(checkGrounding('18% GST on ₹50,000 is ₹9,000: ₹59,000 in all.', asked).unverified).toEqual([]);
    expect(checkGrounding('18% GST on ₹50,000 is ₹8,000.', asked).unverified.map((f) => f.text)).toEqual([
      '₹8,000',
    ]);
  });
});

describe('grounding: invented figures', () => {
  it.each(INVENTED)('catches %j', (answer, figure) => {
    const names = checkGrounding(answer, sources).unverified.map((f) => f.text);
    expect(names).toEqual([figure]);
  });

  it('says which figures it could not verify, in one line after the answer, changing none', () => {
    const { text, unverified } = groundAnswer('Acme owes ₹4,50,000 on INV-0042 (₹1,17,634.20).', sources);
    expect(unverified.map((f) => f.value)).toEqual([450000]);
    expect(text).toBe(
      `Acme owes ₹4,50,000 on INV-0042 (₹1,17,634.20).\n\n⚠️ ${UNVERIFIED_WARNING}: ₹4,50,000.`,
    );
  });
});

/** Every supported way of writing `value` rupees. */
function written(value: number): fc.Arbitrary<string> {
  const f = formatsFor();
  const lakh = value / 1e5;
  const crore = value / 1e7;
  const western = value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const ways = [
    f.money(value),
    f.large(value),
    `Rs. ${western}`,
    `INR ${Math.round(value).toLocaleString('en-IN')}`,
    `${Math.round(value)} rupees`,
    `${(value / 1000).toFixed(0)}k`,
  ];
  if (lakh >= 1)
    ways.push(`about ₹${lakh.toFixed(1)} lakh`, `₹${lakh.toFixed(2)} lakh`, `${lakh.toFixed(1)}L`);
  if (crore >= 1) ways.push(`₹${crore.toFixed(2)} crore`, `${crore.toFixed(1)} Cr`);
  return fc.constantFrom(...ways);
}

const amounts = fc.array(
  fc.integer({ min: 1_000_00, max: 50_00_00_000_00 }).map((p) => p / 100),
  {
    minLength: 1,
    maxLength: 30,
  },
);

describe('grounding: generated figures', () => {
  it('verifies a figure taken from the sources, however it is written', () => {
    fc.assert(
      fc.property(
        amounts.chain((values) =>
          fc.record({
            values: fc.constant(values),
            pick: fc.nat(values.length - 1),
            shape: fc.constantFrom('records', 'strings', 'text'),
          }),
        ),
        fc.context(),
        ({ values, pick, shape }, ctx) => {
          const src =
            shape === 'records'
              ? [{ Items: values.map((Amount, i) => ({ Ref: `INV-${i}`, Amount })) }]
              : shape === 'strings'
                ? [values.map((v) => ({ Balance: formatsFor().money(v) }))]
                : [values.map((v) => `Balance ${v.toFixed(2)}`).join('; ')];
          const v = values[pick]!;
          fc.assert(
            fc.property(written(v), (w) => {
              ctx.log(w);
              expect(checkGrounding(`The balance is ${w}.`, src).unverified).toEqual([]);
            }),
            { numRuns: 5 },
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('verifies percentage changes and shares computed from two source figures', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10_000, max: 1e9 }), fc.integer({ min: 10_000, max: 1e9 }), (a, b) => {
        const src = [
          {
            Months: [
              { Month: 'March', Revenue: a },
              { Month: 'April', Revenue: b },
            ],
          },
        ];
        const change = (((b - a) / a) * 100).toFixed(1);
        const share = ((a / (a + b)) * 100).toFixed(1);
        const answer = `Revenue went from ₹${a} to ₹${b} (${change}%); March was ${share}% of the two months.`;
        expect(checkGrounding(answer, src).unverified).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('flags a figure far from every source value, however it is written', () => {
    fc.assert(
      fc.property(amounts, fc.integer({ min: 3, max: 40 }), (values, times) => {
        const src = [{ Items: values.map((Amount) => ({ Amount })) }];
        const total = values.reduce((s, v) => s + v, 0);
        const invented = Math.round(total * times + 7);
        fc.assert(
          fc.property(written(invented), (w) => {
            expect(checkGrounding(`The balance is ${w}.`, src).unverified.length).toBeGreaterThan(0);
          }),
          { numRuns: 5 },
        );
      }),
      { numRuns: 200 },
    );
  });

  it('holds for books of any shape: a leaf in any supported format is verified, a figure beyond them all is flagged', () => {
    const key = fc.constantFrom(
      'Total',
      'AmountDue',
      'Balance',
      'NetProfit',
      'Revenue',
      'Amount',
      'value',
      'Paid',
    );
    const amount = fc.integer({ min: 1_000_00, max: 5_00_00_000_00 }).map((p) => p / 100);
    const leaf = fc.oneof(
      amount,
      amount.map((v) => formatsFor().money(v)),
    );
    const record = fc.dictionary(key, leaf, { minKeys: 1, maxKeys: 5 });
    const book = fc.dictionary(
      fc.constantFrom('Invoices', 'Bills', 'Report', 'Totals', 'Rows'),
      fc.oneof(record, fc.array(record, { minLength: 1, maxLength: 20 })),
      { minKeys: 1, maxKeys: 3 },
    );
    const leaves = (node: unknown): number[] =>
      typeof node === 'number'
        ? [node]
        : typeof node === 'string'
          ? [Number(node.replace(/[^\d.]/g, ''))]
          : Array.isArray(node)
            ? node.flatMap(leaves)
            : node && typeof node === 'object'
              ? Object.values(node).flatMap(leaves)
              : [];
    fc.assert(
      fc.property(book, fc.nat(), fc.integer({ min: 3, max: 30 }), (b, pick, times) => {
        const values = leaves(b);
        const src = [{ tool: 'get_books', result: JSON.stringify(b) }];
        const v = values[pick % values.length]!;
        fc.assert(
          fc.property(written(v), (w) => {
            expect(checkGrounding(`It is ${w}.`, src).unverified).toEqual([]);
          }),
          { numRuns: 3 },
        );
        const beyond = Math.round(values.reduce((s, x) => s + x, 0) * times + 11);
        fc.assert(
          fc.property(written(beyond), (w) => {
            expect(checkGrounding(`It is ${w}.`, src).unverified.length).toBeGreaterThan(0);
          }),
          { numRuns: 3 },
        );
      }),
      { numRuns: 150 },
    );
  });

  it('stays bounded on large untrusted sources', () => {
    const big = Array.from({ length: 20_000 }, (_, i) => ({
      Amount: i * 13.37,
      Qty: i % 7,
      Status: `s${i % 5}`,
    }));
    const started = performance.now();
    const { unverified } = checkGrounding('Total ₹9,99,99,99,999.', [big, JSON.stringify(big)]);
    expect(unverified).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('stays bounded on wide and deep sources', () => {
    const wide = Array.from({ length: 2_000 }, () =>
      Object.fromEntries(Array.from({ length: 2_000 }, (_, k) => [`f${k}`, k])),
    );
    let deep: unknown = 1;
    for (let i = 0; i < 5_000; i++) deep = { next: deep };
    const started = performance.now();
    expect(checkGrounding('Total ₹9,99,99,99,999.', [wide, deep]).unverified).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(3000);
  });
});
