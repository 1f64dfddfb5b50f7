import { describe, expect, it } from 'vitest';
import { asksForChange } from '../src/confirmation/requested.ts';

describe('whether the user asked for a change (unrequested_write)', () => {
  it.each([
    ['record ₹5000 payment from Acme Corp', 'create_payment'],
    ['pay the Bolt bill', 'create_bill_payment'],
    ['add customer Zeta Traders', 'create_customer'],
    ['update the due date of INV-4', 'update_invoice'],
    ['send INV-3 to Acme', 'send_invoice'],
    ['Acme ka payment record kar do', 'create_payment'],
    ['naya customer bana do: Zeta', 'create_customer'],
    ['Acme से ₹5000 का भुगतान जोड़ो', 'create_payment'],
    ['void INV-0042', 'void_invoice'],
    ['delete contact Mallory', 'delete_contact'],
    ['INV-9 ko cancel kar do', 'void_invoice'],
    ['purana contact hata do', 'delete-contact'],
    ['यह बिल रद्द करो', 'void_bill'],
    ['approve the bills awaiting approval', 'approve_bill'],
    ['mark BILL-31 as approved', 'approve_bill'],
    ['mark INV-4 as paid', 'create_payment'],
    ['INV-0042 wapas le lo', 'void_invoice'],
  ])('"%s" asks for %s', (text, tool) => {
    expect(asksForChange(text, tool)).toBe(true);
  });

  it.each([
    ['show overdue invoices', 'delete_contact'],
    ['what is my bank balance', 'create_payment'],
    ['list customers with their addresses', 'update_customer'],
    ['overdue invoices dikhao', 'void_invoice'],
    ['मेरे बिल दिखाओ', 'create_bill_payment'],
    // A change was asked for, but not a destructive one: deleting was not.
    ['add a note to Acme', 'delete_contact'],
    ['update the address of Acme', 'void_invoice'],
    ['mark BILL-31 as reviewed', 'approve_bill'],
    ['mark INV-4 as sent', 'void_invoice'],
  ])('"%s" does not ask for %s', (text, tool) => {
    expect(asksForChange(text, tool)).toBe(false);
  });
});
