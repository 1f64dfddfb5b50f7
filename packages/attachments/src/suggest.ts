import type { AttachmentCategory, ExtractionStatus } from '@munim/contracts';
import type { ExtractionDetails } from '@munim/db';

export interface SuggestionInput {
  filename: string;
  category: AttachmentCategory;
  status: ExtractionStatus;
  text: string | null;
  details: ExtractionDetails;
}

/** What kind of records a file holds, from its column names, text and file name. */
const KINDS: { pattern: RegExp; kind: string; singular: string }[] = [
  { pattern: /\binvoices?\b|\binv[-_ ]?\d/i, kind: 'invoices', singular: 'invoice' },
  { pattern: /\bbills?\b|\bvendors?\b|\bsuppliers?\b|\bpurchases?\b/i, kind: 'bills', singular: 'bill' },
  { pattern: /\breceipts?\b/i, kind: 'receipts', singular: 'receipt' },
  { pattern: /\bpayments?\b|\bpaid\b/i, kind: 'payments', singular: 'payment' },
  { pattern: /\bexpenses?\b/i, kind: 'expenses', singular: 'expense' },
  {
    pattern: /\bbank statement\b|\bstatement\b|\bopening balance\b/i,
    kind: 'statement',
    singular: 'statement',
  },
];

function kindOf(...sources: (string | undefined | null)[]) {
  const text = sources.filter(Boolean).join(' ').replace(/[_-]+/g, ' ');
  return KINDS.find((k) => k.pattern.test(text));
}

/**
 * The message the user will most likely send next about a new file, chosen by
 * its category and content without a model call, so it is instant and the same every time.
 */
export function suggestMessage(input: SuggestionInput): string {
  const { filename, category, status, details } = input;
  if (status === 'failed') return `I couldn't read ${filename}. What would you like me to do with it?`;
  const head = (input.text ?? '').slice(0, 4000);
  if (category === 'image') {
    const kind = kindOf(filename);
    if (kind?.kind === 'invoices' || kind?.kind === 'bills')
      return `Read this ${kind.singular} and record it?`;
    if (kind?.kind === 'receipts') return 'What does this receipt show?';
    return 'What does this image show?';
  }
  if (category === 'spreadsheet') {
    const rows = details.rows ?? 0;
    const kind = kindOf((details.columns ?? []).join(' '), filename, head.slice(0, 1000));
    const count = `${rows} ${rows === 1 ? 'row' : 'rows'}`;
    if (rows === 0) return `${filename} has no data rows. What should I look for in it?`;
    if (kind && kind.kind !== 'statement')
      return `Review the ${count} in ${filename} and record them as ${kind.kind}?`;
    if (kind?.kind === 'statement')
      return `Reconcile the ${count} of the statement in ${filename} with my books?`;
    return `Summarise the ${count} in ${filename}?`;
  }
  if ((input.text ?? '').trim() === '') {
    return `${filename} has no readable text (it may be a scan). What would you like me to do with it?`;
  }
  const kind = kindOf(head, filename);
  if (kind?.kind === 'statement') return `Reconcile the statement in ${filename} with my books?`;
  if (kind) return `Read the ${kind.singular} in ${filename} and record it?`;
  return `Summarise ${filename}?`;
}
