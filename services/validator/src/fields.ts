import { singular } from '@munim/contracts';

/** Field concepts a write rule can ask for; each is found in a tool's schema by meaning, not by spelling. */
export type Concept =
  | 'account'
  | 'amount'
  | 'contact'
  | 'lines'
  | 'applications'
  | 'email'
  | 'fromAccount'
  | 'toAccount'
  | 'recordId';

/** How a concept is spelt in real APIs. */
export interface ConceptSpec {
  /** Patterns over a field's key in snake words (`fieldKey`), best first: the first that a schema property matches wins. */
  patterns: readonly RegExp[];
  /** The field holds a list: only array-typed properties match (when the schema gives a type). */
  list?: boolean;
}

const PARTY = 'contact|customer|vendor|supplier|client|party|payee|payer';
const ACCOUNT_OWNER = 'bank|deposit|deposit_to|payment|paid_from|paid_through|cash';

/** The concepts of {@link Concept} except `recordId`, which depends on the tool's noun ({@link recordIdSpec}). */
export const CONCEPTS: Readonly<Record<Exclude<Concept, 'recordId'>, ConceptSpec>> = {
  account: {
    patterns: [
      /^account_id$/,
      new RegExp(`^(?:${ACCOUNT_OWNER})_account_id$`),
      /^account(?:_(?:ref|code|number))?$/,
      new RegExp(`^(?:${ACCOUNT_OWNER})_account(?:_(?:ref|code))?$`),
    ],
  },
  amount: {
    patterns: [
      /^amount$/,
      /^(?:payment|total|paid|received|transfer)_amount$/,
      /^amount_(?:paid|received)$/,
      /^(?:total_)?amt$/,
      /^total$/,
    ],
  },
  contact: {
    patterns: [new RegExp(`^(?:${PARTY})_id$`), new RegExp(`^(?:${PARTY})(?:_(?:ref|code))?$`)],
  },
  lines: {
    patterns: [
      /^lines?$/,
      /^line_items?$/,
      /^(?:manual_)?journal_lines$/,
      /^(?:items|entries|postings|journal_entries)$/,
    ],
    list: true,
  },
  applications: {
    patterns: [/^(?:payment_)?(?:applications|allocations)$/, /^appl(?:ied|y)_to$/, /^(?:invoices|bills)$/],
    list: true,
  },
  email: {
    patterns: [
      /^email$/,
      /^email_(?:address|addresses|to)$/,
      /^(?:to|recipient|send_to)_(?:email|emails|email_address)$/,
      /^(?:to_mail_ids|send_to|recipients?|to)$/,
    ],
  },
  fromAccount: {
    patterns: [/^(?:from|source|transfer_from)_(?:bank_)?account(?:_(?:id|ref|code))?$/],
  },
  toAccount: {
    patterns: [/^(?:to|destination|target|transfer_to)_(?:bank_)?account(?:_(?:id|ref|code))?$/],
  },
};

/**
 * The id of the record a tool acts on, from its nouns (`credit`, `note`): `credit_note_id`, then the
 * head noun's (`note_id`), then a leading noun's (`invoice_id` of `invoice_status`), then a bare `id`.
 */
export function recordIdSpec(nouns: readonly string[]): ConceptSpec {
  const words = nouns.map(singular);
  const object = words.join('_');
  const names = [object];
  for (let i = 1; i < words.length; i++) names.push(words.slice(i).join('_'));
  for (let i = words.length - 1; i >= 1; i--) names.push(words.slice(0, i).join('_'));
  // Name words are letters and digits only: nothing to escape.
  const patterns = [...new Set(names)].filter((n) => n !== '').map((n) => new RegExp(`^${n}_id$`));
  return { patterns: [...patterns, /^id$/] };
}
