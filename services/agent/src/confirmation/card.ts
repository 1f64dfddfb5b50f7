import {
  type CardChange,
  type CardDetail,
  type ConfirmationCard,
  isRecord,
  nameWords,
  parseToolName,
  singular,
} from '@munim/contracts';
import { confirmWord, describeTool } from '../answer/tool-words.ts';
import { type Formats, formatsFor } from '../render/locale.ts';
import {
  callCurrency,
  factsFor,
  idInWords,
  inMajorUnits,
  moneyObject,
  recordFacts,
  sent,
  valueInWords,
} from './call-values.ts';
import {
  amountAndDate,
  areLines,
  dateInWords,
  fieldWords,
  isPartyField,
  labelOf,
  ownIdField,
  partyRole,
  show,
} from './facts.ts';
import { amountRank, dateRank, readFacts } from './fields.ts';
import type { Lookups } from './lookup.ts';
import { refIn, refOf } from './refs.ts';
import { isNameShaped, isNumberShaped, isParty, keyWords } from './words.ts';

const UNREQUESTED = '⚠️ You did not ask for this change: it was proposed from something I read, not by you. ';
/** For the call's own amount, what is paid or applied is the headline, not a part of it. */
const PAID = new Set(['paid', 'applied', 'received']);
const isHeadlineAmount = (key: string, value: unknown) =>
  (typeof value === 'number' || moneyObject(key, value) !== undefined) &&
  amountRank(keyWords(key).filter((w) => !PAID.has(w))) !== undefined;
const isHeadlineDate = (key: string, value: unknown) =>
  typeof value === 'string' && typeof dateRank(keyWords(key)) === 'number';

const snake = (key: string) => nameWords(key).join('_');
const present = (v: unknown) => v !== undefined && v !== null && v !== '';

/** The key of `record` that is `key` in another naming style, if any. */
function sameKey(record: Record<string, unknown>, key: string): string | undefined {
  return key in record ? key : Object.keys(record).find((k) => snake(k) === snake(key));
}

/** The record a change acts on (its own id among the arguments), named from its read. */
function ownRecord(
  tool: string,
  own: string,
  args: Record<string, unknown>,
  lookups: Lookups,
  fmt: Formats,
): { subject: string; details: CardDetail[]; before?: Record<string, unknown>; record?: string } {
  // The tool's object as it reads (`sales order`), only its last word singular.
  const nouns = parseToolName(tool).nouns;
  const noun = refOf(own, args[own])?.noun || [...nouns.slice(0, -1), singular(nouns.at(-1) ?? '')].join('_');
  const looked = lookups.get(String(args[own]));
  const details: CardDetail[] = [];
  if (!looked || !('record' in looked)) {
    const reason = looked && 'failed' in looked ? looked.failed : 'no read tool of the books finds it';
    const value = sent(args[own]);
    const what = noun.replace(/_/g, ' ');
    details.push({
      label: fieldWords(noun),
      value: `${value ? `${value} ` : ''}(I could not find this ${what} in the books: ${reason})`,
    });
    const subject = `${value ? ` ${value}` : ''} (I could not find this ${what} in the books: ${reason}; check which one it is before you confirm)`;
    return { subject, details };
  }
  const facts = recordFacts(looked.record, lookups, noun, looked.minor);
  // Its number as the call names it, when the record read has none of its own.
  if (!facts.number && isNumberShaped(args[own])) facts.number = String(args[own]).trim();
  const record = labelOf(facts);
  const extra = amountAndDate(facts, fmt);
  const named = facts.number ?? facts.name;
  if (named) details.push({ label: fieldWords(noun), value: named });
  if (facts.party) details.push({ label: partyRole(own, tool, facts), value: facts.party });
  if (facts.amount !== undefined)
    details.push({ label: 'Amount', value: fmt.money(facts.amount, facts.currency) });
  if (facts.date) details.push({ label: 'Date', value: dateInWords(facts.date, fmt) });
  else if (facts.due) details.push({ label: 'Due', value: dateInWords(facts.due, fmt) });
  return {
    subject: `${record ? ` ${record}` : ''}${extra ? ` (${extra})` : ''}`,
    details,
    before: looked.record,
    ...(record ? { record } : {}),
  };
}

