import { parseToolName, singular } from '@munim/contracts';

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

const inr = new Intl.NumberFormat('en-IN', { style: 'currency', currency: 'INR', maximumFractionDigits: 2 });

function show(key: string, value: unknown): string {
  if (typeof value === 'number' && /amount|total|price|balance/i.test(key)) return inr.format(value);
  if (Array.isArray(value)) return `${value.length} item(s)`;
  if (value && typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const ID_FIELD = /(^id$|Id$|_id$)/;

/** A one-line summary of a call's arguments, without internal ids. */
export function summarizeArgs(args: Record<string, unknown>): string {
  const parts = Object.entries(args)
    .filter(([k, v]) => !ID_FIELD.test(k) && v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${k.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()}: ${show(k, v)}`);
  return parts.join(', ');
}

/** Tier 2: exactly what changes, before → after, for the fields the call sets. */
export function describeChanges(before: Record<string, unknown>, args: Record<string, unknown>): string[] {
  return Object.entries(args)
    .filter(([k]) => !ID_FIELD.test(k))
    .map(([k, after]) => `• ${k}: ${show(k, before[k] ?? '—')} → ${show(k, after)}`);
}

/** The question of the confirmation card for a tier (seed 000 §7.1). */
export function confirmationQuestion(
  tool: string,
  args: Record<string, unknown>,
  tier: number,
  changes: string[] | undefined,
): string {
  const what = describeTool(tool);
  const summary = summarizeArgs(args);
  if (tier === 3) {
    return `This will ${what}${summary ? ` (${summary})` : ''}. It cannot be undone. Type ${confirmWord(tool)} to confirm.`;
  }
  if (tier === 2 && changes && changes.length > 0) {
    return `Confirm: ${what} with these changes?\n${changes.join('\n')}`;
  }
  return `Confirm: ${what}${summary ? ` (${summary})` : ''}?`;
}

/** A plain "yes" in the conversation (seed 003 §5.3 rule 5); it may confirm a tier-1 action only. */
export const PLAIN_YES =
  /^\s*(yes|y|yeah|yep|ok(ay)?|sure|confirm(ed)?|go ahead|do it|haan( ji)?|han|ha|kar do|karo|theek( hai)?|thik( hai)?|sahi( hai)?)\s*[.!]*\s*$/i;
