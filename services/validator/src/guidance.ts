/** A read tool that supplies the value of a field a write needs. */
export interface FieldSource {
  /** The field (its last path segment, e.g. `InvoiceId` of `Applications[0].InvoiceId`). */
  field: string;
  /** Applies only to write tools whose name matches. */
  when?: RegExp;
  tool: string;
  /** What the read tool finds, for the message ("Fetch the invoice first …"). */
  noun: string;
  /** The id the read tool yields, when it is not the field itself. */
  supplies?: string;
}

/** Field → the read tool that supplies it, first match wins ("Fetch invoice first via get_all_invoices"). */
export const FIELD_SOURCES: readonly FieldSource[] = [
  { field: 'Applications', when: /bill/, tool: 'get_bills', noun: 'bill', supplies: 'BillId' },
  { field: 'Applications', tool: 'get_all_invoices', noun: 'invoice', supplies: 'InvoiceId' },
  { field: 'InvoiceId', tool: 'get_all_invoices', noun: 'invoice' },
  { field: 'ContactId', when: /bill|vendor/, tool: 'get_all_vendors', noun: 'vendor' },
  { field: 'ContactId', tool: 'get_all_customers', noun: 'customer' },
  { field: 'AccountId', tool: 'get_charts_of_accounts', noun: 'account' },
  { field: 'BillId', tool: 'get_bills', noun: 'bill' },
  { field: 'PaymentId', tool: 'get_all_payments', noun: 'payment' },
];

/** The source of a field for a tool, if one is known. */
export function sourceOf(field: string, tool: string): FieldSource | undefined {
  const leaf =
    field
      .replace(/\[\d+\]/g, '')
      .split('.')
      .at(-1) ?? field;
  return FIELD_SOURCES.find((source) => source.field === leaf && (!source.when || source.when.test(tool)));
}

/** One sentence telling the LLM where a field's value comes from. */
export function guidanceSentence(field: string, source: FieldSource): string {
  const leaf =
    field
      .replace(/\[\d+\]/g, '')
      .split('.')
      .at(-1) ?? field;
  const obtains = source.supplies ?? leaf;
  const target = obtains === leaf ? '' : ` for ${field}`;
  return `Fetch the ${source.noun} first via ${source.tool} to obtain ${obtains}${target}.`;
}

/** A question for the user about a missing field, first match wins; `{noun}` is the tool's object. */
export const FIELD_QUESTIONS: readonly { field: string; when?: RegExp; question: string }[] = [
  { field: 'Applications', when: /bill/, question: 'Which bill should this payment apply to?' },
  { field: 'Applications', question: 'Which invoice should this payment apply to?' },
  { field: 'Amount', question: 'Please confirm the exact amount.' },
  { field: 'ContactId', when: /bill|vendor/, question: 'Which vendor is this for?' },
  { field: 'ContactId', when: /delete/, question: 'Which customer or vendor do you mean?' },
  { field: 'ContactId', question: 'Which customer is this for?' },
  {
    field: 'Lines',
    when: /journal/,
    question: 'Which accounts should be debited and credited, and by how much?',
  },
  { field: 'Lines', question: 'What should it include (item, quantity and price)?' },
  { field: 'InvoiceId', question: 'Which invoice do you mean (its number)?' },
  { field: 'BillId', question: 'Which bill do you mean (its number)?' },
  { field: 'PaymentId', question: 'Which payment do you mean?' },
  { field: 'AccountId', question: 'Which bank or cash account should it use?' },
  { field: 'email', question: 'Which email address should it go to?' },
];

/** Plain-words questions about the missing fields of a blocked call (a generic one for unknown fields). */
export function questionsFor(tool: string, missing: readonly string[]): string[] {
  const out = new Set<string>();
  for (const field of missing) {
    const leaf =
      field
        .replace(/\[\d+\]/g, '')
        .split('.')
        .at(-1) ?? field;
    const hit = FIELD_QUESTIONS.find((q) => q.field === leaf && (!q.when || q.when.test(tool)));
    out.add(
      hit?.question ??
        `What should the ${leaf
          .replace(/([a-z])([A-Z])/g, '$1 $2')
          .replace(/_/g, ' ')
          .toLowerCase()} be?`,
    );
  }
  return [...out];
}
