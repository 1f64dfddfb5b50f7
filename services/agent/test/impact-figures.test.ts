import { describe, expect, it } from 'vitest';
import { withImpact } from '../src/confirmation/impact.ts';
import { appliedIn, figuresOf, irreversible } from '../src/confirmation/impact-figures.ts';

// What an irreversible action touches, read from a record in any naming style.

describe('which writes cannot be taken back', () => {
  it.each([
    ['void_invoice', 'reverse'],
    ['delete_contact', 'reverse'],
    ['invoices.void', 'reverse'],
    ['writeOffInvoice', 'reverse'],
    ['books__delete_bill', 'reverse'],
    ['approve_bill', 'post'],
    ['file_gstr1', 'post'],
    ['bill_approve', 'post'],
  ])('%s', (tool, kind) => {
    expect(irreversible(tool)).toBe(kind);
  });
  it.each(['create_invoice', 'update_invoice', 'send_invoice', 'create_payment', 'get_invoice'])(
    '%s is not',
    (tool) => {
      expect(irreversible(tool)).toBeUndefined();
    },
  );
});

describe('the figures of a record', () => {
  it.each([
    [
      'demo books / Xero',
      {
        Total: 5900,
        TotalTax: 900,
        CGST: 450,
        SGST: 450,
        IGST: 0,
        AmountPaid: 2000,
        AmountCredited: 0,
        AmountDue: 3900,
        DueDate: '2026-12-01',
        DaysOverdue: 3,
      },
      {
        paid: 2000,
        credited: 0,
        due: 3900,
        tax: 900,
        taxParts: [
          { name: 'CGST', amount: 450 },
          { name: 'SGST', amount: 450 },
        ],
      },
    ],
    [
      'Odoo',
      { amount_total: 1180, amount_tax: 180, amount_residual: 1180, payment_state: 'not_paid' },
      { due: 1180, tax: 180, taxParts: [] },
    ],
    [
      'QuickBooks',
      { TotalAmt: 1180, Balance: 180, TxnTaxDetail: { TotalTax: 180 }, DueDate: '2026-12-01' },
      { due: 180, tax: 180, taxParts: [] },
    ],
    [
      'Zoho',
      {
        total: '1,180.00',
        balance: '0.00',
        tax_total: '180.00',
        payment_made: '1,180.00',
        credits_applied: 0,
      },
      { due: 0, tax: 180, paid: 1180, credited: 0, taxParts: [] },
    ],
    [
      'Tally',
      { VOUCHERNUMBER: 'S/42', AMOUNT: 1180, IGST: 180, OUTSTANDING: 1180 },
      { due: 1180, taxParts: [{ name: 'IGST', amount: 180 }] },
    ],
  ])('%s', (_name, record, figures) => {
    expect(figuresOf(record)).toEqual(figures);
  });

  it('reads minor units', () => {
    expect(figuresOf({ amount_due: 390000, tax: 90000 }, true)).toMatchObject({ due: 3900, tax: 900 });
  });

  it('says nothing it cannot read: no figure is made up', () => {
    expect(figuresOf({ InvoiceNumber: 'INV-1', Total: 5900, Status: 'PAID', CreditLimit: 100000 })).toEqual({
      taxParts: [],
    });
  });

  it('generated: paid, due and tax in any naming style', () => {
    const styles = [
      (w: string[]) => w.join('_'),
      (w: string[]) => w.map((x) => x[0]?.toUpperCase() + x.slice(1)).join(''),
      (w: string[]) =>
        w[0] +
        w
          .slice(1)
          .map((x) => x[0]?.toUpperCase() + x.slice(1))
          .join(''),
    ];
    const paid = [
      ['amount', 'paid'],
      ['total', 'paid'],
      ['paid', 'amount'],
    ];
    const due = [
      ['amount', 'due'],
      ['balance', 'due'],
      ['outstanding', 'amount'],
      ['amount', 'residual'],
    ];
    const tax = [
      ['total', 'tax'],
      ['tax', 'amount'],
      ['tax', 'total'],
      ['amount', 'tax'],
    ];
    for (let i = 0; i < 36; i += 1) {
      const style = styles[i % styles.length] as (w: string[]) => string;
      const record = {
        [style(paid[i % paid.length] as string[])]: 100 + i,
        [style(due[i % due.length] as string[])]: 200 + i,
        [style(tax[i % tax.length] as string[])]: 30 + i,
        [style(['due', 'date'])]: '2026-12-01',
      };
      expect(figuresOf(record), JSON.stringify(record)).toEqual({
        paid: 100 + i,
        due: 200 + i,
        tax: 30 + i,
        taxParts: [],
      });
    }
  });
});

describe('what a record lists as applied', () => {
  it('Xero payments and credit notes', () => {
    const applied = appliedIn({
      Payments: [{ PaymentID: 'p1', Date: '2026-11-01', Amount: 2000, Reference: 'UTR1' }],
      CreditNotes: [{ CreditNoteNumber: 'CN-7', AppliedAmount: 500 }],
      LineItems: [{ Quantity: 1, UnitAmount: 5000 }],
    });
    expect(applied?.map((a) => a.kind)).toEqual(['payment', 'credit note']);
    expect(applied?.[1]?.facts.number).toBe('CN-7');
  });

  it('QuickBooks linked transactions', () => {
    const applied = appliedIn({
      LinkedTxn: [
        { TxnId: '130', TxnType: 'Payment' },
        { TxnId: '9', TxnType: 'CreditMemo' },
      ],
    });
    expect(applied?.map((a) => a.kind)).toEqual(['payment', 'credit note']);
  });

  it('nothing listed: undefined, so the books are asked', () => {
    expect(appliedIn({ InvoiceNumber: 'INV-1', Lines: [{ Quantity: 1 }] })).toBeUndefined();
  });
});

describe('the question', () => {
  const impact = { details: [], sentence: 'It also touches: balance due: ₹3,900.00.' };
  it('says it before what is asked', () => {
    expect(withImpact('This will void INV-1. It cannot be undone. Type VOID to confirm.', impact)).toBe(
      'This will void INV-1. It also touches: balance due: ₹3,900.00. It cannot be undone. Type VOID to confirm.',
    );
    expect(withImpact('Confirm: approve the bill B-1?', impact)).toBe(
      'Confirm: approve the bill B-1?\nIt also touches: balance due: ₹3,900.00.',
    );
    expect(withImpact('Confirm: x?', undefined)).toBe('Confirm: x?');
  });
});
