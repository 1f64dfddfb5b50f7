import { describe, expect, it } from 'vitest';
import { taxIssues } from '../src/tax/checks.ts';
import { gstin, indiaBooks, SHARMA_GSTIN } from './tax-support.ts';

/**
 * Invoices as real accounting servers and India's e-invoice take them, each right as written: no
 * check may block one. Then one figure of each made wrong: the check finds it, by meaning.
 */
const books = indiaBooks();
const codes = (args: Record<string, unknown>) => taxIssues(args, books).map((i) => `${i.code}@${i.field}`);
const gujarat = gstin('24', 'AABCP1234C');
const karnataka = gstin('29', 'AAFCM2345K');

const xero = () => ({
  Type: 'ACCREC',
  Contact: { ContactID: 'c-1', TaxNumber: gujarat },
  Date: '2025-10-10',
  LineAmountTypes: 'Exclusive',
  LineItems: [
    {
      Description: 'Panels',
      Quantity: 4,
      UnitAmount: 2500,
      AccountCode: '200',
      TaxType: 'IGST18',
      LineAmount: 10000,
      TaxAmount: 1800,
    },
    {
      Description: 'Fitting',
      Quantity: 1,
      UnitAmount: 1500,
      AccountCode: '200',
      TaxType: 'IGST18',
      LineAmount: 1500,
      TaxAmount: 270,
    },
  ],
  SubTotal: 11500,
  TotalTax: 2070,
  Total: 13570,
});

const quickbooks = () => ({
  CustomerRef: { value: '58' },
  TxnDate: '2025-10-10',
  GlobalTaxCalculation: 'TaxExcluded',
  Line: [
    {
      Amount: 2000,
      DetailType: 'SalesItemLineDetail',
      SalesItemLineDetail: { ItemRef: { value: '3' }, Qty: 8, UnitPrice: 250, TaxCodeRef: { value: '5' } },
    },
  ],
  TxnTaxDetail: { TotalTax: 360 },
});

const zoho = () => ({
  customer_id: '460000000026049',
  date: '2025-10-10',
  place_of_supply: 'KA',
  gst_treatment: 'business_gst',
  gst_no: karnataka,
  is_inclusive_tax: false,
  line_items: [
    {
      item_id: '4600000000',
      name: 'Cable',
      hsn_or_sac: '854449',
      quantity: 100,
      rate: 45,
      discount: '10%',
      tax_id: '46000',
      tax_percentage: 18,
      item_total: 4050,
    },
  ],
  shipping_charge: 200,
  adjustment: -0.9,
  total: 4978.1,
});

const tally = () => ({
  voucher_date: '2025-10-10',
  party: { name: 'Kale Stores', gstin: gstin('27', 'AABCK5678F'), state: 'Maharashtra' },
  items: [
    {
      name: 'Rice 25 kg',
      hsn: '1006',
      qty: 5,
      rate: 1999,
      taxable_value: 9995,
      cgst_rate: 2.5,
      cgst_amount: 249.88,
      sgst_rate: 2.5,
      sgst_amount: 249.88,
    },
  ],
  round_off: 0.24,
  grand_total: 10495,
});

const eInvoice = () => ({
  Version: '1.1',
  DocDtls: { Typ: 'INV', No: 'INV-0042', Dt: '10/10/2025' },
  SellerDtls: { Gstin: SHARMA_GSTIN, LglNm: 'Sharma Traders Pvt Ltd', Stcd: '27' },
  BuyerDtls: { Gstin: gujarat, LglNm: 'Patel Constructions', Pos: '24', Stcd: '24' },
  ItemList: [
    {
      SlNo: '1',
      PrdDesc: 'Switchgear',
      IsServc: 'N',
      HsnCd: '85371000',
      Qty: 2,
      Unit: 'NOS',
      UnitPrice: 15000,
      TotAmt: 30000,
      Discount: 1000,
      AssAmt: 29000,
      GstRt: 18,
      IgstAmt: 5220,
      CgstAmt: 0,
      SgstAmt: 0,
      TotItemVal: 34220,
    },
  ],
  ValDtls: { AssVal: 29000, IgstVal: 5220, CgstVal: 0, SgstVal: 0, TotInvVal: 34220 },
});

