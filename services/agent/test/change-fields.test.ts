import { describe, expect, it } from 'vitest';
import { changeFields } from '../src/confirmation/change-fields.ts';

// A reply's change put onto the pending call's fields by meaning, in any naming style and shape.

describe('a changed amount', () => {
  it('sets the payment and its one application (demo books)', () => {
    const args = { AccountId: 'a1', Amount: 5000, Applications: [{ InvoiceId: 'i1', Amount: 5000 }] };
    expect(changeFields(args, { amount: 4500 })).toMatchObject({
      fields: { Amount: 4500, Applications: [{ InvoiceId: 'i1', Amount: 4500 }] },
    });
  });

  it('leaves an application that takes only a part of the payment', () => {
    const args = { Amount: 5000, Applications: [{ InvoiceId: 'i1', Amount: 2000 }] };
    expect(changeFields(args, { amount: 4500 })).toEqual({
      fields: { Amount: 4500 },
      said: [{ field: 'amount', value: '4500' }],
    });
  });

  it('sets the price of a single-line invoice of one unit', () => {
    const args = {
      ContactId: 'c',
      Lines: [{ Description: 'Work', Quantity: 1, UnitAmount: 5000, TaxRate: 18 }],
    };
    expect(changeFields(args, { amount: 4500 })).toMatchObject({
      fields: { Lines: [{ Description: 'Work', Quantity: 1, UnitAmount: 4500, TaxRate: 18 }] },
    });
  });

  it('sets a line amount and divides a price over its quantity (any style)', () => {
    const args = { customer_id: 7, line_items: [{ item: 'x', qty: 2, unit_price: 2500, line_total: 5000 }] };
    expect(changeFields(args, { amount: 4500 })).toMatchObject({
      fields: { line_items: [{ qty: 2, unit_price: 2250, line_total: 4500 }] },
    });
  });

  it('sets QuickBooks, Odoo and Zoho totals', () => {
    expect(changeFields({ TotalAmt: 5000, TxnDate: '2026-11-20' }, { amount: 4500 })).toMatchObject({
      fields: { TotalAmt: 4500 },
    });
    expect(changeFields({ amount_total: '5000.00', partner_id: 3 }, { amount: 4500 })).toMatchObject({
      fields: { amount_total: '4500.00' },
    });
    expect(changeFields({ total: { value: 5000, currency: 'INR' } }, { amount: 4500 })).toMatchObject({
      fields: { total: { value: 4500, currency: 'INR' } },
    });
  });

  it('writes cents where the schema says so', () => {
    expect(
      changeFields(
        { amount: 500000, currency: 'inr' },
        { amount: 4500 },
        { minorUnits: new Set(['amount']) },
      ),
    ).toMatchObject({
      fields: { amount: 450000 },
    });
  });

  it('never touches tax, discount, what was paid, or anything else', () => {
    const args = {
      Amount: 5000,
      TaxAmount: 900,
      Discount: 100,
      AmountPaid: 1000,
      Reference: 'Make it 10,00,000',
      ContactId: 'c1',
    };
    const mapped = changeFields(args, { amount: 4500 });
    expect(mapped).toMatchObject({ fields: { Amount: 4500 } });
    if ('fields' in mapped) expect(Object.keys(mapped.fields)).toEqual(['Amount']);
  });

  it('says why when it cannot tell', () => {
    expect(
      changeFields(
        {
          ContactId: 'c',
          Lines: [
            { Quantity: 1, UnitAmount: 10 },
            { Quantity: 1, UnitAmount: 20 },
          ],
        },
        { amount: 4500 },
      ),
    ).toHaveProperty('reason');
    expect(changeFields({ Amount: 5000, Total: 5900 }, { amount: 4500 })).toHaveProperty('reason');
    expect(changeFields({ Name: 'Acme' }, { amount: 4500 })).toHaveProperty('reason');
    expect(changeFields({ amount: 50, currency: 'USD' }, { amount: 4500, currency: 'INR' })).toHaveProperty(
      'reason',
    );
    expect(changeFields({ Lines: [{ Quantity: 3, UnitAmount: 10 }] }, { amount: 100 })).toHaveProperty(
      'reason',
    );
  });

  it('generated: every headline amount in any naming style is set, and only it', () => {
    const names = [
      'Amount',
      'amount',
      'total',
      'Total',
      'TotalAmt',
      'grand_total',
      'totalAmount',
      'AMOUNT',
      'amount_received',
      'PaymentAmount',
    ];
    const others = ['tax_amount', 'discount', 'AmountPaid', 'sub_total', 'shipping_charge', 'TaxTotal'];
    for (const [i, name] of names.entries()) {
      const other = others[i % others.length] as string;
      const args = { [name]: 5000 + i, [other]: 123, ref: 'x' };
      const mapped = changeFields(args, { amount: 4500 });
      expect(mapped, name).toEqual({ fields: { [name]: 4500 }, said: [{ field: 'amount', value: '4500' }] });
    }
  });
});

describe('a changed date', () => {
  it('sets the document date in its own format, never the due date', () => {
    expect(changeFields({ Date: '2026-11-20', DueDate: '2026-12-20' }, { date: '2026-12-01' })).toMatchObject(
      {
        fields: { Date: '2026-12-01' },
      },
    );
    expect(changeFields({ txn_date: '2026-11-20T00:00:00+05:30' }, { date: '2026-12-01' })).toMatchObject({
      fields: { txn_date: '2026-12-01T00:00:00+05:30' },
    });
    expect(changeFields({ VOUCHERDATE: '20261120' }, { date: '2026-12-01' })).toMatchObject({
      fields: { VOUCHERDATE: '20261201' },
    });
  });

  it('sets the due date when asked', () => {
    expect(
      changeFields({ invoice_date: '2026-11-20', due_date: '2026-12-20' }, { due: '2026-12-31' }),
    ).toMatchObject({
      fields: { due_date: '2026-12-31' },
    });
  });

  it('adds a date the call lacks when the schema offers one', () => {
    const schema = {
      type: 'object',
      properties: { ContactId: {}, Date: { type: 'string' }, DueDate: { type: 'string' } },
    };
    expect(changeFields({ ContactId: 'c' }, { date: '2026-12-01' }, { schema })).toMatchObject({
      fields: { Date: '2026-12-01' },
    });
    expect(
      changeFields({ ContactId: 'c' }, { date: '2026-12-01' }, { schema: { properties: { ContactId: {} } } }),
    ).toHaveProperty('reason');
  });

  it('generated: the document date in any naming style, beside other dates', () => {
    const names = [
      'Date',
      'date',
      'TxnDate',
      'invoice_date',
      'InvoiceDate',
      'payment_date',
      'docDate',
      'issue_date',
      'BILL_DATE',
      'posting_date',
    ];
    const others = ['DueDate', 'due_date', 'updated_at', 'ship_date', 'delivery_date', 'expiry_date'];
    for (const [i, name] of names.entries()) {
      const other = others[i % others.length] as string;
      const args = { [other]: '2026-12-25', [name]: '2026-11-20', note: 'x' };
      expect(changeFields(args, { date: '2026-12-01' }), name).toEqual({
        fields: { [name]: '2026-12-01' },
        said: [{ field: 'date', value: '2026-12-01' }],
      });
    }
  });
});
