import type { EventPayload } from '@munim/contracts';

/** What the console's tests stream: an answer in chunks, and the confirmation cards they answer. */
export const ANSWER = [
  'Here are the overdue invoices:\n\n',
  '| Invoice | Customer | Due |\n|---|---|---|\n| INV-1 | Acme Corp | ₹12,000 |\n| INV-2 | Globex | ₹3,500 |\n\n',
  '```params\n{"operation":"Send reminders","applied":[{"label":"Invoices","value":"2"}],"pending":[{"label":"Channel","hint":"email or WhatsApp"}]}\n```\n\n',
  '```clarification\n{"question":"Send reminders now?","type":"radio","options":[{"label":"Yes, send","value":"yes"},{"label":"Not now","value":"no"}]}\n```\n',
];
export const MCQ: EventPayload<'mcq'> = {
  actionId: 'act-77',
  mcq_type: 'confirm_write',
  tier: 3,
  question: 'Record a payment of ₹5000 from Acme Corp?',
  options: [
    { label: 'Yes, record it', value: 'confirm' },
    { label: 'Cancel', value: 'cancel' },
  ],
  pending_tool: 'create_payment',
  pending_args: { Customer: 'Acme Corp', Amount: 5000 },
  confirm_text: 'RECORD',
};

export const INVOICE_ID = '3f2b6c1e-9a4d-4e8b-b7c2-5d1e0f9a8b7c';
/** A tier-2 card as the agent sends it: ids in the call, words in the card. */
export const EDIT_MCQ: EventPayload<'mcq'> = {
  actionId: 'act-78',
  mcq_type: 'write_confirmation',
  tier: 2,
  question:
    'Confirm: update the invoice INV-0042 of Acme Corp (₹1,18,000.00, dated 15/01/2026) with these changes?\n• Due date: 14/02/2026 → 28/02/2026',
  record: 'INV-0042 of Acme Corp',
  details: [
    { label: 'Action', value: 'update the invoice' },
    { label: 'Invoice', value: 'INV-0042' },
    { label: 'Customer', value: 'Acme Corp' },
    { label: 'Amount', value: '₹1,18,000.00' },
    { label: 'Date', value: '15/01/2026' },
  ],
  changes: [{ field: 'Due date', before: '14/02/2026', after: '28/02/2026' }],
  options: [
    { label: '✅ Yes, update the invoice', value: 'confirm' },
    { label: '❌ Cancel', value: 'cancel' },
  ],
  pending_tool: 'update_invoice',
  pending_args: { InvoiceId: INVOICE_ID, DueDate: '2026-02-28' },
};
