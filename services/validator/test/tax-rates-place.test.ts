import type { BooksContext, TaxRule } from '@munim/contracts';
import { describe, expect, it } from 'vitest';
import { taxIssues } from '../src/tax/checks.ts';
import { gstin, indiaBooks } from './tax-support.ts';

const books = indiaBooks();
const codes = (args: Record<string, unknown>, b: BooksContext = books) =>
  taxIssues(args, b).map((i) => i.code);
const invoice = (date: string | undefined, rate: number, extra: Record<string, unknown> = {}) => ({
  ContactId: 'c1',
  ...(date ? { Date: date } : {}),
  Lines: [{ Description: 'Steel', Quantity: 2, UnitPrice: 500, TaxRate: rate, ...extra }],
});

describe('the GST rate in force on the document’s date', () => {
  const before = ['2017-07-01', '2024-04-01', '2025-09-20', '2025-09-21'];
  const after = ['2025-09-22', '2025-09-23', '2025-12-31', '2026-04-01'];
  it.each(before)('takes the old slabs on %s, 12% and 28% among them, and not 40%', (date) => {
    for (const rate of [0, 0.1, 0.25, 1.5, 3, 5, 12, 18, 28])
      expect(codes(invoice(date, rate)), `${rate}`).toEqual([]);
    for (const rate of [40, 15, 2, 10])
      expect(codes(invoice(date, rate)), `${rate}`).toEqual(['rate_invalid']);
  });
  it.each(after)('takes 5, 18 and 40 on %s, and no longer 12 or 28 for most goods', (date) => {
    for (const rate of [0, 0.1, 0.25, 1.5, 3, 5, 18, 40])
      expect(codes(invoice(date, rate)), `${rate}`).toEqual([]);
    for (const rate of [12, 28, 15]) expect(codes(invoice(date, rate)), `${rate}`).toEqual(['rate_invalid']);
  });

  it('keeps 28% for tobacco (HSN chapter 24) until 1 February 2026, then 40%', () => {
    expect(codes(invoice('2025-10-01', 28, { hsn_code: '24022090' }))).toEqual([]);
    expect(codes(invoice('2025-10-01', 28, { hsn_code: '84713010' }))).toEqual(['rate_invalid']);
    expect(codes(invoice('2026-02-01', 28, { hsn_code: '24022090' }))).toEqual(['rate_invalid']);
    expect(codes(invoice('2026-02-01', 40, { hsn_code: '24022090' }))).toEqual([]);
  });

  it('names the field, the rate, the date and the rates in force', () => {
    const [issue] = taxIssues(invoice('2025-10-01', 12), books);
    expect(issue).toMatchObject({ field: 'Lines[0].TaxRate', code: 'rate_invalid', received: '12%' });
    expect(issue?.message).toBe(
      "Line 1's TaxRate (Lines[0].TaxRate) charges GST at 12%, which is not a GST rate in force on 1 October 2025, the document's date: the rates then are 0%, 0.1%, 0.25%, 1.5%, 3%, 5%, 18%, 40%.",
    );
  });

  it('takes the books’ today when the document names no date, and not a due date', () => {
    expect(codes(invoice(undefined, 12), indiaBooks({ today: '2025-09-21' }))).toEqual([]);
    expect(codes(invoice(undefined, 12), indiaBooks({ today: '2025-09-22' }))).toEqual(['rate_invalid']);
    const due = { ...invoice(undefined, 12), DueDate: '2025-08-01' };
    expect(codes(due, indiaBooks({ today: '2025-10-01' }))).toEqual(['rate_invalid']);
  });

  it('reads the date in the books’ short form, an e-invoice’s Dt, and the document’s own before a line’s', () => {
    const on = (date: Record<string, unknown>) =>
      codes({ ...date, items: [{ qty: 1, price: 100, gst_rate: 12 }] });
    expect(on({ invoice_date: '21/09/2025' })).toEqual([]);
    expect(on({ invoice_date: '22/09/2025' })).toEqual(['rate_invalid']);
    expect(on({ DocDtls: { Dt: '21/09/2025' } })).toEqual([]);
    expect(on({ DocDtls: { Dt: '22-09-2025' } })).toEqual(['rate_invalid']);
    const us = indiaBooks({ locale: 'en-US' });
    expect(codes({ date: '09/21/2025', items: [{ qty: 1, price: 100, gst_rate: 12 }] }, us)).toEqual([]);
    const lines = {
      items: [{ qty: 1, price: 100, gst_rate: 12, service_date: '2025-09-01' }],
      date: '2025-10-01',
    };
    expect(codes(lines)).toEqual(['rate_invalid']);
  });

  it('reads rates in any style: gst_rate, tax_percent, "18%", 0.18, cgst_rate + sgst_rate, igst_rate', () => {
    const on = (line: Record<string, unknown>) =>
      codes({ invoice_date: '2025-10-01', items: [{ qty: 1, price: 100, ...line }] });
    expect(on({ gst_rate: 18 })).toEqual([]);
    expect(on({ tax_percent: '18%' })).toEqual([]);
    expect(on({ taxRate: 0.18 })).toEqual([]);
    expect(on({ cgst_rate: 9, sgst_rate: 9 })).toEqual([]);
    expect(on({ igst_rate: 18 })).toEqual([]);
    expect(on({ gst_rate: 12 })).toEqual(['rate_invalid']);
    expect(on({ tax_percent: '28%' })).toEqual(['rate_invalid']);
    expect(on({ cgst_rate: 6, sgst_rate: 6 })).toEqual(['rate_invalid']);
    expect(on({ igst_rate: 12 })).toEqual(['rate_invalid']);
    expect(on({ GSTPercentage: 0.12 })).toEqual(['rate_invalid']);
  });
});

