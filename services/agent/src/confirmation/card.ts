import { nameWords, parseToolName } from '@munim/contracts';
import { confirmWord, describeTool } from '../confirm.ts';
import { type Formats, formatsFor } from '../render/locale.ts';
import { isRecord } from '../util.ts';
import {
  amountAndDate,
  areLines,
  factsOf,
  fieldWords,
  ID_FIELD,
  idNoun,
  isPartyField,
  labelOf,
  linesInWords,
  ownIdField,
  partyRole,
  type RecordFacts,
  show,
} from './facts.ts';
import type { Lookups } from './lookup.ts';

/** One fact of a confirmation card, in words. */
export interface Detail {
  label: string;
  value: string;
}

/** A field a change sets: as it is now (when it could be read) and as it will be. */
export interface Change {
  field: string;
  before?: string;
  after: string;
}

/** A confirmation put to the user (seed 000 §7): its question and the facts the console shows. */
export interface Card {
  question: string;
  /** The record the change acts on, in words. */
  record?: string;
  details: Detail[];
  changes: Change[];
}

const UNREQUESTED = '⚠️ You did not ask for this change: it was proposed from something I read, not by you. ';
const HEADLINE_AMOUNT = /^(amount|total|total_amount|payment_amount|amount_paid)$/;
const HEADLINE_DATE = /^((invoice|bill|payment|transaction|txn|issue|entry|journal)_)?date$/;

const snake = (key: string) => nameWords(key).join('_');
const present = (v: unknown) => v !== undefined && v !== null && v !== '';

/** The facts of the record an id names, when a read named it. */
function factsFor(lookups: Lookups, id: unknown): RecordFacts | undefined {
  const looked = typeof id === 'string' ? lookups.get(id) : undefined;
  return looked && 'record' in looked ? factsOf(looked.record) : undefined;
}

/** What the card says of an id: the record's name, or plainly that it could not be read. */
function idInWords(lookups: Lookups, id: unknown): string {
  const facts = factsFor(lookups, id);
  const label = facts ? labelOf(facts) : undefined;
  if (label) return label;
  const looked = typeof id === 'string' ? lookups.get(id) : undefined;
  return looked && 'failed' in looked ? `could not be looked up (${looked.failed})` : 'not looked up';
}

/** The key of `record` that is `key` in another naming style, if any. */
function sameKey(record: Record<string, unknown>, key: string): string | undefined {
  return key in record ? key : Object.keys(record).find((k) => snake(k) === snake(key));
}

function valueInWords(key: string, value: unknown, fmt: Formats): string {
  if (Array.isArray(value) && value.every(isRecord) && areLines(value)) return linesInWords(value, fmt);
  return show(key, value, fmt);
}

