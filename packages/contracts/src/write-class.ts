import { parseToolName, singular, verbClass } from './tool-names.ts';
import { DESTRUCTIVE_VERBS, EDIT_VERBS, VERB_NOUNS } from './tool-words.ts';

/** What kind of change a write makes to the books, as approval policies name it. */
export const WRITE_CLASSES = [
  'payment',
  'transfer',
  'document',
  'journal',
  'party',
  'edit',
  'destructive',
  'send',
] as const;
export type WriteClass = (typeof WRITE_CLASSES)[number];

/** Verbs that make something leave the books: to a customer, a regulator, an inbox. */
const SEND_VERBS = new Set([
  'send',
  'resend',
  'email',
  'mail',
  'share',
  'notify',
  'remind',
  'dispatch',
  'transmit',
  'efile',
  'whatsapp',
  'sms',
]);
/** Verbs and nouns of money paid or received. */
const PAYMENT_WORDS = new Set([
  'pay',
  'payment',
  'receive',
  'receipt',
  'refund',
  'payout',
  'disburse',
  'disbursement',
  'remit',
  'remittance',
  'settlement',
  'collection',
  'collect',
  'prepayment',
  'advance',
  'paid',
]);
/** Money moved between the business's own accounts. */
const TRANSFER_WORDS = new Set(['transfer', 'contra', 'sweep', 'deposit', 'withdraw', 'withdrawal', 'fund']);
/** Entries straight to the ledger. */
const JOURNAL_WORDS = new Set([
  'journal',
  'adjustment',
  'accrual',
  'provision',
  'depreciation',
  'posting',
  'reclass',
  'reclassification',
]);
/** The people and businesses the books deal with. */
const PARTY_WORDS = new Set([
  'customer',
  'vendor',
  'supplier',
  'contact',
  'party',
  'client',
  'employee',
  'payee',
  'debtor',
  'creditor',
  'buyer',
  'seller',
  'partner',
  'lead',
]);
/** Records the books keep as documents. */
const DOCUMENT_WORDS = new Set([
  'invoice',
  'bill',
  'note',
  'order',
  'estimate',
  'quote',
  'quotation',
  'expense',
  'voucher',
  'challan',
  'proforma',
  'document',
  'item',
  'product',
]);
/** Verbs that change an existing record without making or removing one (a send is a class of its own). */
const EDIT_WORDS: ReadonlySet<string> = new Set([...EDIT_VERBS].filter((v) => !SEND_VERBS.has(v)));

/**
 * The class of a write tool, read from its name in any naming style (and its description when
 * the name says too little): a destructive verb first (void, delete, write off, file …), then a
 * send, then money — paid or received, or moved between own accounts — whatever the verb, then a
 * change to an existing record, then what a new record is: a journal, a party, and any other a
 * document.
 */
export function writeClass(name: string, description = ''): WriteClass {
  const parts = parseToolName(name);
  const words = [...parts.words, ...parts.nouns].map(singular);
  const verbs = parts.changes.map((c) => c.word);
  if (parts.verbClass === 'destructive' || verbs.some((v) => DESTRUCTIVE_VERBS.has(v))) return 'destructive';
  // A send verb leads the name, or ends a resource-first one (`invoice.email`, not `update_email`).
  const [first, last] = [parts.words[0] ?? '', parts.words.at(-1) ?? ''];
  const resourceFirst = verbClass(first) === undefined || VERB_NOUNS.has(first);
  if ([...verbs, first].some((v) => SEND_VERBS.has(v)) || (resourceFirst && SEND_VERBS.has(last)))
    return 'send';
  const said = new Set(words);
  const has = (set: ReadonlySet<string>) => [...said].some((w) => set.has(w));
  // Money first, whatever the verb: marking an invoice paid or editing a payment moves money too.
  if (has(PAYMENT_WORDS)) return 'payment';
  // Money moved to a party is a payment to it; between the business's own accounts, a transfer.
  if (has(TRANSFER_WORDS)) return has(PARTY_WORDS) ? 'payment' : 'transfer';
  if (parts.mainVerb && EDIT_WORDS.has(parts.mainVerb)) return 'edit';
  if (has(JOURNAL_WORDS) || (said.has('entry') && !has(PARTY_WORDS))) return 'journal';
  if (has(PARTY_WORDS)) return 'party';
  // A name that says too little (`do_it`, `run_action`): what the description's first sentence does.
  if (description && !has(DOCUMENT_WORDS)) {
    const [verb = '', ...rest] = (description.split(/[.;\n]/)[0] ?? '').trim().toLowerCase().split(/\s+/);
    // "Voids the invoice" reads as void_the_invoice.
    const base =
      [verb.replace(/e?s$/, ''), verb.replace(/s$/, '')].find((v) => verbClass(v) !== undefined) ?? verb;
    const fromDescription = writeClass([base, ...rest].join('_'));
    if (fromDescription !== 'document') return fromDescription;
  }
  return 'document';
}
