import { describe, expect, it } from 'vitest';
import { confirmWord, describeTool } from '../src/answer/tool-words.ts';
import { confirmationCard } from '../src/confirmation/card.ts';
import { PLAIN_YES } from '../src/confirmation/plain-yes.ts';

describe('tool names in words, whatever their style', () => {
  it.each([
    ['create_payment', 'create the payment'],
    ['createPayment', 'create the payment'],
    ['payments.create', 'create the payment'],
    ['create_sales_invoice', 'create the sales invoice'],
    ['delete-timesheet', 'delete the timesheet'],
    ['add-timesheet-line', 'add the timesheet line'],
    ['books__post_journal', 'post the journal'],
    ['write_off_invoice', 'write off the invoice'],
    ['echo', 'run echo'],
    // A read's name on a write (its description runs the caller's SQL) is no verb to describe it by.
    ['read_query', 'run read query'],
    ['fetch_and_pay_bill', 'pay the bill'],
  ])('%s → "%s"', (tool, words) => {
    expect(describeTool(tool)).toBe(words);
  });

  it.each([
    ['void_invoice', 'VOID'],
    ['delete-timesheet', 'DELETE'],
    ['revertTimesheet', 'REVERT'],
    ['contacts.delete', 'DELETE'],
    ['writeOffInvoice', 'WRITE OFF'],
    ['trigger-cleanup', 'CONFIRM'],
    ['read_query', 'CONFIRM'],
    ['show_then_approve_bill', 'APPROVE'],
    ['purge_ledger__list_entries', 'PURGE'],
  ])('%s is confirmed by typing %s', (tool, word) => {
    expect(confirmWord(tool)).toBe(word);
    expect(confirmationCard(tool, {}, 3).question).toContain(`Type ${word} to confirm`);
  });
});

describe('a plain yes', () => {
  it.each([
    'yes',
    'OK.',
    'go ahead',
    'haan',
    'haan ji',
    'haan kar do',
    'theek hai',
    'हाँ',
    'हां जी',
    'ठीक है',
    'कर दो',
    'जी हाँ।',
  ])('"%s" is a yes', (text) => {
    expect(PLAIN_YES.test(text)).toBe(true);
  });

  it.each([
    'yes, and also void INV-3',
    'haan but for Bolt Ltd',
    'show invoices',
    'नहीं',
    'no',
    'okay so what about bills?',
  ])('"%s" is not', (text) => {
    expect(PLAIN_YES.test(text)).toBe(false);
  });
});
