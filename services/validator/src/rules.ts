import type { ConfirmationTier, FieldIssue, ToolAnnotations } from '@munim/contracts';

/** Names of the custom checks a rule may ask for (implemented in {@link CUSTOM_CHECKS}). */
export type CustomCheckName = 'journal_balanced';

/** What a write tool needs beyond its JSON Schema (seed 000 §4.1). */
export interface WriteRule {
  /** Fields that must be present and neither null nor empty. */
  required: readonly string[];
  /** Fields that must be non-empty arrays. */
  arrayFields?: readonly string[];
  /** Top-level amount fields that must be greater than zero when present. */
  positive?: readonly string[];
  check?: CustomCheckName;
}

/** Seed 000 §3.1 (covered) and §3.2 (gaps), plus the vendor-payment twin of create_payment. */
export const WRITE_TOOL_RULES: Readonly<Record<string, WriteRule>> = {
  create_payment: { required: ['AccountId', 'Amount'], arrayFields: ['Applications'], positive: ['Amount'] },
  create_bill_payment: {
    required: ['AccountId', 'Amount'],
    arrayFields: ['Applications'],
    positive: ['Amount'],
  },
  create_invoice: { required: ['ContactId'], arrayFields: ['Lines'] },
  create_bill: { required: ['ContactId'], arrayFields: ['Lines'] },
  create_credit_note: { required: ['ContactId'], arrayFields: ['Lines'] },
  update_invoice: { required: ['InvoiceId'] },
  update_bill: { required: ['BillId'] },
  void_invoice: { required: ['InvoiceId'] },
  delete_contact: { required: ['ContactId'] },
  send_invoice: { required: ['InvoiceId', 'email'] },
  approve_bill: { required: ['BillId'] },
  update_payment: { required: ['PaymentId'], positive: ['Amount'] },
  create_journal_entry: { required: [], arrayFields: ['Lines'], check: 'journal_balanced' },
};

/** Fields holding money: finite numbers, never negative, wherever they appear in a write's arguments. */
export const AMOUNT_FIELDS: ReadonlySet<string> = new Set([
  'Amount',
  'UnitPrice',
  'DebitAmount',
  'CreditAmount',
  'LineAmount',
  'TaxAmount',
  'TotalAmount',
  'SubTotal',
  'DiscountAmount',
  'AmountPaid',
]);

/** Fields holding an ISO 4217 currency code, wherever they appear in a write's arguments. */
export const CURRENCY_FIELDS: ReadonlySet<string> = new Set(['Currency', 'CurrencyCode', 'currency']);

/** Fields holding a date (`Date`, `DueDate`, `FromDate`, …): a real calendar date when given as text. */
export const DATE_FIELD = /(?:^|[a-z_])Date$|^date$|_date$/;

/** Confirmation tiers of seed 000 §7.1; other writes get 3 when annotated destructive, else 1. */
export const CONFIRMATION_TIERS: Readonly<Record<string, 1 | 2 | 3>> = {
  create_invoice: 1,
  create_bill: 1,
  create_payment: 1,
  update_invoice: 2,
  update_bill: 2,
  send_invoice: 2,
  void_invoice: 3,
  delete_contact: 3,
  approve_bill: 3,
};

/** The confirmation tier of a call: 0 for reads. */
export function confirmationTier(
  tool: string,
  isWrite: boolean,
  annotations?: ToolAnnotations,
): ConfirmationTier {
  if (!isWrite) return 0;
  return CONFIRMATION_TIERS[tool] ?? (annotations?.destructiveHint === true ? 3 : 1);
}

const TOLERANCE = 0.01;

function amountOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** Custom checks by name; each returns an issue or null. */
export const CUSTOM_CHECKS: Readonly<
  Record<CustomCheckName, (args: Record<string, unknown>) => FieldIssue | null>
> = {
  journal_balanced: (args) => {
    const lines = Array.isArray(args.Lines) ? (args.Lines as unknown[]) : [];
    if (lines.length < 2) {
      return {
        field: 'Lines',
        expected: 'at least 2 lines',
        received: `${lines.length} line${lines.length === 1 ? '' : 's'}`,
        code: 'too_small',
        message: 'Journal entry requires at least 2 lines.',
      };
    }
    const line = (l: unknown) => (typeof l === 'object' && l !== null ? (l as Record<string, unknown>) : {});
    const debits = round2(lines.reduce<number>((sum, l) => sum + amountOf(line(l).DebitAmount), 0));
    const credits = round2(lines.reduce<number>((sum, l) => sum + amountOf(line(l).CreditAmount), 0));
    if (Math.abs(debits - credits) > TOLERANCE) {
      return {
        field: 'Lines',
        expected: 'total debits equal to total credits',
        received: `debits ${debits}, credits ${credits}`,
        code: 'unbalanced',
        message: `Debits (${debits}) must equal Credits (${credits}).`,
      };
    }
    return null;
  },
};

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
