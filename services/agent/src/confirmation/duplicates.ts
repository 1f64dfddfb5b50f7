import { isRecord, parseToolName, type ToolDefinition, writeClass } from '@munim/contracts';
import type { Run } from '../run/run.ts';
import {
  DUPLICATE_DAYS,
  type EntryCall,
  entryCall,
  entryMatch,
  type Match,
  type PartyCall,
  partyCall,
  partyMatch,
  recordsIn,
} from './duplicate-facts.ts';
import { entryInWords, partyInWords } from './duplicate-words.ts';
import { about, type Lookups, readOnce, SEARCH, searchField, typed } from './lookup.ts';
import { isParty, keyWords, NUMBER_WORD } from './words.ts';

/**
 * Before a party, document, payment or journal is created, the books are searched for the record
 * it would repeat — with the write's own server's read tools, chosen by meaning as the card's
 * lookups are, each read through the validator and executor like any call. A likely duplicate
 * makes the confirmation typed, is named on the card, and is logged (`duplicate_suspected`).
 */

/** Reads a duplicate check may make while the user waits. */
const MAX_READS = 4;
/** Records a list is asked for at once, where its schema sets no maximum. */
const PAGE_MAX = 100;

/** The record of the books a new one likely repeats, in words, and why. */
export interface Duplicate {
  summary: string;
  /** The warning the card opens with. */
  warning: string;
}

type Args = Record<string, unknown>;
interface Planned {
  tool: ToolDefinition;
  args: Args;
}

const REASONS: Record<Match, string> = {
  gstin: 'the same GSTIN',
  pan: 'the same PAN',
  name: 'the same name',
  number: 'the same number or reference',
  amount: `the same party and amount within ${DUPLICATE_DAYS} days`,
  journal: `the same amount within ${DUPLICATE_DAYS} days, to the same accounts or for the same purpose`,
};

const propsOf = (t: ToolDefinition): Record<string, unknown> =>
  isRecord(t.inputSchema.properties) ? t.inputSchema.properties : {};
const requiredOf = (t: ToolDefinition): string[] =>
  Array.isArray(t.inputSchema.required)
    ? t.inputSchema.required.filter((r): r is string => typeof r === 'string')
    : [];
const typeOf = (t: ToolDefinition, p: string) => {
  const prop = propsOf(t)[p];
  return isRecord(prop) ? prop : {};
};

/** How a read tool about the kind of record may be asked: as a list, by a query, or by the record's number. */
interface Reader {
  tool: ToolDefinition;
  list: boolean;
  /** The query a search requires. */
  search?: string;
  /** A list's optional search text. */
  filter?: string;
  /** The field that reads one record by its number. */
  byNumber?: string;
}

function readerOf(tool: ToolDefinition, noun: string): Reader | undefined {
  const props = Object.keys(propsOf(tool));
  const required = requiredOf(tool);
  const nouns = noun.split('_');
  // The record's own id or number (`InvoiceId`, `invoice_number`, `id`): a read of one record.
  const own = (p: string) => {
    const words = keyWords(p);
    const last = words.at(-1) ?? '';
    return (last === 'id' || NUMBER_WORD.has(last)) && words.slice(0, -1).every((w) => nouns.includes(w));
  };
  const byNumber = props.find((p) => own(p) && NUMBER_WORD.has(keyWords(p).at(-1) ?? ''));
  const search = searchField(tool, required);
  if (search) return { tool, list: false, search };
  if (byNumber && required.every((r) => r === byNumber)) return { tool, list: false, byNumber };
  if (required.length > 0) return undefined;
  const filter = props.find((p) => SEARCH.has(keyWords(p).at(-1) ?? '') && typeOf(tool, p).type === 'string');
  return { tool, list: !props.some(own), ...(filter ? { filter } : {}) };
}