describe('place of supply: CGST+SGST within the state, IGST across states, never both', () => {
  const gujarat = gstin('24', 'AABCP1234C');
  const pune = gstin('27', 'AABCK5678F');
  const sale = (customer: Record<string, unknown>, line: Record<string, unknown>) => ({
    invoice_date: '2025-10-01',
    customer,
    line_items: [{ quantity: 10, rate: 100, gst_rate: 18, ...line }],
  });
  const cases: [string, Record<string, unknown>, Record<string, unknown>, string[]][] = [
    ['intra-state, CGST+SGST', { gstin: pune }, { cgst: 90, sgst: 90 }, []],
    ['intra-state, IGST', { gstin: pune }, { igst: 180 }, ['place_of_supply_mismatch']],
    ['inter-state, IGST', { gstin: gujarat }, { igst: 180 }, []],
    ['inter-state, CGST+SGST', { gstin: gujarat }, { cgst: 90, sgst: 90 }, ['place_of_supply_mismatch']],
    ['by state name, inter-state, IGST', { state: 'Gujarat' }, { igst_amount: 180 }, []],
    [
      'by state name, inter-state, CGST',
      { billing_state: 'Gujarat' },
      { cgst_amount: 90, sgst_amount: 90 },
      ['place_of_supply_mismatch'],
    ],
    ['by alias, intra-state, IGST', { state: 'MH' }, { IGST: 180 }, ['place_of_supply_mismatch']],
    [
      'by tax type text, inter-state',
      { gstin: gujarat },
      { tax_type: 'CGST+SGST' },
      ['place_of_supply_mismatch'],
    ],
    ['by tax type text, intra-state', { gstin: pune }, { tax_type: 'IGST18' }, ['place_of_supply_mismatch']],
    ['by tax type text, right', { gstin: gujarat }, { tax_type: 'IGST' }, []],
    ['by flag', { gstin: pune }, { is_igst: true }, ['place_of_supply_mismatch']],
    ['both', { gstin: gujarat }, { cgst: 90, igst: 180 }, ['place_of_supply_mismatch']],
    ['no tax type said', { gstin: gujarat }, {}, []],
    ['no counterparty state', {}, { igst: 180 }, []],
  ];
  it.each(cases)('%s', (_, customer, line, want) => {
    expect(codes(sale(customer, line))).toEqual(want);
  });

  it('an explicit place of supply comes before the customer’s GSTIN, and the shipping state before the billing one', () => {
    expect(codes({ ...sale({ gstin: pune }, { igst: 180 }), place_of_supply: '24-Gujarat' })).toEqual([]);
    expect(codes({ ...sale({ gstin: pune }, { cgst: 90, sgst: 90 }), PlaceOfSupply: 'Gujarat' })).toEqual([
      'place_of_supply_mismatch',
    ]);
    const shipped = { billing_address: { state: 'Maharashtra' }, shipping_address: { state: 'Karnataka' } };
    expect(codes(sale(shipped, { igst: 180 }))).toEqual([]);
  });

  it('says where the business and the place of supply are and what the supply is charged', () => {
    const [issue] = taxIssues(sale({ gstin: gujarat }, { cgst: 90, sgst: 90 }), books);
    expect(issue?.message).toBe(
      `Line 1's cgst (line_items[0].cgst) charges CGST and SGST or UTGST, but the business is in Maharashtra (27) and the place of supply (customer.gstin) is Gujarat (24): a supply across states is charged IGST.`,
    );
  });

  it('reads a counterparty’s registration under a generic name, and leaves another country’s tax id alone', () => {
    expect(codes(sale({ tax_number: pune }, { igst: 180 }))).toEqual(['place_of_supply_mismatch']);
    const abroad = { name: 'Acme Inc', tax_number: '12-3456789', country: 'US' };
    expect(codes(sale(abroad, { igst: 180 }))).toEqual([]);
    expect(codes(sale({ ...abroad, country: 'IN' }, { igst: 180 }))).toEqual(['gstin_invalid']);
    expect(
      codes(sale({ ...abroad, country: 'India' }, { igst: 180 }), indiaBooks({ countryName: 'India' })),
    ).toEqual(['gstin_invalid']);
  });

  it('takes a supply to an SEZ as one across states, whatever the states', () => {
    const sez = (line: Record<string, unknown>, over: Record<string, unknown>) => ({
      ...sale({ gstin: pune }, line),
      ...over,
    });
    expect(codes(sez({ igst: 180 }, { gst_treatment: 'business_sez' }))).toEqual([]);
    expect(codes(sez({ igst: 180 }, { isSez: true }))).toEqual([]);
    expect(codes(sez({ cgst: 90, sgst: 90 }, { supply_type: 'SEZ with payment' }))).toEqual([
      'place_of_supply_mismatch',
    ]);
    expect(codes(sez({ igst: 180 }, { isSez: false }))).toEqual(['place_of_supply_mismatch']);
    expect(codes(sez({ igst: 180 }, { customer_name: 'Sezal Traders' }))).toEqual([
      'place_of_supply_mismatch',
    ]);
  });

  it('finds the business’s state from its GSTIN when the books name no state, and checks nothing without either', () => {
    const noState = indiaBooks({ region: undefined });
    expect(codes(sale({ gstin: pune }, { igst: 180 }), noState)).toEqual(['place_of_supply_mismatch']);
    const unknown = indiaBooks({ region: undefined, taxId: undefined });
    expect(codes(sale({ gstin: pune }, { igst: 180 }), unknown)).toEqual([]);
  });
});

