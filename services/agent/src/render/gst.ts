import { isRecord } from '@munim/contracts';
import { companyOf, coverage, currencyOf, hint, type RenderInput } from './input.ts';
import { bold, heading, table } from './markdown.ts';
import { periodOf } from './periods.ts';
import { keyOf, num, pick, type Rec, rowsOf, str } from './shape.ts';
import { sum } from './statement.ts';

export const OUTPUT = [
  'OutputTax',
  'OutputGST',
  'OutputVAT',
  'TaxOnSales',
  'SalesTax',
  'GSTCollected',
  'TaxCollected',
  'OutwardSupplies',
  'Outward',
];
export const INPUT = [
  'InputTaxCredit',
  'InputTax',
  'InputGST',
  'ITC',
  'InputVAT',
  'TaxOnPurchases',
  'PurchaseTax',
  'GSTPaid',
  'TaxPaid',
  'InwardSupplies',
  'Inward',
];
export const NET = [
  'NetGSTPayable',
  'NetTaxPayable',
  'NetVATPayable',
  'NetPayable',
  'NetTax',
  'TaxPayable',
  'NetGST',
  'NetLiability',
];
const COLUMNS = [
  { label: 'Taxable value', aliases: ['TaxableValue', 'TaxableAmount', 'NetAmount', 'Taxable'] },
  { label: 'CGST', aliases: ['CGST', 'CentralTax'] },
  { label: 'SGST', aliases: ['SGST', 'UTGST', 'StateTax', 'SGSTUTGST'] },
  { label: 'IGST', aliases: ['IGST', 'IntegratedTax'] },
  { label: 'Cess', aliases: ['Cess'] },
  { label: 'Total tax', aliases: ['TotalTax', 'Tax', 'TaxAmount', 'Total', 'Amount'] },
];

/** A side of the return: its components when the books split it, and its total tax. */
export function side(value: unknown): { parts: Rec; total: number } | undefined {
  if (typeof value === 'number') return { parts: {}, total: value };
  if (!isRecord(value)) return undefined;
  const total = num(value, ['TotalTax', 'Tax', 'TaxAmount', 'Total', 'Amount']);
  if (total === undefined) return undefined;
  return { parts: value, total };
}

/** A GST (or VAT) summary: output tax, input tax credit, net payable, and the months. */
export function renderGst(input: RenderInput): string | undefined {
  const { result, fmt } = input;
  if (!isRecord(result)) return undefined;
  const output = pick(result, OUTPUT, side);
  const credit = pick(result, INPUT, side);
  const givenNet = num(result, NET);
  const words = hint(input);
  if (!(output && credit) && !((output || credit) && givenNet !== undefined && /gst|vat|tax/.test(words)))
    return undefined;

  const tax = /\bvat\b/.test(words) ? 'VAT' : /\bgst/.test(words) ? 'GST' : fmt.business.taxName;
  const currency = currencyOf(result, fmt);
  const money = (n: number) => fmt.money(n, currency);
  const shown = COLUMNS.filter((c) =>
    [output, credit].some((s) => s && num(s.parts, c.aliases) !== undefined),
  );
  const columns = shown.some((c) => c.label === 'Total tax') ? shown : [...shown, COLUMNS[5]!];
  const row = (name: string, s: ReturnType<typeof side>) => [
    name,
    ...columns.map((c) => {
      const v = c.label === 'Total tax' ? s?.total : s ? num(s.parts, c.aliases) : undefined;
      return v === undefined ? '' : money(v);
    }),
  ];
  const rows = [row(`Output tax (on sales)`, output), row('Input tax credit (on purchases)', credit)];
  const gstin = str(result, ['GSTIN', 'TaxNumber', 'VATNumber', 'TaxRegistrationNumber']);
  const out = [
    heading(`${tax} summary`, [
      companyOf(result, fmt),
      gstin ? `${tax === 'VAT' ? 'VAT no.' : 'GSTIN'} ${gstin}` : undefined,
      coverage(result, fmt),
      currency,
    ]),
    table(['', ...columns.map((c) => c.label)], rows, [false, ...columns.map(() => true)]),
  ];
  // Net payable is output less input by definition; the books' own figure wins when given.
  const net = givenNet ?? (output && credit ? sum([output.total, -credit.total]) : undefined);
  if (net !== undefined)
    out.push(
      net >= 0
        ? bold(`Net ${tax} payable: ${money(net)}`)
        : bold(`Net ${tax} credit (input exceeds output): ${money(-net)}`),
    );

  const monthsKey = keyOf(result, ['ByMonth', 'Months', 'Monthly', 'Periods', 'ByPeriod']);
  const months = monthsKey ? rowsOf(result, [monthsKey]) : undefined;
  if (months?.length) {
    const body = months.map((m) => {
      const p = pick(m, ['Month', 'Period', 'TaxPeriod', 'ReturnPeriod'], (v) =>
        typeof v === 'string' ? v : undefined,
      );
      const out = num(m, ['OutputTax', 'Output', 'OutputGST']);
      const inp = num(m, ['InputTax', 'Input', 'InputTaxCredit', 'ITC']);
      const n = num(m, ['NetTax', 'Net', 'NetPayable']);
      return [
        p ? (periodOf(p)?.words ?? p) : '',
        ...[out, inp, n].map((v) => (v === undefined ? '' : money(v))),
      ];
    });
    out.push(
      `**By month**\n\n${table(['Month', 'Output tax', 'Input tax credit', 'Net tax'], body, [false, true, true, true])}`,
    );
  }
  return out.join('\n\n');
}
