import { parseToolName, singular, VERB_NOUNS, verbClass } from '@munim/contracts';
import {
  ASKING_HEADS,
  BEFORE_NEGATIONS,
  CLAUSE_BREAKS,
  CONCEPT_PAIRS,
  CONCEPTS,
  DETERMINERS,
  FILLERS,
  IMPLIED_OBJECTS,
  LIGHT_DONE,
  LIGHT_ORDER,
  LIGHT_VERB_NOUNS,
  MODALS,
  NATIVE_STEMS,
  NATIVE_VERBS,
  NEAR_NEGATIONS,
  NOT_OBJECTS,
  PAST_MARKERS,
  PRONOUNS,
  QUESTION_WORDS,
  REFERENCE_PREFIXES,
  RELATED,
  SELF,
  VERB_SYNONYMS,
} from './requested-words.ts';

/** A change the message orders: its verb (English, as the tool-name tables spell it) and the records it names. */
export interface Order {
  verb: string;
  /** The kinds of record its clause names (`invoice`, `customer`); empty when it names none. */
  objects: ReadonlySet<string>;
  /** The clause's other words, singular, for a tool noun no concept covers. */
  words: ReadonlySet<string>;
}

const DELETE = new Set([
  'delete',
  'remove',
  'erase',
  'purge',
  'destroy',
  'drop',
  'wipe',
  'discard',
  'unlink',
  'truncate',
]);
const CANCEL = new Set([
  'void',
  'cancel',
  'revert',
  'reverse',
  'unpost',
  'unapply',
  'unreconcile',
  'reject',
  'terminate',
  'close',
  'deactivate',
  'disable',
  'archive',
  'revoke',
  'decline',
  'suspend',
]);
const SEND = new Set([
  'send',
  'resend',
  'email',
  'notify',
  'share',
  'invite',
  'publish',
  'remind',
  'forward',
  'mail',
]);
const STEM_ORDER = new Set([
  'do',
  'dijiye',
  'dijie',
  'dena',
  'de',
  'dein',
  'den',
  'दो',
  'दीजिए',
  'दीजिये',
  'देना',
  'दें',
]);
const QUESTION = '?';
/** Words that open a verb's object: a verb-noun before one is a verb (`log it`, `book an expense`). */
const ARTICLES = new Set(['a', 'an', 'the', 'this', 'these', 'those', 'all', 'every', 'my', 'our']);
const TOOL_NAME = /\b[A-Za-z][A-Za-z0-9]*(?:(?:_+|[.-])[A-Za-z][A-Za-z0-9]*)+\b/g;
const GERUND_LEADS = new Set(['with', 'start', 'begin', 'continue', 'proceed', 'keep']);
const ASKED_SUBJECTS = new Set(['i', 'we', 'you', 'they', 'he', 'she']);

/**
 * What a write does, as a request must name it: deleting, cancelling (voiding, reversing,
 * archiving…), sending to someone, a destructive verb of its own (`approve`, `file`, `writeoff`),
 * or any other change.
 */
function family(verb: string): string {
  if (DELETE.has(verb)) return 'delete';
  if (CANCEL.has(verb)) return 'cancel';
  if (SEND.has(verb)) return 'send';
  return verbClass(verb) === 'destructive' ? verb : 'change';
}

/** What an ordered verb asks for: deleting covers the softer cancelling, sending and paying a change. */
function provides(verb: string): Set<string> {
  const f = family(verb);
  if (f === 'delete') return new Set(['delete', 'cancel']);
  if (f === 'send') return new Set(['send', 'change']);
  if (verb === 'pay' || f === 'settle') return new Set(['settle', 'change']);
  return new Set([f]);
}

