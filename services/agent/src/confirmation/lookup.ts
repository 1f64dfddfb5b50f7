import { isRecord, parseToolName, singular, type ToolDefinition } from '@munim/contracts';
import { groupsOfToolName } from '@munim/kit';
import type { Run } from '../run/run.ts';
import { toolStep } from '../tool-step/tool-step.ts';
import { areLines, ownIdField, plainReason } from './facts.ts';
import { readFacts } from './fields.ts';
import { kindBeside, partyRefOf, type Ref, refOf } from './refs.ts';
import { isNameShaped, isNumberShaped, isParty, keyWords } from './words.ts';

/**
 * What is known of one id of a call: the record a read gave, why none could be read, or that it
 * was not read (the confirmation's reads were spent on the records it is about).
 */
export type Looked = Found | { failed: string } | { unread: true };
/** A record found, and whether its amounts are in the currency's smallest unit (cents). */
type Found = { record: Record<string, unknown>; minor?: boolean };
/** The ids of a call, by value as text, each looked up. */
export type Lookups = Map<string, Looked>;

/** Reads a confirmation may make: each is a call to the books while the user waits. */
const MAX_READS = 6;
const MAX_IDS = 8;
const NO_READER = 'no read tool of the books finds it';
interface IdRef extends Ref {
  /** The record the change acts on. */
  own: boolean;
}

/** The records a call points at: the one it acts on first, then those its lists apply to, then the rest. */
function idRefs(tool: string, args: Record<string, unknown>): IdRef[] {
  const own = ownIdField(tool, args);
  const refs: IdRef[] = [];
  const add = (item: Record<string, unknown>, key: string, isOwn: boolean) => {
    const ref = refOf(key, item[key]);
    if (ref) refs.push({ ...kindBeside(item, ref), own: isOwn });
  };
  if (own) add(args, own, true);
  const lists = (value: unknown, depth: number) => {
    // Line items point at ledger accounts and products, not at the records the change is about.
    if (depth > 2 || !Array.isArray(value) || !value.every(isRecord) || areLines(value)) return;
    for (const item of value)
      for (const [k, v] of Object.entries(item)) {
        if (Array.isArray(v)) lists(v, depth + 1);
        else add(item, k, false);
      }
  };
  for (const value of Object.values(args)) lists(value, 0);
  for (const k of Object.keys(args)) if (k !== own) add(args, k, false);
  const seen = new Set<string>();
  return refs.filter((r) => !seen.has(r.value) && seen.add(r.value)).slice(0, MAX_IDS);
}

/** Each object (four levels deep at most) of `value`, depth first. */
function* objects(value: unknown, depth = 0): Generator<Record<string, unknown>> {
  for (const [o] of placed(value, [], depth)) yield o;
}

/** Each object of `value` with the words of the key it sits under (`Invoices`, `CustomerRef`). */
function* placed(value: unknown, under: string[], depth = 0): Generator<[Record<string, unknown>, string[]]> {
  if (depth > 4 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const child of value) yield* placed(child, under, depth + 1);
    return;
  }
  const o = value as Record<string, unknown>;
  yield [o, under];
  for (const [k, child] of Object.entries(o)) yield* placed(child, keyWords(k), depth + 1);
}

/** Keys that hold records without saying of which kind. */
const GENERIC_KEYS = new Set([
  'data',
  'result',
  'item',
  'record',
  'row',
  'query',
  'response',
  'value',
  'content',
  'list',
  'ref',
]);

const same = (v: unknown, id: string) =>
  (typeof v === 'string' || typeof v === 'number') &&
  String(v).trim().toLowerCase() === id.trim().toLowerCase();

/**
 * The fields that name a record itself, not another it points at: a bare `id`, the id of the kind
 * of record its list holds (`InvoiceID` under `Invoices`), else its first id that is not a party's;
 * its numbers (`InvoiceNumber`, `DocNumber`) but a number of a party or of another record it points
 * at; a `value` in a small reference object. An invoice that names its customer by `ContactID` is
 * not the customer.
 */
