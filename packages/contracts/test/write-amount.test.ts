import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAmountKey, readMoney, writeAmount } from '../src/index.ts';

/**
 * A write's amount, read by meaning: the fields the validator takes for money, in any naming style
 * and nesting, as numbers or as text the way people write money (Indian grouping, symbols, codes).
 * Checked on calls shaped like real accounting servers' and on generated ones, whose expected
 * amount is written here from the generator, apart from the reader.
 */

/** 1234567.5 → "12,34,567.50" (the Indian system), or "1,234,567.50". */
function grouped(n: number, indian: boolean): string {
  const [whole = '0', cents] = n.toFixed(2).split('.');
  const last3 = whole.slice(-3);
  const rest = whole.slice(0, -3);
  const head = rest === '' ? '' : `${rest.replace(indian ? /\B(?=(\d{2})+$)/g : /\B(?=(\d{3})+$)/g, ',')},`;
  return `${head}${last3}.${cents}`;
}

describe('money read from a value', () => {
  it('reads numbers and money text, and nothing else', () => {
    const cases: [unknown, number | undefined, string?][] = [
      [200000, 200000],
      ['2,00,000', 200000],
      ['₹2,00,000.50', 200000.5, 'INR'],
      ['Rs. 1,18,000', 118000, 'INR'],
      ['INR 5000', 5000, 'INR'],
      ['5000 USD', 5000, 'USD'],
      ['$1,234.56', 1234.56, '$'],
      ['(1,234.50)', -1234.5],
      ['-₹500', -500, 'INR'],
      ['2.5 lakh', 250000],
      ['₹1 crore', 10_000_000, 'INR'],
      ['50k', 50000],
      ['fifty thousand', undefined],
      ['2025-01-15', undefined],
      ['INV-0042', undefined],
      ['1,2,3', undefined],
      [Number.NaN, undefined],
      [null, undefined],
      [{ amount: 5 }, undefined],
    ];
    for (const [value, amount, currency] of cases) {
      const money = readMoney(value);
      expect(money?.amount, JSON.stringify(value)).toBe(amount);
      expect(money?.currency, JSON.stringify(value)).toBe(currency);
    }
  });

  it('reads any amount written in the Indian or the international grouping, with or without a symbol', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 99_999_999_999 }),
        fc.boolean(),
        fc.constantFrom('', '₹', 'Rs. ', 'INR '),
        (paise, indian, mark) => {
          const rupees = paise / 100;
          const money = readMoney(`${mark}${grouped(rupees, indian)}`);
          expect(money?.amount).toBeCloseTo(rupees, 2);
          expect(money?.currency).toBe(mark === '' ? undefined : 'INR');
        },
      ),
    );
  });
});

