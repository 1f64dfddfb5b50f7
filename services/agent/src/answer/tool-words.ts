import { parseToolName, singular, verbClass } from '@munim/contracts';

/** Words for tools and fields in what users read: questions, confirmations, fallbacks. */

/** Verbs whose words read better in a sentence than the name's own word. */
const VERB_WORDS: Readonly<Record<string, string>> = { writeoff: 'write off', lookup: 'look up' };

/** "create_payment", "createPayment", "payments.create" → "create the payment". */
export function describeTool(tool: string): string {
  const { verb, nouns, words } = parseToolName(tool);
  // A write whose name reads (its description or an annotation made it one) is not described as a read.
  if (!verb || verbClass(verb) === 'read') return `run ${words.join(' ') || tool}`;
  // One record is meant: `invoices.create` creates an invoice.
  const object = [...nouns.slice(0, -1), singular(nouns.at(-1) ?? '')].join(' ');
  return `${VERB_WORDS[verb] ?? verb} the ${object}`.trim();
}

/** The word a tier-3 action is confirmed with: VOID, DELETE, WRITE OFF… (CONFIRM when the name has no verb). */
export function confirmWord(tool: string): string {
  const { verb } = parseToolName(tool);
  return verb && verbClass(verb) !== 'read' ? (VERB_WORDS[verb] ?? verb).toUpperCase() : 'CONFIRM';
}
