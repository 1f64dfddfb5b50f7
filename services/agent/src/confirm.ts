import { parseToolName, singular } from '@munim/contracts';
import { type Formats, formatsFor } from './render/locale.ts';

/** Words for tools and fields in what users read: questions, confirmations, fallbacks. */

/** Verbs whose words read better in a sentence than the name's own word. */
const VERB_WORDS: Readonly<Record<string, string>> = { writeoff: 'write off', lookup: 'look up' };

/** "create_payment", "createPayment", "payments.create" → "create the payment". */
export function describeTool(tool: string): string {
  const { verb, nouns, words } = parseToolName(tool);
  if (!verb) return `run ${words.join(' ') || tool}`;
  // One record is meant: `invoices.create` creates an invoice.
  const object = [...nouns.slice(0, -1), singular(nouns.at(-1) ?? '')].join(' ');
  return `${VERB_WORDS[verb] ?? verb} the ${object}`.trim();
}

/** The word a tier-3 action is confirmed with: VOID, DELETE, WRITE OFF… (CONFIRM when the name has no verb). */
export function confirmWord(tool: string): string {
  const { verb } = parseToolName(tool);
  return verb ? (VERB_WORDS[verb] ?? verb).toUpperCase() : 'CONFIRM';
}

/** A value as the business writes it: money in its currency, dates in its format. */
function show(key: string, value: unknown, fmt: Formats): string {
  if (typeof value === 'number' && /amount|total|price|balance/i.test(key)) return fmt.money(value);
  if (typeof value === 'string' && /date/i.test(key)) return fmt.date(value) ?? value;
  if (Array.isArray(value)) return `${value.length} item(s)`;
  if (value && typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const ID_FIELD = /(^id$|Id$|ID$|_id$)/;

/** A one-line summary of a call's arguments, without internal ids. */
export function summarizeArgs(args: Record<string, unknown>, fmt: Formats = formatsFor()): string {
  const parts = Object.entries(args)
    .filter(([k, v]) => !ID_FIELD.test(k) && v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${k.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()}: ${show(k, v, fmt)}`);
  return parts.join(', ');
}

/** Tier 2: exactly what changes, before → after, for the fields the call sets. */
export function describeChanges(
  before: Record<string, unknown>,
  args: Record<string, unknown>,
  fmt: Formats = formatsFor(),
): string[] {
  return Object.entries(args)
    .filter(([k]) => !ID_FIELD.test(k))
    .map(([k, after]) => `• ${k}: ${show(k, before[k] ?? '—', fmt)} → ${show(k, after, fmt)}`);
}

/** The question of the confirmation card for a tier (seed 000 §7.1). */
export function confirmationQuestion(
  tool: string,
  args: Record<string, unknown>,
  tier: number,
  changes: string[] | undefined,
  opts: { record?: string | undefined; unrequested?: boolean; formats?: Formats } = {},
): string {
  const what = `${describeTool(tool)}${opts.record ? ` ${opts.record}` : ''}`;
  const summary = summarizeArgs(args, opts.formats);
  const warning = opts.unrequested
    ? '⚠️ You did not ask for this change: it was proposed from something I read, not by you. '
    : '';
  if (tier === 3) {
    return `${warning}This will ${what}${summary ? ` (${summary})` : ''}. It cannot be undone. Type ${confirmWord(tool)} to confirm.`;
  }
  if (tier === 2 && changes && changes.length > 0) {
    return `${warning}Confirm: ${what} with these changes?\n${changes.join('\n')}`;
  }
  return `${warning}Confirm: ${what}${summary ? ` (${summary})` : ''}?`;
}

/** The id fields of a call's arguments (`ContactId`, `contact_id`, `invoiceID`, `id`). */
export function idArgs(args: Record<string, unknown>): [string, string][] {
  return Object.entries(args).filter(
    (entry): entry is [string, string] =>
      ID_FIELD.test(entry[0]) && typeof entry[1] === 'string' && entry[1] !== '',
  );
}

const NAME_KEY =
  /^(display_?name|name|contact_?name|customer_?name|vendor_?name|(invoice|bill|credit_?note|document)_?number|number|reference|title)$/i;

/** A record's name for people, from a read of it: its name, number or reference (one level deep). */
export function recordLabel(record: unknown): string | undefined {
  const pick = (value: unknown): string | undefined => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const entries = Object.entries(value as Record<string, unknown>);
    const found = entries.filter(([k, v]) => NAME_KEY.test(k) && typeof v === 'string' && v.trim() !== '');
    const number = found.find(([k]) => /number|reference/i.test(k))?.[1] as string | undefined;
    const name = found.find(([k]) => /name|title/i.test(k))?.[1] as string | undefined;
    if (number && name && number !== name) return `${number} (${name})`;
    return number ?? name;
  };
  if (Array.isArray(record)) return record.length === 1 ? recordLabel(record[0]) : undefined;
  const top = pick(record);
  if (top) return top;
  if (record && typeof record === 'object') {
    for (const value of Object.values(record as Record<string, unknown>)) {
      const inner = Array.isArray(value) && value.length === 1 ? pick(value[0]) : pick(value);
      if (inner) return inner;
    }
  }
  return undefined;
}

/**
 * A plain "yes" in the conversation (seed 003 §5.3 rule 5), in English, Hinglish or Hindi; it may
 * confirm a tier-1 action that the last answer proposed, nothing older.
 */
export const PLAIN_YES =
  /^\s*(yes|y|yeah|yep|ok(ay)?|sure|confirm(ed)?|go ahead|do it|(haan|han|ha)( ji)?( kar do)?|ji haan|kar do|karo|theek( hai)?|thik( hai)?|sahi( hai)?|(हाँ|हां|हा)( जी)?( कर दो| करो)?|जी (हाँ|हां)|ठीक है|कर दो|करो|सही है)\s*[.!।]*\s*$/i;
