import { describe, expect, it } from 'vitest';
import { runTool, seedBooks } from '../src/index.ts';

/** The demo books' own refusals of an invoice whose stated total or tax type does not fit. */
describe('create_invoice with a place of supply, tax type and total', () => {
  const books = seedBooks({ asOf: new Date('2025-12-01') });
  const gujarat = books.contacts.find((c) => c.ContactType === 'CUSTOMER' && c.State === 'Gujarat');
  const invoice = (over: Record<string, unknown>) =>
    runTool(books, 'create_invoice', {
      ContactId: gujarat?.ContactId,
      Lines: [{ Description: 'Panel', Quantity: 10, UnitPrice: 1000, TaxRate: 18 }],
      ...over,
    });

  it('charges IGST to another state, or CGST+SGST to the place of supply it is given', () => {
    const across = invoice({ TaxType: 'IGST', Total: 11800 });
    expect(across.isError).toBeFalsy();
    expect(across.structuredContent).toMatchObject({
      PlaceOfSupply: 'Gujarat',
      IGST: 1800,
      CGST: 0,
      Total: 11800,
    });
    const within = invoice({ PlaceOfSupply: 'Maharashtra', TaxType: 'CGST+SGST' });
    expect(within.structuredContent).toMatchObject({
      PlaceOfSupply: 'Maharashtra',
      CGST: 900,
      SGST: 900,
      IGST: 0,
    });
  });

  it('refuses a total the lines do not come to, and a tax type that does not fit the place of supply', () => {
    const count = books.invoices.length;
    expect(invoice({ Total: 11700 }).isError).toBe(true);
    expect(invoice({ TaxType: 'CGST+SGST' }).isError).toBe(true);
    expect(books.invoices).toHaveLength(count);
  });
});
