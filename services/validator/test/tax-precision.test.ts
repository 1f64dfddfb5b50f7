import { describe, expect, it } from 'vitest';
import { taxIssues } from '../src/tax/checks.ts';
import { gstin, indiaBooks, pan, rng, SHARMA_GSTIN } from './tax-support.ts';

/**
 * Precision on generated invoices in four real shapes: every right one passes, and every one with a
 * single fault — a line's tax a paisa or two off, a total a rupee off, IGST where CGST+SGST is due
 * (or the other way), a rate withdrawn on 22 September 2025 — is caught with the code that names it.
 */
const books = indiaBooks();
const round2 = (n: number) => Math.round(n * 100) / 100;
const RATES = [0, 5, 18, 40];

interface Item {
  qty: number;
  price: number;
  discount: number;
  rate: number;
  amount: number;
  tax: number;
}
interface Sale {
  items: Item[];
  across: boolean;
  buyer: string;
}

function generate(r: () => number, rate?: number): Sale {
  const items = Array.from({ length: 1 + Math.floor(r() * 4) }, () => {
    const qty = 1 + Math.floor(r() * 12);
    const price = round2(50 + r() * 4000);
    const discount = r() < 0.3 ? round2(r() * 100) : 0;
    const itemRate = rate ?? RATES[Math.floor(r() * RATES.length)] ?? 18;
    const amount = round2(qty * price - discount);
    return { qty, price, discount, rate: itemRate, amount, tax: round2((amount * itemRate) / 100) };
  });
  const across = r() < 0.5;
  return { items, across, buyer: gstin(across ? '29' : '27', pan(r)) };
}

const sum = (items: Item[], k: 'amount' | 'tax') => round2(items.reduce((s, i) => s + i[k], 0));
const half = (tax: number) => round2(tax / 2);

type Shape = (sale: Sale, wrongWay?: boolean) => Record<string, unknown>;
const SHAPES: Record<string, Shape> = {
  xero: ({ items, across, buyer }, wrongWay) => ({
    Contact: { TaxNumber: buyer },
    Date: '2025-11-10',
    LineItems: items.map((i) => ({
      Quantity: i.qty,
      UnitAmount: i.price,
      DiscountAmount: i.discount,
      TaxType: `${across !== Boolean(wrongWay) ? 'IGST' : 'CGST+SGST'} ${i.rate}`,
      LineAmount: i.amount,
      TaxAmount: i.tax,
    })),
    SubTotal: sum(items, 'amount'),
    TotalTax: sum(items, 'tax'),
    Total: round2(sum(items, 'amount') + sum(items, 'tax')),
  }),
  tally: ({ items, across, buyer }, wrongWay) => {
    const igst = across !== Boolean(wrongWay);
    const lines = items.map((i) =>
      igst
        ? {
            qty: i.qty,
            rate: i.price,
            discount_amount: i.discount,
            taxable_value: i.amount,
            igst_rate: i.rate,
            igst_amount: i.tax,
          }
        : {
            qty: i.qty,
            rate: i.price,
            discount_amount: i.discount,
            taxable_value: i.amount,
            cgst_rate: i.rate / 2,
            cgst_amount: half(i.tax),
            sgst_rate: i.rate / 2,
            sgst_amount: half(i.tax),
          },
    );
    const tax = igst ? sum(items, 'tax') : round2(items.reduce((s, i) => s + 2 * half(i.tax), 0));
    const exact = round2(sum(items, 'amount') + tax);
    return {
      voucher_date: '2025-11-10',
      party: { gstin: buyer },
      items: lines,
      round_off: round2(Math.round(exact) - exact),
      grand_total: Math.round(exact),
    };
  },
  eInvoice: ({ items, across, buyer }, wrongWay) => {
    const igst = across !== Boolean(wrongWay);
    return {
      DocDtls: { Typ: 'INV', Dt: '10/11/2025' },
      SellerDtls: { Gstin: SHARMA_GSTIN },
      BuyerDtls: { Gstin: buyer, Pos: buyer.slice(0, 2) },
      ItemList: items.map((i) => ({
        Qty: i.qty,
        UnitPrice: i.price,
        Discount: i.discount,
        GstRt: i.rate,
        IgstAmt: igst ? i.tax : 0,
        CgstAmt: igst ? 0 : half(i.tax),
        SgstAmt: igst ? 0 : half(i.tax),
      })),
    };
  },
  demo: ({ items }) => ({
    Date: '2025-11-10',
    Lines: items.map((i) => ({ Quantity: i.qty, UnitPrice: round2(i.amount / i.qty), TaxRate: i.rate })),
    Total: round2(
      items.reduce((s, i) => s + round2(i.qty * round2(i.amount / i.qty)) * (1 + i.rate / 100), 0),
    ),
  }),
};

const codes = (args: Record<string, unknown>) => [...new Set(taxIssues(args, books).map((i) => i.code))];
const N = 100;

describe('precision on generated invoices in real shapes', () => {
  const tally = { right: 0, caught: 0, faults: 0 };
  it.each(Object.keys(SHAPES))(
    '%s: every right invoice passes, every single fault is caught by its code',
    (name) => {
      const shape = SHAPES[name] as Shape;
      const r = rng(name.length * 97);
      for (let n = 0; n < N; n++) {
        const sale = generate(r);
        const right = shape(sale);
        expect(codes(right), JSON.stringify(right)).toEqual([]);
        tally.right += 1;
        const faults: [Record<string, unknown>, string][] = [];
        const total = Object.keys(right).find((k) => /total$/i.test(k) && !/sub|tax/i.test(k));
        if (total) faults.push([{ ...right, [total]: (right[total] as number) + 1 }, 'total_mismatch']);
        // A nil-rated supply charges no tax either way: no place-of-supply fault to make.
        if (name !== 'demo' && sale.items.some((i) => i.tax > 0))
          faults.push([shape(sale, true), 'place_of_supply_mismatch']);
        faults.push([shape(generate(r, 12)), 'rate_invalid']);
        const taxed = sale.items.findIndex((i) => i.tax > 1);
        if (taxed >= 0 && name !== 'demo') {
          const off = structuredClone(sale);
          const item = off.items[taxed] as Item;
          item.tax = round2(item.tax + 0.04);
          faults.push([shape(off), 'tax_mismatch']);
        }
        for (const [call, code] of faults) {
          tally.faults += 1;
          const found = codes(call);
          expect(found, `${code}: ${JSON.stringify(call)}`).toContain(code);
          tally.caught += 1;
        }
      }
    },
  );
  it('adds up', () => {
    expect(tally.right).toBe(N * Object.keys(SHAPES).length);
    expect(tally.caught).toBe(tally.faults);
    console.log(
      `tax checks: ${tally.right}/${tally.right} right invoices passed, ${tally.caught}/${tally.faults} faults caught`,
    );
  });
});
