import { type CardDetail, isRecord, parseToolName, singular, type ToolDefinition } from '@munim/contracts';
import type { Formats } from '../render/locale.ts';
import type { Run } from '../run/run.ts';
import { toolStep } from '../tool-step/tool-step.ts';
import { amountAndDate, ownIdField } from './facts.ts';
import { type Facts, readFacts } from './fields.ts';
import {
  type Applied,
  applicationsOf,
  appliedIn,
  figuresOf,
  type Irreversible,
  irreversible,
  isPaymentTool,
} from './impact-figures.ts';
import { type Lookups, lookUp } from './lookup.ts';
import { refOf } from './refs.ts';
import { isParty, keyWords } from './words.ts';

/**
 * What else an irreversible action touches (void, delete, write-off; approve, file), gathered with
 * the books' own read tools before the card is shown: the payments and credit notes applied to the
 * record, the balance still due, the tax that reverses (or posts); for a contact, its open
 * documents. In words, never ids; where the books cannot tell, the card says so.
 */
export interface Impact {
  details: CardDetail[];
  /** One sentence for the card's question. */
  sentence: string;
}

/** Reads an impact may make beyond the card's own: each is a call to the books while the user waits. */
const MAX_READS = 2;
/** Open documents named one by one on a card; the rest are counted. */
const NAMED = 5;
const UNKNOWN = 'the books do not say';

type Step = Awaited<ReturnType<typeof toolStep>>;

/** One read for the card; a failure is a reason, not an error. */
async function read(run: Run, tool: string, args: Record<string, unknown>): Promise<unknown> {
  const step: Step | undefined = await toolStep(run, tool, args, { mayConfirm: false }).catch(
    () => undefined,
  );
  return step?.kind === 'executed' && step.success ? step.content : undefined;
}

/** The records of a list a read returned (the first list of records in it). */
function recordsIn(value: unknown, depth = 0): Record<string, unknown>[] | undefined {
  if (Array.isArray(value)) return value.filter(isRecord);
  if (!isRecord(value) || depth > 2) return undefined;
  let empty: Record<string, unknown>[] | undefined;
  for (const v of Object.values(value)) {
    const found = recordsIn(v, depth + 1);
    if (found && found.length > 0) return found;
    empty ??= found;
  }
  return empty;
}

/**
 * The records of a list filtered by `id`: a server that ignores the filter lists others too, so
 * where any record names the id, only those that do count.
 */
function naming(items: Record<string, unknown>[], id: string): Record<string, unknown>[] {
  const text = JSON.stringify(id).slice(1, -1);
  const named = items.filter((item) => JSON.stringify(item).includes(text));
  return named.length > 0 ? named : items;
}

/** The read tool's input field that takes `field`'s value, by meaning (`InvoiceId` ↔ `invoice_id`). */
function inputFor(tool: ToolDefinition, field: string, id: string): string | undefined {
  const props = isRecord(tool.inputSchema.properties) ? Object.keys(tool.inputSchema.properties) : [];
  const words = keyWords(field).join('_');
  const noun = refOf(field, id)?.noun ?? '';
  const required = Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required : [];
  const match = props.find((p) => {
    const own = keyWords(p).join('_');
    return own === words || (noun !== '' && own === `${noun}_id`);
  });
  return match && required.every((r) => r === match) ? match : undefined;
}

/** Read tools of the write's server about records whose nouns `wanted` accepts, that filter by `field`. */
async function filteredReaders(
  run: Run,
  tool: string,
  at: { field: string; id: string },
  wanted: (nouns: string[]) => boolean,
): Promise<{ tool: ToolDefinition; input: string }[]> {
  const registry = await run.ctx.tools.list(run.scope, run.traceparent);
  const server = registry.find((t) => t.name === tool)?.access?.server;
  return registry.flatMap((t) => {
    if (t.isWrite || t.access?.server !== server) return [];
    const nouns = parseToolName(t.name).nouns.map(singular);
    const input = wanted(nouns) ? inputFor(t, at.field, at.id) : undefined;
    return input ? [{ tool: t, input }] : [];
  });
}