describe('place of supply on a purchase: the supplier’s state against where the supply is received', () => {
  const bill = (vendor: string, tax: Record<string, unknown>, place?: string) => ({
    vendor: { name: 'Supplier', gstin: vendor },
    bill_date: '2025-10-01',
    ...(place ? { place_of_supply: place } : {}),
    lines: [{ quantity: 10, unit_price: 100, tax_rate: 18, ...tax }],
  });
  const gujarat = gstin('24', 'AABCP1234C');
  const pune = gstin('27', 'AABCK5678F');
  const on = (tool: string, args: Record<string, unknown>) => taxIssues(args, books, undefined, tool);
  it.each([
    ['from Gujarat, received in Maharashtra, IGST', gujarat, { igst: 180 }, 'Maharashtra', []],
    ['from Gujarat, IGST, no place said', gujarat, { igst: 180 }, undefined, []],
    ['from Gujarat, CGST+SGST', gujarat, { cgst: 90, sgst: 90 }, 'Maharashtra', ['place_of_supply_mismatch']],
    ['from Pune, CGST+SGST', pune, { cgst: 90, sgst: 90 }, undefined, []],
    ['from Pune, IGST', pune, { igst: 180 }, undefined, ['place_of_supply_mismatch']],
  ])('%s', (_, vendor, tax, place, want) => {
    expect(on('create_bill', bill(vendor, tax, place)).map((i) => i.code)).toEqual(want);
    expect(on('record_purchase', bill(vendor, tax, place)).map((i) => i.code)).toEqual(want);
  });

  it('names the supplier and the place of supply; the same call as a sale is read the other way', () => {
    const [issue] = on('create_bill', bill(pune, { igst: 180 }));
    expect(issue?.message).toBe(
      "Line 1's igst (lines[0].igst) charges IGST, but the supplier (vendor.gstin) and the place of supply (the business's own state) are both in Maharashtra (27): a supply within a state is charged CGST and SGST or UTGST.",
    );
    const sale = { ...bill(gujarat, { igst: 180 }, 'Maharashtra') };
    expect(on('create_invoice', sale).map((i) => i.code)).toEqual(['place_of_supply_mismatch']);
  });
});

describe('another country is data: the UAE’s 5% VAT and its TRN', () => {
  const uae: TaxRule[] = [
    { kind: 'rate', from: '2018-01-01', rate: 0 },
    { kind: 'rate', from: '2018-01-01', rate: 5 },
    {
      kind: 'identifier',
      from: '2018-01-01',
      name: 'TRN',
      role: 'registration',
      fieldWords: ['trn', 'vat_number', 'vat_registration_number'],
      patterns: ['^100[0-9]{12}$'],
    },
  ];
  const books: BooksContext = {
    country: 'AE',
    today: '2025-10-01',
    taxName: 'VAT',
    currency: 'AED',
    locale: 'en-AE',
    rules: uae,
  };
  it('checks the rate and the registration from the rows alone', () => {
    const bill = (rate: number, trn: string) => ({
      supplier: { TRN: trn },
      date: '2025-10-01',
      lines: [{ qty: 1, unitPrice: 100, vat_rate: rate, vat_amount: rate }],
    });
    expect(codes(bill(5, '100123456789012'), books)).toEqual([]);
    expect(codes(bill(18, '100123456789012'), books)).toEqual(['rate_invalid']);
    expect(codes(bill(5, '200123456789012'), books)).toEqual(['trn_invalid']);
    const later = { ...books, rules: uae.map((r) => ({ ...r, from: '2026-01-01' })) };
    expect(codes(bill(5, '100123456789012'), later)).toEqual(['rate_invalid']);
    const [issue] = taxIssues(bill(18, '100123456789012'), books);
    expect(issue?.message).toContain('charges VAT at 18%');
    expect(issue?.message).toContain('the rates then are 0%, 5%');
  });
  it('before the VAT began there is no rate in force', () => {
    expect(codes({ date: '2017-06-01', lines: [{ qty: 1, price: 100, vat_rate: 5 }] }, books)).toEqual([
      'rate_invalid',
    ]);
  });
});
