import { describe, expect, it } from 'vitest';
import { taxIssues } from '../src/tax/checks.ts';
import { indiaBooks, rng } from './tax-support.ts';

const books = indiaBooks();
const codes = (args: Record<string, unknown>) => taxIssues(args, books).map((i) => `${i.code}@${i.field}`);
const round2 = (n: number) => Math.round(n * 100) / 100;

describe('line arithmetic: quantity × price − discount = amount, tax = amount × rate, total = amounts + tax', () => {
  it('passes a right invoice, and blocks each wrong figure naming it and both figures', () => {
    const right = {
      invoice_date: '2025-10-01',
      lines: [
        { qty: 3, unit_price: 333.33, discount: 10, amount: 989.99, tax_rate: 18, tax_amount: 178.2 },
        { qty: 1, unit_price: 250, amount: 250, tax_rate: 5, tax_amount: 12.5 },
      ],
      sub_total: 1239.99,
      total_tax: 190.7,
      grand_total: 1430.69,
    };
    expect(codes(right)).toEqual([]);
    const wrong = structuredClone(right);
    wrong.lines[0]!.amount = 999.99;
    expect(codes(wrong)).toContain('amount_mismatch@lines[0].amount');
    const tax = structuredClone(right);
    tax.lines[1]!.tax_amount = 45;
    const [issue] = taxIssues(tax, books);
    expect(issue).toMatchObject({
      code: 'tax_mismatch',
      field: 'lines[1].tax_amount',
      expected: '₹12.50',
      received: '₹45.00',
    });
    expect(issue?.message).toBe(
      "Line 2's tax_amount (lines[1].tax_amount) is ₹45.00, but 5% of the line's amount ₹250.00 is ₹12.50.",
    );
    const total = { ...right, grand_total: 1440.69 };
    const [t] = taxIssues(total, books);
    expect(t?.message).toBe(
      "grand_total is ₹1,440.69, but the lines' amounts ₹1,239.99 plus tax of ₹190.70 come to ₹1,430.69.",
    );
    expect(codes({ ...right, sub_total: 1200 })).toEqual(['total_mismatch@sub_total']);
    expect(codes({ ...right, total_tax: 200 })).toEqual(['tax_mismatch@total_tax']);
  });

  it('allows half a paisa of rounding per line and at the total, not a paisa more', () => {
    const line = (amount: number, tax: number) => ({
      Quantity: 1,
      UnitPrice: amount,
      LineAmount: amount,
      TaxRate: 18,
      TaxAmount: tax,
    });
    // 18% of 10.25 is 1.845: 1.84 and 1.85 are each half a paisa off, 1.83 and 1.86 more.
    expect(codes({ Lines: [line(10.25, 1.85)], Total: 12.1 })).toEqual([]);
    expect(codes({ Lines: [line(10.25, 1.84)], Total: 12.09 })).toEqual([]);
    expect(codes({ Lines: [line(10.25, 1.83)] })).toEqual(['tax_mismatch@Lines[0].TaxAmount']);
    expect(codes({ Lines: [line(10.25, 1.86)] })).toEqual(['tax_mismatch@Lines[0].TaxAmount']);
    expect(codes({ Lines: [line(10.25, 1.85)], Total: 12.11 })).toEqual(['total_mismatch@Total']);
    // Worked out here from quantity × price × rate, each line may be rounded by the books: half a paisa each.
    const computed = { Lines: [1, 2, 3].map(() => ({ Quantity: 1, UnitPrice: 10.25, TaxRate: 18 })) };
    expect(codes({ ...computed, Total: 36.3 })).toEqual([]);
    expect(codes({ ...computed, Total: 36.28 })).toEqual([]);
    expect(codes({ ...computed, Total: 36.24 })).toEqual(['total_mismatch@Total']);
  });

  it('generated invoices: right ones pass, one paisa off anywhere is caught', () => {
    const r = rng(42);
    const rates = [0, 5, 18, 40];
    for (let n = 0; n < 200; n++) {
      const lines = Array.from({ length: 1 + Math.floor(r() * 5) }, () => {
        const qty = 1 + Math.floor(r() * 20);
        const price = round2(r() * 5000);
        const rate = rates[Math.floor(r() * rates.length)] ?? 18;
        const amount = round2(qty * price);
        return { Qty: qty, Rate: price, Amount: amount, GSTRate: rate, GST: round2((amount * rate) / 100) };
      });
      const sum = (k: 'Amount' | 'GST') => round2(lines.reduce((s, l) => s + l[k], 0));
      const invoice = { InvoiceDate: '2025-12-01', Items: lines, Total: round2(sum('Amount') + sum('GST')) };
      expect(codes(invoice), JSON.stringify(invoice)).toEqual([]);
      const i = Math.floor(r() * lines.length);
      const field = (['Amount', 'GST'] as const)[Math.floor(r() * 2)] ?? 'GST';
      const bad = structuredClone(invoice);
      bad.Items[i]![field] = round2(bad.Items[i]![field] + 0.01);
      expect(codes(bad).length, JSON.stringify(bad)).toBeGreaterThan(0);
      expect(codes({ ...invoice, Total: round2(invoice.Total - 0.01) })).toEqual(['total_mismatch@Total']);
    }
  });

  it('reads tax-inclusive prices, percentage and money discounts, charges and a round-off', () => {
    const inclusive = {
      tax_inclusive: true,
      items: [{ qty: 1, price: 118, amount: 118, gst_rate: 18, gst_amount: 18 }],
      total: 118,
    };
    expect(codes(inclusive)).toEqual([]);
    expect(codes({ ...inclusive, total: 136 })).toEqual(['total_mismatch@total']);
    expect(codes({ items: [{ qty: 2, price: 100, discount_percent: 10, amount: 180 }] })).toEqual([]);
    expect(codes({ items: [{ qty: 2, price: 100, discount: '10%', amount: 180 }] })).toEqual([]);
    expect(codes({ items: [{ qty: 2, price: 100, discount: 10, amount: 190 }] })).toEqual([]);
    expect(codes({ items: [{ qty: 2, price: 100, discount: 10, amount: 185 }] })).toEqual([
      'amount_mismatch@items[0].amount',
    ]);
    // A discount type beside the discount says which it is.
    const typed = (kind: string, amount: number) =>
      codes({ items: [{ qty: 2, price: 100, discount: 10, discount_type: kind, amount }] });
    expect(typed('percentage', 180)).toEqual([]);
    expect(typed('percentage', 190)).toEqual(['amount_mismatch@items[0].amount']);
    expect(typed('flat', 190)).toEqual([]);
    expect(typed('flat', 180)).toEqual(['amount_mismatch@items[0].amount']);
    const charged = {
      items: [{ qty: 1, price: 99.6, tax_rate: 18 }],
      shipping_charge: 50,
      round_off: 0.47,
      total: 168,
    };
    expect(codes(charged)).toEqual([]);
    expect(codes({ ...charged, total: 169 })).toEqual(['total_mismatch@total']);
  });

  it('asks nothing of a server that computes the tax itself, and checks no total beside unknown money', () => {
    expect(codes({ ContactId: 'c1', Lines: [{ Quantity: 2, UnitPrice: 500, TaxRate: 18 }] })).toEqual([]);
    expect(codes({ lines: [{ quantity: 2, price: 500 }], total: 1234 })).toEqual([]);
    expect(codes({ lines: [{ quantity: 2, price: 500, tax_rate: 18 }], tcs_amount: 5, total: 1185 })).toEqual(
      [],
    );
  });

  it('checks the arithmetic even without the books’ rules', () => {
    const call = { lines: [{ qty: 2, price: 500, amount: 1000, tax_rate: 18, tax: 180 }], total: 1190 };
    expect(taxIssues(call, undefined).map((i) => i.code)).toEqual(['total_mismatch']);
    expect(taxIssues({ ...call, total: 1180 }, undefined)).toEqual([]);
  });
});