/** The read tools of the write's own server about the kind of record it creates. */
function readersFor(registry: ToolDefinition[], tool: string, noun: string): Reader[] {
  const server = registry.find((t) => t.name === tool)?.access?.server;
  return registry
    .filter((t) => !t.isWrite && t.access?.server === server && about(t.name, noun))
    .sort((a, b) => a.name.length - b.name.length)
    .flatMap((t) => readerOf(t, noun) ?? []);
}

const PAGE_SIZE = new Set([
  'page_size',
  'per_page',
  'limit',
  'top',
  'max_results',
  'page_limit',
  'max_record',
]);

/** As many records as a list gives at once (its page size at the schema's maximum). */
function pageArgs(tool: ToolDefinition): Args {
  const field = Object.keys(propsOf(tool)).find((p) => PAGE_SIZE.has(keyWords(p).join('_')));
  if (!field) return {};
  const max = typeOf(tool, field).maximum;
  return { [field]: typeof max === 'number' ? Math.min(max, 500) : PAGE_MAX };
}

const FROM = new Set(['from', 'start', 'since', 'after', 'begin']);
const TO = new Set(['to', 'end', 'until', 'before']);

/** A list's date range around `day`, where it takes one (`FromDate`/`ToDate`, `date_from`, `since`). */
function rangeArgs(tool: ToolDefinition, day: string): Args {
  const shift = (days: number) => new Date(Date.parse(day) + days * 86_400_000).toISOString().slice(0, 10);
  const out: Args = {};
  for (const p of Object.keys(propsOf(tool))) {
    const words = keyWords(p);
    const dated = words.includes('date') || words.length === 1;
    if (!dated || typeOf(tool, p).type !== 'string') continue;
    if (words.some((w) => FROM.has(w))) out[p] = shift(-DUPLICATE_DAYS);
    else if (words.some((w) => TO.has(w))) out[p] = shift(DUPLICATE_DAYS);
  }
  return Object.keys(out).length === 2 ? out : {};
}

/** A list's filter by the call's one party (`ContactId`, `customer_id`), where it takes one. */
function partyArgs(tool: ToolDefinition, call: EntryCall): Args {
  if (call.partyIds.size !== 1) return {};
  const [id] = call.partyIds as Set<string>;
  const field = Object.keys(propsOf(tool)).find((p) => {
    const words = keyWords(p);
    return words.at(-1) === 'id' && isParty(words.slice(0, -1));
  });
  return field && id ? { [field]: typed(tool, field, id) } : {};
}

/** The reads that may find a party: its kind's lists, then searches by GSTIN, PAN and name. */
function partyPlan(readers: Reader[], call: PartyCall): Planned[] {
  const lists = readers.filter((r) => r.list).slice(0, 2);
  const terms = [call.gstin, call.pan, call.core?.split(' ')[0]].filter((t): t is string => !!t);
  const searches = readers.flatMap((r) =>
    r.search ? terms.map((term) => ({ tool: r.tool, args: { [r.search as string]: term } })) : [],
  );
  return [...lists.map((r) => ({ tool: r.tool, args: pageArgs(r.tool) })), ...searches];
}

/** The reads that may find an entry: its kind's lists around its date for its party, then by its number. */
function entryPlan(readers: Reader[], call: EntryCall): Planned[] {
  const lists = readers.filter((r) => r.list).slice(0, 2);
  const plan: Planned[] = lists.map((r) => ({
    tool: r.tool,
    args: { ...pageArgs(r.tool), ...partyArgs(r.tool, call), ...rangeArgs(r.tool, call.date) },
  }));
  for (const number of call.numbers) {
    const same = (p: string) => keyWords(p).join('_') === keyWords(number.key).join('_');
    const byNumber = readers.find((r) => r.byNumber && same(r.byNumber));
    if (byNumber?.byNumber) plan.push({ tool: byNumber.tool, args: { [byNumber.byNumber]: number.text } });
    for (const term of searchTerms(number.text))
      for (const r of readers) {
        if (r.search) plan.push({ tool: r.tool, args: { [r.search]: term } });
        else if (r.list && r.filter)
          plan.push({ tool: r.tool, args: { ...pageArgs(r.tool), [r.filter]: term } });
      }
  }
  // A search may not look at references: the party's lists without their date range.
  if (call.numbers.length > 0)
    for (const r of lists)
      plan.push({ tool: r.tool, args: { ...pageArgs(r.tool), ...partyArgs(r.tool, call) } });
  return plan;
}

