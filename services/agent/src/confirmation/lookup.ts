import { nameWords, parseToolName, singular, type ToolDefinition } from '@munim/contracts';
import { groupsOfToolName } from '@munim/kit';
import type { Run } from '../run/run.ts';
import { toolStep } from '../tool-step/tool-step.ts';
import { isRecord } from '../util.ts';
import { areLines, ID_FIELD, idNoun, isPartyField, ownIdField, plainReason } from './facts.ts';

/**
 * What is known of one id of a call: the record a read gave, why none could be read, or that it
 * was not read (an id beside the record and its party, like a bank account, that no read of this
 * request names).
 */
export type Looked = { record: Record<string, unknown> } | { failed: string } | { unread: true };
/** The ids of a call, by value, each looked up. */
export type Lookups = Map<string, Looked>;

/** Reads a confirmation may make: each is a call to the books while the user waits. */
const MAX_READS = 4;
const MAX_IDS = 6;
const NO_READER = 'no read tool of the books finds it';

interface IdRef {
  field: string;
  value: string;
  /** The record acted on, its party, or a record it is against: read when not known. */
  primary: boolean;
}

/** The ids of a call: the record it acts on first, then the records in its lists, its party, the rest. */
function idRefs(tool: string, args: Record<string, unknown>): IdRef[] {
  const own = ownIdField(tool, args);
  const refs: IdRef[] = [];
  const id = (k: string, v: unknown): v is string => ID_FIELD.test(k) && typeof v === 'string' && v !== '';
  if (own && id(own, args[own])) refs.push({ field: own, value: args[own], primary: true });
  for (const value of Object.values(args)) {
    // Line items point at ledger accounts and products, not at the records the change is about.
    if (!Array.isArray(value) || !value.every(isRecord) || areLines(value)) continue;
    for (const item of value)
      for (const [k, v] of Object.entries(item))
        if (id(k, v)) refs.push({ field: k, value: v, primary: true });
  }
  for (const [k, v] of Object.entries(args))
    if (k !== own && id(k, v)) refs.push({ field: k, value: v, primary: isPartyField(k) });
  const seen = new Set<string>();
  return refs.filter((r) => !seen.has(r.value) && seen.add(r.value)).slice(0, MAX_IDS);
}

/** Each object (four levels deep at most) of `value`, depth first. */
function* objects(value: unknown, depth = 0): Generator<Record<string, unknown>> {
  if (depth > 4 || value === null || typeof value !== 'object') return;
  if (!Array.isArray(value)) yield value as Record<string, unknown>;
  for (const child of Array.isArray(value) ? value : Object.values(value)) yield* objects(child, depth + 1);
}

/**
 * The record whose own id is `id`: the object whose first id field holds it (an invoice that
 * merely names the customer by `ContactId` is not the customer's record).
 */
function recordOf(value: unknown, id: string): Record<string, unknown> | undefined {
  for (const o of objects(value)) {
    const first = Object.keys(o).find((k) => ID_FIELD.test(k));
    if (first !== undefined && o[first] === id) return o;
  }
  return undefined;
}

/** A name a record gives beside the id it refers to: `ContactName` next to `ContactId`. */
function nameBeside(value: unknown, id: string): Record<string, unknown> | undefined {
  for (const o of objects(value)) {
    const entries = Object.entries(o);
    for (const [key, v] of entries) {
      const noun = idNoun(key);
      if (v !== id || noun === '' || !ID_FIELD.test(key)) continue;
      const sibling = (suffix: string) =>
        entries.find(([k, w]) => snake(k) === `${noun}_${suffix}` && typeof w === 'string')?.[1];
      const name = sibling('name') ?? sibling('display_name');
      if (name) return { Name: name };
      const number = sibling('number');
      if (number) return { Number: number };
    }
  }
  return undefined;
}

const snake = (key: string) => nameWords(key).join('_');