const money = (fmt: Formats, amount: number, currency?: string) => fmt.money(amount, currency);

/** A payment or credit note in words: "PMT-0007 (₹2,000.00, dated 12/11/2026)". */
function appliedWords(items: Applied[], fmt: Formats, currency?: string): string {
  return items
    .map(({ kind, facts }) => {
      const extra = amountAndDate({ ...facts, ...(facts.currency ? {} : currency ? { currency } : {}) }, fmt);
      return `${facts.number ?? `a ${kind}`}${extra ? ` (${extra})` : ''}`;
    })
    .join('; ');
}

/** The payments and credit notes applied to the record: as it lists them, else by the books' reads filtered by its id. */
async function applied(
  run: Run,
  tool: string,
  field: string,
  id: string,
  record: Record<string, unknown>,
): Promise<Applied[] | undefined> {
  const listed = appliedIn(record);
  if (listed && listed.length > 0) return listed;
  // Lists of payments, not of the record's own kind (a receipt voided is not applied to itself).
  const own = parseToolName(tool).nouns.map(singular);
  const readers = await filteredReaders(run, tool, { field, id }, (n) =>
    n.some((w) => (w === 'payment' || w === 'receipt') && !own.includes(w)),
  );
  let found = listed;
  for (const { tool: reader, input } of readers.slice(0, MAX_READS)) {
    const list = recordsIn(await read(run, reader.name, { [input]: id }));
    if (list === undefined) continue;
    found ??= [];
    // Only payments that name the record (by its id or its number) are applied to it.
    const names = [id, readFacts(record).number].flatMap((n) => (n ? [JSON.stringify(n).slice(1, -1)] : []));
    for (const item of list)
      if (names.some((n) => JSON.stringify(item).includes(n)))
        found.push({ kind: 'payment', facts: readFacts(item, 'payment') });
    break;
  }
  return found;
}

/** The impact of an action on a document: payments and credit notes applied, balance, tax. */
async function documentImpact(
  run: Run,
  tool: string,
  kind: Irreversible,
  at: { field: string; id: string; record: Record<string, unknown>; minor?: boolean | undefined },
  fmt: Formats,
): Promise<CardDetail[]> {
  const figures = figuresOf(at.record, at.minor);
  const currency = readFacts(at.record).currency;
  // A payment touches the documents it is applied to: they are open again once it goes.
  if (isPaymentTool(tool)) {
    const applications = applicationsOf(at.record, at.minor);
    const value =
      applications === undefined
        ? UNKNOWN
        : applications.length === 0
          ? 'nothing'
          : applications
              .map(
                (f) =>
                  `${f.number ?? 'a document'}${f.amount !== undefined ? ` (${money(fmt, f.amount, currency)})` : ''}`,
              )
              .join('; ');
    return [{ label: 'Applied to', value }];
  }
  const items = await applied(run, tool, at.field, at.id, at.record);
  const payments = items?.filter((i) => i.kind === 'payment') ?? [];
  const credits = items?.filter((i) => i.kind === 'credit note') ?? [];
  const details: CardDetail[] = [];
  const paid =
    payments.length > 0
      ? appliedWords(payments, fmt, currency)
      : figures.paid !== undefined && figures.paid > 0
        ? `${money(fmt, figures.paid, currency)} paid (the books do not say by which payments)`
        : figures.paid === 0 || items !== undefined
          ? 'none'
          : UNKNOWN;
  details.push({ label: 'Payments applied', value: paid });
  const credited =
    credits.length > 0
      ? appliedWords(credits, fmt, currency)
      : figures.credited !== undefined && figures.credited > 0
        ? `${money(fmt, figures.credited, currency)} credited`
        : figures.credited === 0 || (items !== undefined && figures.paid !== undefined)
          ? 'none'
          : undefined;
  if (credited) details.push({ label: 'Credit notes applied', value: credited });
  details.push({
    label: 'Balance due',
    value: figures.due !== undefined ? money(fmt, figures.due, currency) : UNKNOWN,
  });
  const parts = figures.taxParts.map((p) => `${p.name} ${money(fmt, p.amount, currency)}`).join(', ');
  const tax =
    figures.tax !== undefined
      ? `${money(fmt, figures.tax, currency)}${parts ? ` (${parts})` : ''}`
      : parts || UNKNOWN;
  details.push({ label: kind === 'reverse' ? 'Tax that reverses' : 'Tax it posts', value: tax });
  return details;
}