/** The call's other arguments in words: a new record's amount, party, date and references, an edit's changes. */
function otherArgs(
  tool: string,
  args: Record<string, unknown>,
  own: { field: string; before?: Record<string, unknown> | undefined } | undefined,
  lookups: Lookups,
  fmt: Formats,
) {
  const out = {
    details: [] as CardDetail[],
    rest: [] as CardDetail[],
    changes: [] as CardChange[],
    against: [] as string[],
    amount: undefined as string | undefined,
    party: undefined as string | undefined,
    dated: undefined as string | undefined,
    /** The record of the tool's own kind the call acts on, when its verb makes nothing (apply_credit_note's credit note). */
    subject: undefined as string | undefined,
    /** That record's name alone. */
    record: undefined as string | undefined,
  };
  const objectWord = singular(parseToolName(tool).nouns.at(-1) ?? '');
  const whole = Object.entries(args).find(([k, v]) => isHeadlineAmount(k, v))?.[1];
  for (const [key, value] of Object.entries(args)) {
    if (key === own?.field || !present(value)) continue;
    let detail: CardDetail;
    const ref = Array.isArray(value) ? undefined : refOf(key, value);
    if (ref) {
      const facts = factsFor(lookups, ref.value, ref.noun);
      const party = isPartyField(key) || isParty(keyWords(ref.noun));
      detail = {
        label: party ? partyRole(key, tool, facts) : fieldWords(ref.noun || key),
        value: idInWords(lookups, ref.value, ref.noun),
      };
      if (party && facts && !own) {
        out.party = detail.value;
        out.details.push(detail);
        continue;
      }
      // A document the call applies to (a payment's invoice): named with its party, amount and date.
      const document = facts && !party && (facts.number !== undefined || facts.amount !== undefined);
      if (document && !own) {
        out.party ??= facts.party;
        const extra = amountAndDate(facts, fmt);
        if (out.subject === undefined && ref.noun.split('_').at(-1) === objectWord) {
          out.record = detail.value;
          out.subject = `${detail.value}${extra ? ` (${extra})` : ''}`;
          out.details.push({ label: fieldWords(ref.noun), value: out.subject });
          continue;
        }
        const name = facts.number && facts.party === out.party ? facts.number : detail.value;
        const named = `${refWords(ref.noun)}${name}${extra ? ` (${extra})` : ''}`;
        out.against.push(named);
        out.details.push({ label: 'Against', value: named });
        continue;
      }
    } else if (!own && out.party === undefined && isPartyName(key, value)) {
      out.party = String(value).trim();
      out.details.push({ label: partyRole(key, tool), value: out.party });
      continue;
    } else if (Array.isArray(value) && value.length > 0 && value.every(isRecord) && !areLines(value)) {
      const refs = value.flatMap((item) => {
        const found = refIn(item);
        if (!found) return [];
        const facts = factsFor(lookups, found.value, found.noun);
        out.party ??= facts?.party;
        const money = Object.entries(item).find(([f, v]) => typeof v === 'number' && /amount/i.test(f));
        // Its party is the card's already: the number alone names it.
        const name =
          facts?.number && facts.party === out.party
            ? facts.number
            : idInWords(lookups, found.value, found.noun);
        // All of the call's amount against one record goes without saying.
        const all = value.length === 1 && money?.[1] === whole;
        return [
          `${refWords(found.noun)}${name}${money && !all ? ` (${show(money[0], money[1], fmt)})` : ''}`,
        ];
      });
      detail = { label: fieldWords(key), value: refs.length > 0 ? refs.join(', ') : show(key, value, fmt) };
      if (refs.length > 0 && !own) {
        out.against.push(...refs);
        out.details.push({ label: 'Against', value: detail.value });
        continue;
      }
    } else {
      detail = { label: fieldWords(key), value: valueInWords(key, value, fmt) };
      if (!own && out.amount === undefined && isHeadlineAmount(key, value)) {
        out.amount = detail.value;
        out.details.push({ label: 'Amount', value: detail.value });
        continue;
      }
      if (!own && out.dated === undefined && isHeadlineDate(key, value)) {
        out.dated = detail.value;
        out.details.push({ label: 'Date', value: detail.value });
        continue;
      }
    }
    const change = own ? changeOf(tool, key, value, detail, own.before, lookups, fmt) : undefined;
    if (change === null) continue;
    if (change) out.changes.push(change);
    else out.rest.push(detail);
  }
  return out;
}

/** "invoice " before a document's name; nothing for a bare id. */
const refWords = (noun: string) => (noun ? `${noun.replace(/_/g, ' ')} ` : '');