/**
 * What a server's text search is given for a number: the number as sent and, where the books may
 * write it with other spaces, punctuation or case ("MEW / 9334", "mew9334" for "MEW/9334"), its
 * serial — the last run of three or more digits, else its longest run of letters or digits. What a
 * search returns is matched by the number's normal form, so a wider search finds no wrong record.
 */
export function searchTerms(text: string): string[] {
  const digits = text.match(/\p{N}{3,}/gu)?.at(-1);
  const runs = text.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const serial = digits ?? runs.reduce((a, b) => (b.length > a.length ? b : a), '');
  return serial && serial !== text ? [text, serial] : [text];
}

/** Runs the planned reads (each once, a few at most) until a record matches. */
async function firstMatch(
  run: Run,
  plan: Planned[],
  match: (record: Record<string, unknown>) => Match | undefined,
): Promise<{ record: Record<string, unknown>; match: Match } | undefined> {
  const seen = new Set<string>();
  for (const { tool, args } of plan) {
    const key = `${tool.name}:${JSON.stringify(args)}`;
    if (seen.has(key)) continue;
    if (seen.size >= MAX_READS) break;
    seen.add(key);
    const step = await readOnce(run, tool.name, args);
    if (step.kind !== 'executed' || !step.success) continue;
    for (const record of recordsIn(step.content)) {
      const found = match(record);
      if (found) return { record, match: found };
    }
  }
  return undefined;
}

/**
 * The record of the books a write that creates a party, document, payment or journal would likely
 * repeat, named in words; undefined when the books hold none, or the write creates nothing such.
 * A check that cannot read the books finds nothing: it never stops the card.
 */
export async function findDuplicate(
  run: Run,
  tool: string,
  args: Args,
  lookups: Lookups,
): Promise<Duplicate | undefined> {
  const { verbClass, object } = parseToolName(tool);
  if (verbClass !== 'create') return undefined;
  try {
    const registry = await run.ctx.tools.list(run.scope, run.traceparent);
    const kind = writeClass(tool, registry.find((t) => t.name === tool)?.description);
    if (!['party', 'document', 'payment', 'journal'].includes(kind)) return undefined;
    const readers = readersFor(registry, tool, object);
    const fmt = await run.formats();
    let found: { summary: string; match: Match } | undefined;
    if (kind === 'party') {
      const call = partyCall(args);
      if (!call.core && !call.gstin && !call.pan) return undefined;
      const hit = await firstMatch(run, partyPlan(readers, call), (r) => partyMatch(call, r));
      if (hit) found = { summary: partyInWords(hit.record, fmt), match: hit.match };
    } else {
      const call = entryCall(tool, args, lookups);
      const hit = await firstMatch(run, entryPlan(readers, call), (r) => entryMatch(call, r));
      if (hit) found = { summary: entryInWords(hit.record, object, fmt), match: hit.match };
    }
    if (!found) return undefined;
    run.guardrails.add('duplicate_suspected');
    run.ctx.log.info(
      { requestId: run.scope.requestId, tool, duplicateOf: found.summary, match: found.match },
      'duplicate suspected',
    );
    return {
      summary: found.summary,
      warning: `⚠️ This looks like a duplicate: the books already have ${found.summary} (${REASONS[found.match]}). `,
    };
  } catch (error) {
    run.ctx.log.warn({ err: error, requestId: run.scope.requestId, tool }, 'duplicate check failed');
    return undefined;
  }
}