function ownKeys(o: Record<string, unknown>, under: string[]): string[] {
  const refs = Object.keys(o).flatMap((k) => {
    const ref = typeof o[k] === 'string' || typeof o[k] === 'number' ? refOf(k, o[k]) : undefined;
    return ref ? [{ k, noun: ref.noun, id: keyWords(k).at(-1) === 'id' }] : [];
  });
  const container = under
    .filter((w) => !GENERIC_KEYS.has(w))
    .map(singular)
    .join('_');
  const ids = refs.filter((r) => r.id);
  const mine =
    ids.find((r) => r.noun === '') ??
    ids.find((r) => container !== '' && (sameNoun(r.noun, container) || relates(container, r.noun))) ??
    ids.find((r) => !isParty(keyWords(r.noun))) ??
    ids[0];
  const others = new Set(ids.filter((r) => r !== mine).map((r) => r.noun));
  const numbers = refs.filter((r) => !r.id && !others.has(r.noun) && !isParty(keyWords(r.noun)));
  const small = Object.keys(o).length <= 3 && 'value' in o ? ['value'] : [];
  return [...(mine ? [mine.k] : []), ...numbers.map((r) => r.k), ...small];
}

/**
 * The record whose own id (or number) is `ref`'s, in what `tool` returned. A small number is an id
 * in many tables: a record known by a bare `id` of 7 is the one sought only where the key it sits
 * under (or else the read tool) is about that kind of record.
 */
function recordOf(value: unknown, ref: Ref, tool: string): Record<string, unknown> | undefined {
  const id = ref.value;
  const ambiguous = /^\d+$/.test(id) && ref.noun !== '';
  for (const [o, under] of placed(value, [])) {
    const keys = ownKeys(o, under).filter((k) => same(o[k], id));
    if (keys.length > 0) {
      const bare = keys.every((k) => k === 'value' || refOf(k, o[k])?.noun === '');
      if (!ambiguous || !bare) return o;
      const kind = under.filter((w) => !GENERIC_KEYS.has(w));
      if (kind.length > 0 ? relates(kind.join('_'), ref.noun) : about(tool, ref.noun)) return o;
      continue;
    }
    // A document known by its number-shaped name (Odoo's `name: "INV/2024/0042"`).
    const named = isNumberShaped(id) && Object.values(o).some((v) => same(v, id));
    if (named && readFacts(o).number === id.trim()) return o;
  }
  return undefined;
}

const sameNoun = (a: string, b: string) =>
  a === b || (a !== '' && b !== '' && (a.endsWith(`_${b}`) || b.endsWith(`_${a}`)));

/**
 * A name a record gives beside the id it refers to: `ContactName` next to `ContactID`, the name of
 * Odoo's `partner_id: [7, "Acme"]`.
 */
function nameBeside(value: unknown, ref: Ref): Record<string, unknown> | undefined {
  for (const o of objects(value)) {
    for (const [key, v] of Object.entries(o)) {
      const pairNoun = keyWords(key)
        .filter((w) => w !== 'id')
        .join('_');
      if (
        Array.isArray(v) &&
        v.length === 2 &&
        same(v[0], ref.value) &&
        isNameShaped(v[1]) &&
        sameNoun(pairNoun, ref.noun)
      )
        return { Name: v[1] };
      const theirs = same(v, ref.value) ? refOf(key, v) : undefined;
      if (!theirs || theirs.noun === '') continue;
      const prefix = theirs.noun.split('_');
      const beside: Record<string, unknown> = {};
      for (const [k, w] of Object.entries(o)) {
        const words = keyWords(k);
        if (k !== key && prefix.every((p, i) => words[i] === p))
          beside[words.slice(prefix.length).join('_')] = w;
      }
      const facts = readFacts(beside);
      const name = facts.name ?? facts.number;
      if (name) return { Name: name };
    }
  }
  return undefined;
}

/** Whether a tool is about records of the kind `noun` names (`list_contacts` and a customer). */
export function about(tool: string, noun: string): boolean {
  return relates(tool, noun, parseToolName(tool).nouns.map(singular));
}

/** Whether a name (`customer_ref`, `list_contacts`) is about records of the kind `noun` names. */
function relates(name: string, noun: string, words = keyWords(name)): boolean {
  const last = noun.split('_').at(-1) ?? noun;
  const groups = new Set(groupsOfToolName(last));
  return groupsOfToolName(name).some((g) => groups.has(g)) || words.includes(last);
}