/** Read tools that may name the record an id field points at: a read by that id first, then lists. */
function readersFor(field: string, ownNoun: string, readers: ToolDefinition[]): ToolDefinition[] {
  const noun = idNoun(field) || ownNoun;
  const last = noun.split('_').at(-1) ?? noun;
  const groups = new Set(groupsOfToolName(last));
  const related = (t: ToolDefinition) => {
    const nouns = parseToolName(t.name).nouns.map(singular);
    return groupsOfToolName(t.name).some((g) => groups.has(g)) || nouns.includes(last);
  };
  const required = (t: ToolDefinition) =>
    Array.isArray(t.inputSchema.required) ? (t.inputSchema.required as unknown[]) : [];
  const takes = (t: ToolDefinition) =>
    isRecord(t.inputSchema.properties) && field in t.inputSchema.properties;
  const mine = readers.filter(related);
  const byId = mine
    .filter((t) => takes(t) && required(t).every((f) => f === field))
    .sort((a, b) => Number(!required(a).includes(field)) - Number(!required(b).includes(field)));
  const lists = mine.filter((t) => !takes(t) && required(t).length === 0);
  return [...byId.slice(0, 1), ...lists.slice(0, 2)];
}

/**
 * Looks up the ids of a write so its confirmation can name them. What this request has read
 * already names most (a model looks records up before it changes them); the record acted on is
 * read afresh, and its party and the records it is against are read when not known, each by a
 * read tool the registry offers for it, through the validator and executor like any call (never
 * a write). What no read names is kept with the reason, so the card says so instead of showing the id.
 */
export async function lookUp(run: Run, tool: string, args: Record<string, unknown>): Promise<Lookups> {
  const lookups: Lookups = new Map();
  const refs = idRefs(tool, args);
  if (refs.length === 0) return lookups;
  const read = () => run.toolResults.filter((r) => r.success).map((r) => r.result);
  const known = (value: string) => {
    for (const result of read()) {
      const record = recordOf(result, value);
      if (record) return record;
    }
    return undefined;
  };
  const registry = await run.ctx.tools.list(run.scope, run.traceparent);
  // Another server's books do not hold this one's records.
  const server = registry.find((t) => t.name === tool)?.access?.server;
  const readers = registry.filter((t) => !t.isWrite && t.access?.server === server);
  const own = ownIdField(tool, args);
  const ownNoun = parseToolName(tool).object;
  const cache = new Map<string, Awaited<ReturnType<typeof toolStep>>>();
  let reads = 0;
  for (const { field, value, primary } of refs) {
    // The record a change acts on is read as it is now: an edit shows it before → after.
    let record = field === own ? undefined : known(value);
    let failed: string | undefined = primary ? NO_READER : undefined;
    for (const reader of record || !primary ? [] : readersFor(field, ownNoun, readers)) {
      const input = isRecord(reader.inputSchema.properties) && field in reader.inputSchema.properties;
      const key = `${reader.name}:${input ? value : ''}`;
      let step = cache.get(key);
      if (!step) {
        if (reads >= MAX_READS) break;
        reads += 1;
        step = await toolStep(run, reader.name, input ? { [field]: value } : {}, { mayConfirm: false }).catch(
          (error: unknown) => {
            // The question is still put: without the name, which the card then says it lacks.
            run.ctx.log.warn({ err: error, requestId: run.scope.requestId }, 'confirmation read failed');
            return {
              kind: 'executed' as const,
              success: false,
              content: null,
              error: 'the books did not answer',
            };
          },
        );
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
        if (input) break;
        continue;
      }
      record = recordOf(step.content, value);
      if (record) break;
      failed = 'the books have no such record';
    }
    if (!record && field === own && failed === NO_READER) record = known(value);
    // A name given beside the id (an invoice's `ContactName`) serves for what is not read afresh.
    if (!record && field !== own)
      record = read()
        .map((result) => nameBeside(result, value))
        .find(Boolean);
    lookups.set(value, record ? { record } : failed ? { failed } : { unread: true });
  }
  // What an edit replaces is named by the record itself: its `ContactName` beside its `ContactId`.
  const current = own ? lookups.get(String(args[own])) : undefined;
  if (current && 'record' in current) {
    for (const [key, now] of Object.entries(current.record)) {
      if (key === own || typeof now !== 'string' || !(key in args) || lookups.has(now)) continue;
      const name = nameBeside(current.record, now);
      if (name) lookups.set(now, { record: name });
    }
  }
  return lookups;
}