describe('real invoice shapes, right as written, pass every check', () => {
  it.each([
    ['Xero', xero()],
    ['QuickBooks', quickbooks()],
    ['Zoho Books', zoho()],
    ['a Tally-style voucher', tally()],
    ['an e-invoice (IRP schema)', eInvoice()],
  ])('%s', (_name, invoice) => {
    expect(codes(invoice)).toEqual([]);
  });
});

describe('one figure made wrong is found', () => {
  it('Xero: a line tax, the total, a 12% type after the rate change', () => {
    const tax = xero();
    tax.LineItems[1]!.TaxAmount = 180;
    // The rate is in the tax type's name (IGST18): the line's tax is checked against it.
    expect(codes(tax)).toEqual(['tax_mismatch@LineItems[1].TaxAmount']);
    expect(codes({ ...xero(), Total: 13580 })).toEqual(['total_mismatch@Total']);
    const twelve = xero();
    for (const line of twelve.LineItems) line.TaxType = 'IGST12';
    twelve.LineItems[0]!.TaxAmount = 1200;
    twelve.LineItems[1]!.TaxAmount = 180;
    expect(codes({ ...twelve, TotalTax: 1380, Total: 12880 })).toEqual([
      'rate_invalid@LineItems[0].TaxType',
      'rate_invalid@LineItems[1].TaxType',
    ]);
    const local = xero();
    local.LineItems[0]!.TaxType = 'CGST+SGST 18';
    // One line within the state, one across: both on one document.
    expect(codes(local)).toEqual(['place_of_supply_mismatch@LineItems[1].TaxType']);
  });

  it('QuickBooks: quantity × price against the amount', () => {
    const q = quickbooks();
    q.Line[0]!.Amount = 2500;
    expect(codes(q)).toEqual(['amount_mismatch@Line[0].Amount']);
  });

  it('Zoho Books: the item total after discount, the total with charges, the place of supply', () => {
    const z = zoho();
    z.line_items[0]!.item_total = 4500;
    expect(codes(z)).toContain('total_mismatch@line_items[0].item_total');
    expect(codes({ ...zoho(), total: 4988.1 })).toEqual(['total_mismatch@total']);
    const moved = {
      ...zoho(),
      place_of_supply: 'GJ',
      gst_no: gujarat,
      line_items: [{ ...zoho().line_items[0], tax_name: 'CGST+SGST 18' }],
    };
    expect(codes(moved)).toContain('place_of_supply_mismatch@line_items[0].tax_name');
  });

  it('Tally: a CGST amount, a customer across the state border charged CGST', () => {
    const t = tally();
    t.items[0]!.cgst_amount = 259.88;
    expect(codes(t)).toContain('tax_mismatch@items[0].cgst_amount');
    const across = { ...tally(), party: { name: 'Mysore Stores', gstin: karnataka, state: 'Karnataka' } };
    expect(codes(across)).toEqual(['place_of_supply_mismatch@items[0].cgst_amount']);
  });

  it('e-invoice: IGST within the state, a wrong IGST amount, a bad buyer GSTIN, a bad HSN', () => {
    const within = eInvoice();
    within.BuyerDtls = { ...within.BuyerDtls, Gstin: gstin('27', 'AABCK5678F'), Pos: '27', Stcd: '27' };
    expect(codes(within)).toEqual(['place_of_supply_mismatch@ItemList[0].IgstAmt']);
    const wrong = eInvoice();
    wrong.ItemList[0]!.IgstAmt = 5400;
    expect(codes(wrong)).toEqual(['tax_mismatch@ItemList[0].IgstAmt']);
    const bad = eInvoice();
    bad.BuyerDtls.Gstin = `${gujarat.slice(0, -1)}${gujarat.endsWith('A') ? 'B' : 'A'}`;
    bad.ItemList[0]!.HsnCd = '8537100';
    expect(codes(bad).sort()).toEqual(['gstin_invalid@BuyerDtls.Gstin', 'hsn_invalid@ItemList[0].HsnCd']);
  });
});