/** Read tools that may name the record a ref points at: a read by that id first, then lists. */
function readersFor(ref: Ref, ownNoun: string, readers: ToolDefinition[]) {
  const noun = ref.noun || ownNoun;
  const related = (t: ToolDefinition) => about(t.name, noun);
  const required = (t: ToolDefinition) =>
    Array.isArray(t.inputSchema.required) ? (t.inputSchema.required as unknown[]) : [];
  const spelled = keyWords(ref.field).join('_');
  // An id may go to the reader's own id field of the kind (`invoice_id` for a `value` of `InvoiceRef`); a number only to a number field.
  const isId = ['id', 'value'].includes(keyWords(ref.field).at(-1) ?? '');
  const byIdWords = !isId ? spelled : noun === '' ? 'id' : `${noun}_id`;
  // The reader's own spelling of the field: `invoice_id` for the call's `InvoiceID`.
  const input = (t: ToolDefinition) =>
    isRecord(t.inputSchema.properties)
      ? Object.keys(t.inputSchema.properties).find((p) => {
          const words = keyWords(p).join('_');
          return words === spelled || words === byIdWords;
        })
      : undefined;
  const mine = readers.filter(related);
  const byId = mine.flatMap((t) => {
    const field = input(t);
    return field && required(t).every((f) => f === field) ? [{ tool: t, field }] : [];
  });
  byId.sort(
    (a, b) => Number(!required(a.tool).includes(a.field)) - Number(!required(b.tool).includes(b.field)),
  );
  const lists = mine
    .filter((t) => !input(t) && required(t).length === 0)
    .map((tool) => ({ tool, field: undefined }));
  // A search that needs words: given what a person would search by (a number, a name), never an opaque id.
  const searches = isNumberShaped(ref.value)
    ? mine.flatMap((t) => {
        const field = searchField(t, required(t));
        return field && !input(t) && required(t).length > 0 ? [{ tool: t, field }] : [];
      })
    : [];
  return [
    ...byId.slice(0, 1).map((r) => ({ ...r, exact: true })),
    ...[...lists, ...searches].slice(0, 2).map((r) => ({ ...r, exact: false })),
  ];
}

/** Words a search tool's query field is named by. */
export const SEARCH = new Set(['query', 'q', 'search', 'term', 'keyword', 'text']);

/** The one string field a search tool requires, when it is a query (`query`, `search_term`, `q`). */
export function searchField(t: ToolDefinition, required: unknown[]): string | undefined {
  const [field, ...more] = required;
  const props = t.inputSchema.properties;
  if (typeof field !== 'string' || more.length > 0 || !isRecord(props) || !isRecord(props[field]))
    return undefined;
  return props[field].type === 'string' && SEARCH.has(keyWords(field).at(-1) ?? '') ? field : undefined;
}

/** The id as the reader's schema types it: Odoo's ids are numbers. */
export function typed(tool: ToolDefinition, field: string, value: string): unknown {
  const props = tool.inputSchema.properties;
  const type = isRecord(props) && isRecord(props[field]) ? props[field].type : undefined;
  return (type === 'integer' || type === 'number') && /^\d+$/.test(value) ? Number(value) : value;
}

type Step = Awaited<ReturnType<typeof toolStep>>;

/** Finds what one ref names: in what the request read, else by a read tool of the write's server. */
async function finder(run: Run, tool: string): Promise<(ref: IdRef) => Promise<Looked>> {
  const read = () => run.toolResults.filter((r) => r.success).map((r) => r.result);
  const beside = (ref: IdRef): Found | undefined => {
    const record = nameBeside(read(), ref);
    return record ? { record } : undefined;
  };
  const registry = await run.ctx.tools.list(run.scope, run.traceparent);
  const minorOf = (name: string) => inMinorUnits(registry.find((t) => t.name === name)?.description);
  const known = (ref: IdRef): Found | undefined => {
    for (const r of run.toolResults) {
      const record = r.success ? recordOf(r.result, ref, r.tool) : undefined;
      if (record) return { record, ...(minorOf(r.tool) ? { minor: true } : {}) };
    }
    return undefined;
  };
  // Another server's books do not hold this one's records.
  const server = registry.find((t) => t.name === tool)?.access?.server;
  const readers = registry.filter((t) => !t.isWrite && t.access?.server === server);
  const ownNoun = parseToolName(tool).object;
  const cache = new Map<string, Step>();
  let reads = 0;
  /** Reads `ref` with the first of `candidates` that names it; why none did otherwise. */
  const readWith = async (
    ref: IdRef,
    candidates: ReturnType<typeof readersFor>,
  ): Promise<
    | { record: Record<string, unknown>; minor: boolean }
    | { record?: undefined; failed: string; spent: boolean }
  > => {
    let failed = NO_READER;
    for (const { tool: reader, field, exact } of candidates) {
      const key = `${reader.name}:${field ? ref.value : ''}`;
      let step = cache.get(key);
      if (!step) {
        if (reads >= MAX_READS) return { failed, spent: true };
        reads += 1;
        step = await readOnce(run, reader.name, field ? { [field]: typed(reader, field, ref.value) } : {});
        cache.set(key, step);
      }
      if (step.kind === 'blocked') {
        failed = plainReason(step.validation.message);
        continue;
      }
      if (step.kind !== 'executed') continue;
      if (!step.success) {
        failed = plainReason(step.error ?? 'the read failed');
        // The books answered a read by this very id: a list would not know better.
        if (exact) break;
        continue;
      }
      const record = recordOf(step.content, ref, reader.name) ?? nameBeside(step.content, ref);
      if (record) return { record, minor: inMinorUnits(reader.description) };
      failed = 'the books have no such record';
    }
    return { failed, spent: false };
  };
  return async (ref) => {
    const candidates = readersFor(ref, ref.own ? ownNoun : '', readers);
    const looked = known(ref) ?? (ref.own ? undefined : beside(ref));
    if (looked) {
      // A list's summary of the record acted on may lack what the card states: a read by its id completes it.
      const facts = readFacts(looked.record, ownNoun);
      const whole =
        !ref.own || (facts.party !== undefined && facts.amount !== undefined) || partyRefOf(looked.record);
      const exact = whole ? [] : candidates.filter((c) => c.exact);
      const fuller = exact.length > 0 ? await readWith(ref, exact) : undefined;
      if (!fuller?.record) return looked;
      return { record: { ...looked.record, ...fuller.record }, ...(fuller.minor ? { minor: true } : {}) };
    }
    const found = await readWith(ref, candidates);
    if (found.record) return { record: found.record, ...(found.minor ? { minor: true } : {}) };
    return found.spent && found.failed === NO_READER ? { unread: true } : { failed: found.failed };
  };
}

