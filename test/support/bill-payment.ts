import { randomBytes } from 'node:crypto';
import { runTool } from '@munim/demo-books';
import type { TestSystem } from './stack.ts';

/**
 * A new bill of `amount` (before tax) from the demo books' first vendor, and a scripted model that
 * pays it in full from the bank account when asked `query` (`pay bill <reference>`), then says `reply`.
 */
export function billToPay(
  sys: TestSystem,
  amount: number,
  reply: (reference: string) => string = () => 'Paid.',
) {
  const bank = sys.books.store.accounts.find((a) => a.Code === '1000')?.AccountId ?? '';
  const vendor = sys.books.store.contacts.find((c) => c.ContactType === 'VENDOR')?.ContactId ?? '';
  const created = runTool(sys.books.store, 'create_bill', {
    ContactId: vendor,
    Lines: [{ Description: 'Machinery', Quantity: 1, UnitPrice: amount, TaxRate: 0 }],
    Status: 'AUTHORISED',
  });
  const bill = created.structuredContent as { BillId: string };
  const reference = `UTR${randomBytes(5).toString('hex').toUpperCase()}`;
  const query = `pay bill ${reference}`;
  const args = {
    AccountId: bank,
    Amount: amount,
    Applications: [{ BillId: bill.BillId, Amount: amount }],
    Reference: reference,
    PaymentMode: 'NEFT',
  };
  sys.llm?.script({
    match: query,
    turns: [{ toolCalls: [{ name: 'create_bill_payment', arguments: args }] }, { content: reply(reference) }],
  });
  return { query, reference, billId: bill.BillId };
}
