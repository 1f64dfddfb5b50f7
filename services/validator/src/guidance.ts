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

/** Field → read tool, first match wins (seed 000 §2: "Fetch invoice first via get_all_invoices"). */
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