describe('the amount of a write', () => {
  it('reads calls shaped like real accounting servers’', () => {
    const cases: [string, Record<string, unknown>, number | undefined][] = [
      ['Zoho record payment', { customer_id: '460000000017138', amount: 118000, date: '2026-01-15' }, 118000],
      [
        'QuickBooks payment',
        {
          CustomerRef: { value: '7' },
          TotalAmt: 25000,
          Line: [{ Amount: 25000, LinkedTxn: [{ TxnId: '1' }] }],
        },
        25000,
      ],
      [
        'Xero invoice (lines, no total)',
        {
          Type: 'ACCREC',
          Contact: { ContactID: 'c1' },
          LineItems: [
            { Description: 'Consulting', Quantity: 10, UnitAmount: 15000, TaxType: 'OUTPUT' },
            { Description: 'Travel', Quantity: 1, UnitAmount: 12000 },
          ],
        },
        162000,
      ],
      [
        'an invoice whose total understates its lines',
        { customer: 'Acme', total: 1000, line_items: [{ quantity: 2, rate: 50000, amount: 100000 }] },
        100000,
      ],
      [
        'Tally journal voucher (DR/CR)',
        {
          voucher_type: 'Journal',
          entries: [
            { ledger: 'Rent', amount: 45000, dr_cr: 'DR' },
            { ledger: 'HDFC Bank', amount: 45000, dr_cr: 'CR' },
          ],
        },
        45000,
      ],
      [
        'journal with debit and credit columns',
        {
          JournalLines: [
            { AccountCode: '400', Debit: '₹2,00,000' },
            { AccountCode: '090', Credit: '2,00,000' },
          ],
        },
        200000,
      ],
      ['FreshBooks payment', { invoiceid: 9, amount: { amount: '50.00', code: 'INR' } }, 50],
      ['Odoo payment', { partner_id: 7, amount: '1,18,000.00', currency: 'INR', journal_id: 3 }, 118000],
      ['a bank transfer', { from_account_id: 'a', to_account_id: 'b', transfer_amount: 500000 }, 500000],
      ['a fee beside a payment', { amount: 200000, bank_charges: 50 }, 200000],
    ];
    for (const [what, args, amount] of cases) expect(writeAmount(args, 'INR'), what).toEqual({ amount });
  });

  it('names no amount for a call that moves no money', () => {
    expect(writeAmount({ name: 'Acme Pvt Ltd', gstin: '27AAPFU0939F1ZV', email: 'a@b.in' }, 'INR')).toEqual(
      {},
    );
    expect(writeAmount({ invoice_id: 'INV-1', to: 'a@b.in' }, 'INR')).toEqual({});
    // Lists that hold no money are no amount of 0: a payment of these invoices is read from the books.
    expect(writeAmount({ invoices: [{ invoice_id: 'INV-1' }, { invoice_id: 'INV-2' }] }, 'INR')).toEqual({});
    expect(
      writeAmount({ name: 'Acme', contact_persons: [{ first_name: 'Asha', email: 'a@b.in' }] }, 'INR'),
    ).toEqual({});
  });

  it('says so when the money could not be read, or is in another currency than the business’s', () => {
    expect(writeAmount({ amount: 'fifty thousand' }, 'INR').unread).toMatch(/^amount could not be read/);
    expect(writeAmount({ payment: { amount: 5000, currency: 'USD' } }, 'INR').unread).toMatch(
      /payment.currency is in USD, not INR/,
    );
    expect(writeAmount({ amount: '$5,000' }, 'INR').unread).toMatch(/in \$/);
    expect(writeAmount({ amount: '$5,000' }, 'USD')).toEqual({ amount: 5000 });
    expect(writeAmount({ amount: { amount: '50.00', code: 'CAD' } }, 'INR').unread).toMatch(/CAD/);
  });

  /** The field of an amount in each naming style, at the top or one level down. */
  const STYLES: ((words: string[]) => string)[] = [
    (w) => w.join('_'),
    (w) => w.map((x, i) => (i === 0 ? x : x[0]?.toUpperCase() + x.slice(1))).join(''),
    (w) => w.map((x) => x[0]?.toUpperCase() + x.slice(1)).join(''),
    (w) => w.join('-'),
    (w) => w.join('_').toUpperCase(),
  ];
  const NAMES = [
    ['amount'],
    ['total'],
    ['grand', 'total'],
    ['total', 'amount'],
    ['payment', 'amount'],
    ['amount', 'paid'],
  ];
  const NOT_MONEY = [
    ['quantity'],
    ['tax', 'rate'],
    ['invoice', 'number'],
    ['customer', 'id'],
    ['due', 'days'],
  ];

  it('reads the amount of generated calls in every naming style, nesting and way of writing money', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9_999_999_999 }),
        fc.constantFrom(...NAMES),
        fc.constantFrom(...STYLES),
        fc.constantFrom('number', 'indian', 'international', 'rupee', 'code'),
        fc.constantFrom(...NOT_MONEY),
        fc.integer({ min: 0, max: 2 }),
        (paise, name, style, written, other, nesting) => {
          const rupees = paise / 100;
          const value =
            written === 'number'
              ? rupees
              : written === 'indian'
                ? grouped(rupees, true)
                : written === 'international'
                  ? grouped(rupees, false)
                  : written === 'rupee'
                    ? `₹${grouped(rupees, true)}`
                    : `INR ${grouped(rupees, false)}`;
          // A number that is not money, larger than the amount, beside it: never taken for it.
          let args: Record<string, unknown> = { [style(name)]: value, [style(other)]: rupees * 10 + 7 };
          for (let i = 0; i < nesting; i++) args = { [['payment', 'data'][i] ?? 'x']: args, memo: 'paid' };
          const read = writeAmount(args, 'INR');
          expect(read.unread).toBeUndefined();
          expect(read.amount).toBeCloseTo(rupees, 2);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('adds up generated lines, by amount or quantity × price, and a journal by its larger side', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 1_000_000 })), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.constantFrom(...STYLES),
        fc.boolean(),
        // A rate beside the price (after it, as the demo books write lines) is no price.
        fc.constantFrom<string[]>(
          ['tax', 'rate'],
          ['gst', 'rate'],
          ['discount', 'rate'],
          ['exchange', 'rate'],
        ),
        (lines, style, byAmount, rate) => {
          const expected = lines.reduce((sum, [q, p]) => sum + q * p, 0);
          const items = lines.map(([q, p]) =>
            byAmount
              ? { [style(['item', 'id'])]: 'I1', [style(['line', 'amount'])]: grouped(q * p, true) }
              : { [style(['quantity'])]: q, [style(['unit', 'price'])]: p, [style(rate)]: 18 },
          );
          expect(writeAmount({ [style(['line', 'items'])]: items }, 'INR').amount).toBeCloseTo(expected, 2);
          const journal = lines.flatMap(([q, p]) => [
            { [style(['account', 'code'])]: 'A', [style(['debit'])]: q * p },
            { [style(['account', 'code'])]: 'B', [style(['credit'])]: q * p },
          ]);
          expect(writeAmount({ [style(['journal', 'lines'])]: journal }, 'INR').amount).toBeCloseTo(
            expected,
            2,
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('takes for money exactly the fields the validator does', () => {
    for (const key of ['amount', 'TotalAmt', 'grand_total', 'unitPrice', 'SubTotal', 'dr', 'tax_amount'])
      expect(isAmountKey(key), key).toBe(true);
    for (const key of ['quantity', 'tax_rate', 'invoice_number', 'customer_id', 'currency', 'posting_type'])
      expect(isAmountKey(key), key).toBe(false);
  });
});