/** The message in lower-case words, split into clauses at punctuation and at `and`, `aur`, `फिर`… */
function clauses(message: string): string[][] {
  const text = message
    .normalize('NFC')
    // A tool's own name typed by the user (`books__post_journal`, `invoices.create`) reads as its words.
    .replace(TOOL_NAME, (name) => parseToolName(name).words.join(' '))
    .replace(/\bget rid of\b/gi, 'remove')
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .toLowerCase()
    .replace(/[’‘`]/g, "'")
    .replace(/\bcan't\b/g, 'can not')
    .replace(/\bwon't\b/g, 'will not')
    .replace(/n't\b/g, ' not');
  const out: string[][] = [];
  const parts = text.split(/([.,;:!?।॥\n()[\]{}"|–—]+)/);
  for (let p = 0; p < parts.length; p += 2) {
    const part = parts[p] as string;
    let clause: string[] = [];
    // A hyphen joins a reference (`INV-0042`, `GSTR-3B`); between words (`create-invoice`) it splits.
    for (const [word] of part.matchAll(/[\p{L}\p{M}\p{N}]+(?:[-/]\p{N}[\p{L}\p{M}\p{N}]*)*/gu)) {
      if (CLAUSE_BREAKS.has(word)) {
        if (clause.length > 0) out.push(clause);
        clause = [];
      } else if (word === 'off' && (clause.at(-1) === 'write' || clause.at(-1) === 'sign')) {
        clause[clause.length - 1] = CONCEPT_PAIRS[`${clause.at(-1)} off`] as string;
      } else clause.push(word);
    }
    // A question mark stays with the clause it ends, as its last word.
    if (clause.length > 0 && parts[p + 1]?.includes('?')) clause.push(QUESTION);
    if (clause.length > 0) out.push(clause);
  }
  return out;
}

/** Where the clause's own words start, or -1 when it asks about the books rather than ordering. */
function headOf(words: readonly string[]): number {
  if (words.some((w) => QUESTION_WORDS.has(w))) return -1;
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const next = words[i + 1] ?? '';
    if (MODALS.has(w) && SELF.has(next)) return -1;
    if ((w === 'do' || w === 'does' || w === 'did') && ASKED_SUBJECTS.has(next)) return -1;
    if (ASKING_HEADS.has(w)) return -1;
    // "any invoices to send today?": a question about records, not an order phrased as one.
    if (words.at(-1) === QUESTION && (DETERMINERS.has(w) || w === 'there')) return -1;
    if (!FILLERS.has(w)) return i;
  }
  return words.length;
}

/** Whether a light verb at `at` orders (`kar do`, `करो`) rather than tells what was done (`kar diya`). */
function lightOrders(words: readonly string[], at: number): boolean {
  const w = words[at];
  if (w === undefined || !LIGHT_ORDER.has(w)) return false;
  const next = words[at + 1];
  return next === undefined || !LIGHT_DONE.has(next);
}

/** Whether the words after a verb at `at` say it happened already (`cancel hua`, `रद्द हो गया`). */
function done(words: readonly string[], at: number): boolean {
  const next = words[at + 1] ?? '';
  if (PAST_MARKERS.has(next)) return true;
  if ((next === 'ho' || next === 'हो') && PAST_MARKERS.has(words[at + 2] ?? '')) return true;
  return (next === 'kar' || next === 'कर') && LIGHT_DONE.has(words[at + 2] ?? '');
}

/** Whether a verb at `at` is denied: `mat`/`नहीं` near it, or `don't`, `na`… before it or its light verb. */
function negated(words: readonly string[], at: number, firstNegation: number): boolean {
  for (let i = Math.max(0, at - 3); i <= Math.min(words.length - 1, at + 3); i++)
    if (NEAR_NEGATIONS.has(words[i] as string)) return true;
  return firstNegation < at || BEFORE_NEGATIONS.has(words[at + 1] ?? '');
}

/** The verb of a gerund that continues an order (`go ahead with deleting`): `deleting` → `delete`. */
function gerund(words: readonly string[], at: number): string | undefined {
  const w = words[at] as string;
  if (!w.endsWith('ing') || !GERUND_LEADS.has(words[at - 1] ?? '')) return undefined;
  const stem = w.slice(0, -3);
  return [stem, `${stem}e`, stem.slice(0, -1)].find((v) => {
    const cls = verbClass(v);
    return cls !== undefined && cls !== 'read';
  });
}

/** The change verb a word at `at` orders, if it orders one. */
function orderedVerb(words: readonly string[], at: number, head: number): string | undefined {
  const w = words[at] as string;
  const next = words[at + 1] ?? '';
  const native =
    NATIVE_VERBS.get(w) ??
    (STEM_ORDER.has(next) ? NATIVE_STEMS.get(w) : undefined) ??
    (lightOrders(words, at + 1) ? LIGHT_VERB_NOUNS.get(w) : undefined);
  if (native !== undefined) return native;
  const verb = VERB_SYNONYMS[w] ?? gerund(words, at) ?? w;
  const cls = verbClass(verb);
  if (cls === undefined || cls === 'read' || done(words, at)) return undefined;
  // A verb that is also a noun of the books (`record`, `bill`, `pay`) orders only where a verb
  // stands: first in its clause, after `to`, or before a light verb (`record kar do`).
  if (DETERMINERS.has(words[at - 1] ?? '')) return undefined;
  if (VERB_NOUNS.has(verb) || verb === 'new') {
    const objectFollows = PRONOUNS.has(words[at + 1] ?? '') || ARTICLES.has(words[at + 1] ?? '');
    return at === head || words[at - 1] === 'to' || objectFollows || lightOrders(words, at + 1)
      ? verb
      : undefined;
  }
  return verb;
}

const IRREGULAR: Readonly<Record<string, string>> = { paid: 'pay', sent: 'send', void: 'void' };

/** The change `mark … as <state>` orders (`mark BILL-8 as approved` approves it), if any. */
function markedAs(words: readonly string[], at: number): string | undefined {
  const as = words.indexOf('as', at + 1);
  const state = as < 0 ? undefined : words[as + 1];
  if (state === undefined) return undefined;
  return [IRREGULAR[state], state.replace(/ed$/, ''), state.replace(/d$/, '')].find((v) => {
    const cls = v === undefined ? undefined : verbClass(v);
    return cls !== undefined && cls !== 'read';
  });
}

/** The kinds of record a list of words names: concepts, two-word ones, and reference numbers. */
function conceptsOf(words: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const pair = CONCEPT_PAIRS[`${w} ${words[i + 1] ?? ''}`];
    if (pair !== undefined && pair !== 'writeoff' && pair !== 'approve') {
      out.add(pair);
      i += 1;
      continue;
    }
    const concept = CONCEPTS.get(w) ?? CONCEPTS.get(singular(w));
    if (concept !== undefined) out.add(concept);
    const ref = /^([a-z]+)[-/]?\d/.exec(w)?.[1];
    const byRef = ref === undefined ? undefined : REFERENCE_PREFIXES[ref];
    if (byRef !== undefined) out.add(byRef);
  }
  return out;
}

/**
 * The changes a user's message orders, clause by clause: a verb in an ordering form (`delete`,
 * `can you void…`, `cancel kar do`, `हटाओ`), not negated (`don't`, `mat`, `नहीं`), not told as
 * done (`cancelled`, `cancel hua`), not a modifier (`paid invoices`, `the delete button`) and not
 * in a clause that asks about the books (`show…`, `how do I…`, `kitne…`).
 */
export function ordersIn(message: string): Order[] {
  const orders: Order[] = [];
  // The records of the nearest clause so far that names some, for `delete them`.
  let earlier = new Set<string>();
  for (const words of clauses(message)) {
    const named = conceptsOf(words);
    const before = earlier;
    if (named.size > 0) earlier = named;
    const head = headOf(words);
    if (head < 0) continue;
    const verbs: string[] = [];
    const found = words.findIndex((w) => BEFORE_NEGATIONS.has(w));
    const firstNegation = found < 0 ? words.length : found;
    for (let i = head; i < words.length; i++) {
      const verb = orderedVerb(words, i, head);
      if (verb === undefined || negated(words, i, firstNegation)) continue;
      verbs.push(verb);
      const state = verb === 'mark' ? markedAs(words, i) : undefined;
      if (state !== undefined) verbs.push(state);
    }
    if (verbs.length === 0) continue;
    const objects = new Set(named.size === 0 && words.some((w) => PRONOUNS.has(w)) ? before : named);
    for (const verb of verbs) {
      const implied = IMPLIED_OBJECTS[verb];
      if (implied !== undefined && objects.size > 0) objects.add(implied);
    }
    const clauseWords = new Set(words.map(singular));
    for (const verb of verbs) orders.push({ verb, objects, words: clauseWords });
  }
  return orders;
}

function namesObject(order: Order, concepts: ReadonlySet<string>, nouns: readonly string[]): boolean {
  if (order.objects.size === 0 || (concepts.size === 0 && nouns.length === 0)) return true;
  for (const c of concepts)
    if (order.objects.has(c) || (RELATED[c] ?? []).some((r) => order.objects.has(r))) return true;
  return nouns.some((n) => order.words.has(n));
}

/**
 * Whether the user's message asks for the write of `tool`: every change the tool's name makes
 * (`parseToolName`) is ordered by the message with a verb of its kind — a delete by a delete, a
 * void by a void or a delete, a send by a send, an approval by an approval, any other write by a
 * verb that creates or changes — in a clause naming the tool's record or none. A question that
 * only reads (`show paid invoices`, `summarise the attached statement`) orders nothing, so a
 * write proposed on its turn came from somewhere else: a tool's result, a file, the model.
 */
export function asksForChange(message: string, tool: string): boolean {
  const parts = parseToolName(tool);
  const words = parts.nouns.map((n) => n.toLowerCase());
  const concepts = conceptsOf(words);
  const nouns = words.map(singular).filter((w) => !NOT_OBJECTS.has(w) && conceptsOf([w]).size === 0);
  const orders = ordersIn(message).filter((o) => namesObject(o, concepts, nouns));
  const needed = parts.changes.filter((c) => c.place !== 'prefix').map((c) => family(c.word));
  if (needed.length === 0) return orders.length > 0;
  return needed.every((f) => orders.some((o) => provides(o.verb).has(f)));
}