/**
 * Looks up the records a write points at so its confirmation can name them. What this request has
 * read already comes first (a model looks records up before it changes them); what it has not is
 * read by a read tool the registry offers for it, on the write's own server, through the validator
 * and executor like any call (never a write). A record that names its party by id only has its
 * party looked up too. What no read names is kept with the reason, so the card says so instead of
 * showing the id.
 */
export async function lookUp(run: Run, tool: string, args: Record<string, unknown>): Promise<Lookups> {
  const lookups: Lookups = new Map();
  const refs = idRefs(tool, args);
  if (refs.length === 0) return lookups;
  const find = await finder(run, tool);
  for (const ref of refs) lookups.set(ref.value, await find(ref));
  // What an edit replaces is named by the record itself: its `ContactName` beside its `ContactId`.
  const own = refs.find((r) => r.own);
  const current = own ? lookups.get(own.value) : undefined;
  if (current && 'record' in current) {
    for (const [key, now] of Object.entries(current.record)) {
      const ref = key in args ? refOf(key, now) : undefined;
      if (!ref || ref.value === own?.value || lookups.has(ref.value)) continue;
      const name = nameBeside(current.record, ref);
      if (name) lookups.set(ref.value, { record: name });
    }
  }
  // A record found gives its party by id only (`contactId: "C-ACME"`): the party is looked up too.
  for (const looked of [...lookups.values()]) {
    if (!('record' in looked) || readFacts(looked.record).party) continue;
    const party = partyRefOf(looked.record);
    if (party && !lookups.has(party.value)) lookups.set(party.value, await find({ ...party, own: false }));
  }
  return lookups;
}

/** Words by which a tool's description says its amounts are in the currency's smallest unit. */
const MINOR_UNITS =
  /\b(in (the )?(smallest|lowest) (currency )?(unit|denomination)|minor units?|in cents|in paise|in pence|cents)\b/i;

/** Whether a tool's (or a field's) description says its amounts are in cents, paise or the like. */
export function inMinorUnits(description: unknown): boolean {
  return typeof description === 'string' && MINOR_UNITS.test(description);
}

/** One read for a confirmation; a failure to get an answer is a reason, not an error. */
export function readOnce(run: Run, tool: string, args: Record<string, unknown>): Promise<Step> {
  return toolStep(run, tool, args, { mayConfirm: false }).catch((error: unknown) => {
    // The question is still put: without the name, which the card then says it lacks.
    run.ctx.log.warn({ err: error, requestId: run.scope.requestId }, 'confirmation read failed');
    return { kind: 'executed' as const, success: false, content: null, error: 'the books did not answer' };
  });
}

/** The fields (at any depth) whose schema says their amounts are in the currency's smallest unit. */
export function minorUnitFields(schema: unknown, into = new Set<string>(), depth = 0): Set<string> {
  if (depth > 4 || !isRecord(schema)) return into;
  if (isRecord(schema.properties))
    for (const [name, prop] of Object.entries(schema.properties)) {
      if (isRecord(prop) && inMinorUnits(prop.description)) into.add(name);
      minorUnitFields(prop, into, depth + 1);
    }
  if (isRecord(schema.items)) minorUnitFields(schema.items, into, depth + 1);
  return into;
}