/** Whether an argument names the party by name (`customer_name: "Acme Corp"`, `Customer: "Acme Corp"`). */
function isPartyName(key: string, value: unknown): boolean {
  const words = keyWords(key);
  return isParty(words) && isNameShaped(value) && readFacts({ [key]: value }).party !== undefined;
}

/**
 * One field an edit sets, as it is now and as it will be: null when it stays as it is, undefined
 * when it is no field of the record (a plain value, like the address an invoice is sent to).
 */
function changeOf(
  tool: string,
  key: string,
  value: unknown,
  detail: CardDetail,
  before: Record<string, unknown> | undefined,
  lookups: Lookups,
  fmt: Formats,
): CardChange | null | undefined {
  if (!before)
    return parseToolName(tool).verbClass === 'edit'
      ? { field: detail.label, after: detail.value }
      : undefined;
  const current = sameKey(before, key);
  if (current === undefined) return undefined;
  const now = before[current];
  if (JSON.stringify(now) === JSON.stringify(value)) return null;
  const ref = Array.isArray(now) ? undefined : refOf(key, now);
  const was = !present(now)
    ? '—'
    : ref
      ? idInWords(lookups, ref.value, ref.noun)
      : valueInWords(key, now, fmt);
  return { field: detail.label, before: was, after: detail.value };
}

/**
 * The confirmation card of a write: the record it acts on and its party named in words (invoice
 * number, customer or vendor, amount, date, as the business writes them), an edit's changes
 * before → after, and never an id — what no read could name is said to be so.
 */
export function confirmationCard(
  tool: string,
  called: Record<string, unknown>,
  tier: number,
  opts: {
    lookups?: Lookups;
    unrequested?: boolean;
    formats?: Formats;
    /** The warning that the change likely repeats a record of the books. */
    duplicate?: string | undefined;
    /** Fields whose amounts the server's schema says are in the currency's smallest unit (cents). */
    minorUnits?: ReadonlySet<string>;
  } = {},
): ConfirmationCard {
  const lookups = opts.lookups ?? new Map();
  const business = opts.formats ?? formatsFor();
  const currency = callCurrency(called, lookups);
  const fmt: Formats = currency
    ? { ...business, money: (value, code) => business.money(value, code ?? currency) }
    : business;
  const args = inMajorUnits(called, opts.minorUnits, currency ?? business.business.currency);
  const action = describeTool(tool);
  const field = ownIdField(tool, args);
  const own = field ? { field, ...ownRecord(tool, field, args, lookups, fmt) } : undefined;
  const { details, rest, changes, against, amount, party, dated, subject, record } = otherArgs(
    tool,
    args,
    own,
    lookups,
    fmt,
  );
  const sentence = own
    ? `${action}${own.subject}`
    : subject
      ? [
          `${action} ${subject}`,
          ...(against.length > 0 ? [`against ${against.join(', ')}`] : []),
          ...(amount ? [`for ${amount}`] : []),
          ...(dated ? [`dated ${dated}`] : []),
        ].join(', ')
      : [
          `${action}${amount ? ` of ${amount}` : ''}${party ? ` for ${party}` : ''}`,
          ...(dated ? [`dated ${dated}`] : []),
          ...(against.length > 0 ? [`against ${against.join(', ')}`] : []),
        ].join(', ');
  const paren =
    rest.length > 0 ? ` (${rest.map((d) => `${d.label.toLowerCase()}: ${d.value}`).join(', ')})` : '';
  const bullets = [
    ...changes.map(
      (c) => `• ${c.field}: ${c.before !== undefined ? `${c.before} → ${c.after}` : `set to ${c.after}`}`,
    ),
    ...rest.map((d) => `• ${d.label}: ${d.value}`),
  ].join('\n');
  const warning = `${opts.unrequested ? UNREQUESTED : ''}${opts.duplicate ?? ''}`;
  let question: string;
  if (tier === 3) {
    const body = changes.length > 0 ? `${sentence}, changing:\n${bullets}\n` : `${sentence}${paren}. `;
    question = `${warning}This will ${body}It cannot be undone. Type ${confirmWord(tool)} to confirm.`;
  } else if (changes.length > 0) {
    question = `${warning}Confirm: ${sentence} with these changes?\n${bullets}`;
  } else {
    question = `${warning}Confirm: ${sentence}${paren}?`;
  }
  return {
    question,
    ...(own?.record ? { record: own.record } : record ? { record } : {}),
    details: [{ label: 'Action', value: action }, ...(own?.details ?? []), ...details, ...rest],
    changes,
  };
}