/** The record a change acts on (its own id among the arguments), named from its read. */
function ownRecord(
  tool: string,
  own: string,
  args: Record<string, unknown>,
  lookups: Lookups,
  fmt: Formats,
): { subject: string; details: Detail[]; before?: Record<string, unknown>; record?: string } {
  const noun = idNoun(own) || parseToolName(tool).object;
  const looked = lookups.get(String(args[own]));
  const details: Detail[] = [];
  if (!looked || !('record' in looked)) {
    const reason = looked && 'failed' in looked ? looked.failed : 'no read tool of the books finds it';
    details.push({ label: fieldWords(noun), value: `could not be looked up (${reason})` });
    const subject = ` (I could not look this ${noun.replace(/_/g, ' ')} up: ${reason}; check which one it is before you confirm)`;
    return { subject, details };
  }
  const facts = factsOf(looked.record);
  const record = labelOf(facts);
  const extra = amountAndDate(facts, fmt);
  const named = facts.number ?? facts.name;
  if (named) details.push({ label: fieldWords(noun), value: named });
  if (facts.party) details.push({ label: partyRole(own, tool, facts), value: facts.party });
  if (facts.amount !== undefined)
    details.push({ label: 'Amount', value: fmt.money(facts.amount, facts.currency) });
  const date = facts.date ? fmt.date(facts.date) : undefined;
  if (date) details.push({ label: 'Date', value: date });
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
    details: [] as Detail[],
    rest: [] as Detail[],
    changes: [] as Change[],
    against: [] as string[],
    amount: undefined as string | undefined,
    party: undefined as string | undefined,
    dated: undefined as string | undefined,
  };
  const whole = Object.entries(args).find(
    ([k, v]) => typeof v === 'number' && HEADLINE_AMOUNT.test(snake(k)),
  )?.[1];
  for (const [key, value] of Object.entries(args)) {
    if (key === own?.field || !present(value)) continue;
    let detail: Detail;
    if (ID_FIELD.test(key) && typeof value === 'string') {
      const facts = factsFor(lookups, value);
      const party = isPartyField(key);
      detail = {
        label: party ? partyRole(key, tool, facts) : fieldWords(idNoun(key)),
        value: idInWords(lookups, value),
      };
      if (party && facts && !own) {
        out.party = detail.value;
        out.details.push(detail);
        continue;
      }
    } else if (Array.isArray(value) && value.length > 0 && value.every(isRecord) && !areLines(value)) {
      const refs = value.flatMap((item) => {
        const idKey = Object.keys(item).find((f) => ID_FIELD.test(f) && typeof item[f] === 'string');
        if (!idKey) return [];
        const facts = factsFor(lookups, item[idKey]);
        out.party ??= facts?.party;
        const money = Object.entries(item).find(([f, v]) => typeof v === 'number' && /amount/i.test(f));
        // Its party is the card's already: the number alone names it.
        const name =
          facts?.number && facts.party === out.party ? facts.number : idInWords(lookups, item[idKey]);
        // All of the call's amount against one record goes without saying.
        const all = value.length === 1 && money?.[1] === whole;
        return [
          `${idNoun(idKey).replace(/_/g, ' ')} ${name}${money && !all ? ` (${show(money[0], money[1], fmt)})` : ''}`,
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
      if (!own && out.amount === undefined && typeof value === 'number' && HEADLINE_AMOUNT.test(snake(key))) {
        out.amount = detail.value;
        out.details.push({ label: 'Amount', value: detail.value });
        continue;
      }
      if (!own && out.dated === undefined && typeof value === 'string' && HEADLINE_DATE.test(snake(key))) {
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

/**
 * One field an edit sets, as it is now and as it will be: null when it stays as it is, undefined
 * when it is no field of the record (a plain value, like the address an invoice is sent to).
 */
function changeOf(
  tool: string,
  key: string,
  value: unknown,
  detail: Detail,
  before: Record<string, unknown> | undefined,
  lookups: Lookups,
  fmt: Formats,
): Change | null | undefined {
  if (!before)
    return parseToolName(tool).verbClass === 'edit'
      ? { field: detail.label, after: detail.value }
      : undefined;
  const current = sameKey(before, key);
  if (current === undefined) return undefined;
  const now = before[current];
  if (JSON.stringify(now) === JSON.stringify(value)) return null;
  const was = !present(now)
    ? '—'
    : ID_FIELD.test(key)
      ? idInWords(lookups, now)
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
  args: Record<string, unknown>,
  tier: number,
  opts: { lookups?: Lookups; unrequested?: boolean; formats?: Formats } = {},
): Card {
  const fmt = opts.formats ?? formatsFor();
  const lookups = opts.lookups ?? new Map();
  const action = describeTool(tool);
  const field = ownIdField(tool, args);
  const own = field ? { field, ...ownRecord(tool, field, args, lookups, fmt) } : undefined;
  const { details, rest, changes, against, amount, party, dated } = otherArgs(tool, args, own, lookups, fmt);
  const sentence = own
    ? `${action}${own.subject}`
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
  const warning = opts.unrequested ? UNREQUESTED : '';
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
    ...(own?.record ? { record: own.record } : {}),
    details: [{ label: 'Action', value: action }, ...(own?.details ?? []), ...details, ...rest],
    changes,
  };
}