describe('field names in any style find the same meaning', () => {
  const styles: Record<string, string[]> = {
    lines: ['Lines', 'line_items', 'items', 'LineItems', 'invoiceLines', 'products'],
    qty: ['Quantity', 'qty', 'QTY', 'quantity', 'Qty', 'units'],
    price: ['UnitPrice', 'rate', 'price', 'unit_price', 'unitPrice', 'UnitAmount'],
    amount: ['LineAmount', 'amount', 'line_amount', 'taxableValue', 'Amount', 'taxable_amount'],
    rate: ['TaxRate', 'gst_rate', 'tax_percent', 'GSTPercentage', 'taxRate', 'tax_rate'],
    tax: ['TaxAmount', 'tax_amount', 'Tax', 'gstAmount', 'gst', 'tax'],
    total: ['Total', 'grand_total', 'invoiceTotal', 'TotalAmount', 'total', 'GrandTotal'],
    date: ['Date', 'invoice_date', 'txnDate', 'InvoiceDate', 'date', 'document_date'],
  };
  const r = rng(5);
  const pick = (k: string) => styles[k]?.[Math.floor(r() * (styles[k]?.length ?? 1))] ?? k;
  it('120 generated spellings: a right invoice passes, a wrong rate, tax or total is caught by meaning', () => {
    for (let n = 0; n < 120; n++) {
      const k = Object.fromEntries(Object.keys(styles).map((s) => [s, pick(s)])) as Record<string, string>;
      const line = (rate: number, tax: number) => ({
        [k.qty!]: 4,
        [k.price!]: 250,
        [k.amount!]: 1000,
        [k.rate!]: rate,
        [k.tax!]: tax,
      });
      const nested = n % 3 === 0;
      const doc = (rate: number, tax: number, total: number) => {
        const body = { [k.date!]: '2025-10-15', [k.lines!]: [line(rate, tax)], [k.total!]: total };
        return nested ? { invoice: body } : body;
      };
      const where = nested ? 'invoice.' : '';
      expect(codes(doc(18, 180, 1180)), JSON.stringify(k)).toEqual([]);
      expect(codes(doc(12, 120, 1120)), JSON.stringify(k)).toEqual([
        `rate_invalid@${where}${k.lines}[0].${k.rate}`,
      ]);
      expect(codes(doc(18, 170, 1170)), JSON.stringify(k)).toEqual([
        `tax_mismatch@${where}${k.lines}[0].${k.tax}`,
      ]);
      expect(codes(doc(18, 180, 1190)), JSON.stringify(k)).toEqual([`total_mismatch@${where}${k.total}`]);
    }
  });
});