/** A contact's open documents, read with the books' lists filtered by it. */
async function contactImpact(
  run: Run,
  tool: string,
  field: string,
  id: string,
  fmt: Formats,
): Promise<CardDetail[]> {
  const readers = await filteredReaders(run, tool, { field, id }, (n) =>
    n.some((w) => ['invoice', 'bill', 'order', 'estimate', 'quote', 'document', 'transaction'].includes(w)),
  );
  if (readers.length === 0)
    return [{ label: 'Open documents', value: `${UNKNOWN} (no list of its documents)` }];
  const open: Facts[] = [];
  let answered = false;
  for (const { tool: reader, input } of readers.slice(0, MAX_READS)) {
    const list = recordsIn(await read(run, reader.name, { [input]: id }));
    if (list === undefined) continue;
    answered = true;
    for (const item of naming(list, id)) {
      const due = figuresOf(item).due;
      if (due !== undefined && due > 0) open.push({ ...readFacts(item), amount: due });
    }
  }
  if (!answered) return [{ label: 'Open documents', value: UNKNOWN }];
  if (open.length === 0) return [{ label: 'Open documents', value: 'none' }];
  const named = open
    .slice(0, NAMED)
    .map((f) => `${f.number ?? 'a document'} (${money(fmt, f.amount ?? 0, f.currency)} due)`)
    .join('; ');
  const more = open.length > NAMED ? `, and ${open.length - NAMED} more` : '';
  return [{ label: 'Open documents', value: `${open.length}: ${named}${more}` }];
}

/** The field naming the record an action acts on: its own id, else the one id it carries. */
function targetField(tool: string, args: Record<string, unknown>): string | undefined {
  const own = ownIdField(tool, args);
  if (own) return own;
  const refs = Object.keys(args).filter((k) => !isRecord(args[k]) && refOf(k, args[k]) !== undefined);
  return refs.length === 1 ? refs[0] : undefined;
}

/** What an irreversible write touches besides its record; undefined for any other write. */
export async function impactOf(
  run: Run,
  tool: string,
  args: Record<string, unknown>,
  description?: string,
  /** What the card's own reads found (looked up again when not given). */
  lookups?: Lookups,
): Promise<Impact | undefined> {
  const kind = irreversible(tool, description);
  if (!kind) return undefined;
  const fmt = await run.formats();
  const field = targetField(tool, args);
  const id = field !== undefined ? String(args[field]) : undefined;
  let details: CardDetail[];
  if (field === undefined || id === undefined) {
    details = [
      { label: 'Affects', value: `${UNKNOWN} what else it touches (the call names none of its records)` },
    ];
  } else if (
    isParty(keyWords(parseToolName(tool).object)) ||
    isParty(keyWords(refOf(field, id)?.noun ?? ''))
  ) {
    details = await contactImpact(run, tool, field, id, fmt);
  } else {
    // The record as the card read it (those reads are reused, not made again).
    const looked = (lookups ?? (await lookUp(run, tool, { [field]: args[field] }))).get(id);
    details =
      looked && 'record' in looked
        ? await documentImpact(
            run,
            tool,
            kind,
            { field, id, record: looked.record, minor: looked.minor },
            fmt,
          )
        : [{ label: 'Affects', value: `${UNKNOWN}: the record could not be read` }];
  }
  const sentence = `It also touches: ${details.map((d) => `${d.label.toLowerCase()}: ${d.value}`).join('; ')}.`;
  return { details, sentence };
}

/** The card's question with what the action touches, said before what is asked of the person. */
export function withImpact(question: string, impact: Impact | undefined): string {
  if (!impact) return question;
  const at = question.search(/ It cannot be undone\.| Type [A-Z-]+ to confirm\./);
  return at >= 0
    ? `${question.slice(0, at)} ${impact.sentence}${question.slice(at)}`
    : `${question}\n${impact.sentence}`;
}
