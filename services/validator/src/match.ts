import {
  fieldKey,
  isRecord,
  parseToolName,
  singular,
  type ToolDefinition,
  type VerbClass,
} from '@munim/contracts';
import { CONCEPTS, type Concept, type ConceptSpec, recordIdSpec } from './fields.ts';
import { deref, isRequiredPath, propertiesOf, requiredNames } from './required.ts';
import { WRITE_RULES, type WriteRuleSpec } from './rules.ts';

type Schema = Record<string, unknown>;

/**
 * The write rules of one call, as field paths of its arguments (`AccountId`, `payment.amount`).
 * Only `required` demands a field; the other checks apply to the fields the call sends.
 */
export interface CallRules {
  /** The built-in rules that matched, by name. */
  matched: string[];
  /** Fields that must be there, neither null nor empty: the server's schema or the operator requires them. */
  required: string[];
  /** Lists that may not be empty when sent. */
  nonEmpty: string[];
  /** Amounts that must be greater than zero when sent. */
  positive: string[];
  /** The lines field of a journal: at least two lines that balance. */
  journal?: string | undefined;
}

/** The value at a dotted path (`payment.amount`). */
export function valueAt(args: Record<string, unknown>, path: string): unknown {
  let value: unknown = args;
  for (const part of path.split('.')) value = isRecord(value) ? value[part] : undefined;
  return value;
}

/** Whether the name's nouns hold `noun`, a singular word or words joined with `_` (`credit_note`). */
function hasNoun(nouns: readonly string[], noun: string): boolean {
  const want = noun.split('_');
  for (let i = 0; i + want.length <= nouns.length; i++)
    if (want.every((w, j) => nouns[i + j] === w)) return true;
  return false;
}

function ruleMatches(
  rule: WriteRuleSpec,
  verb: string | undefined,
  verbClass: VerbClass | undefined,
  nouns: string[],
): boolean {
  if (verb === undefined || rule.except?.includes(verb)) return false;
  const byVerb =
    rule.verbs?.includes(verb) === true ||
    (verbClass !== undefined && rule.classes?.includes(verbClass) === true);
  return byVerb && (!rule.nouns || rule.nouns.some((noun) => hasNoun(nouns, noun)));
}

/** Whether a property can hold what the concept wants (a list concept needs an array, when typed). */
function fits(schema: unknown, spec: ConceptSpec): boolean {
  if (!spec.list || !isRecord(schema)) return true;
  const { type } = schema;
  if (type === undefined) return true;
  return type === 'array' || (Array.isArray(type) && type.includes('array')) || isRecord(schema.items);
}

interface Candidate {
  /** `key`, or `parent.key` one level down. */
  path: string;
  key: string;
  /** The property's schema (for a schema-less argument: its JSON type). */
  schema: unknown;
  depth: 1 | 2;
}

/** The properties of a schema and the names it requires, and those of its object-valued properties. */
function schemaCandidates(schema: Schema, props: Record<string, unknown>): Candidate[] {
  const out: Candidate[] = [];
  const named = (node: unknown, declared: Schema): [string, unknown][] => [
    ...Object.entries(declared).map(([name, sub]): [string, unknown] => [name, deref(sub, schema) ?? sub]),
    ...[...requiredNames(node, schema)]
      .filter((name) => !(name in declared))
      .map((name): [string, unknown] => [name, {}]),
  ];
  for (const [key, sub] of named(schema, props)) {
    out.push({ path: key, key, schema: sub, depth: 1 });
    for (const [child, leaf] of named(sub, propertiesOf(sub, schema) ?? {}))
      out.push({ path: `${key}.${child}`, key: child, schema: leaf, depth: 2 });
  }
  return out;
}

/** The arguments given, and those of their object values. */
function argCandidates(args: Record<string, unknown>): Candidate[] {
  const typed = (value: unknown) => (Array.isArray(value) ? { type: 'array' } : {});
  const out: Candidate[] = [];
  for (const [key, value] of Object.entries(args)) {
    out.push({ path: key, key, schema: typed(value), depth: 1 });
    if (isRecord(value))
      for (const [child, sub] of Object.entries(value))
        out.push({ path: `${key}.${child}`, key: child, schema: typed(sub), depth: 2 });
  }
  return out;
}

/** The first candidate meaning the concept: top level before one level down, best pattern first. */
function pick(candidates: Candidate[], spec: ConceptSpec): string | undefined {
  for (const depth of [1, 2])
    for (const pattern of spec.patterns)
      for (const c of candidates)
        if (c.depth === depth && pattern.test(fieldKey(c.key)) && fits(c.schema, spec)) return c.path;
  return undefined;
}

/** Whether a schema names its fields and accepts no others: its rules then do not depend on a call. */
const isClosed = (schema: Schema) =>
  propertiesOf(schema, schema) !== undefined && schema.additionalProperties !== true;

/**
 * Where a concept lives in a tool's arguments: the schema's field that means it (in any naming
 * style, declared or required, in a combinator branch too); for a schema that lists no fields (or
 * allows any), the argument that means it. Undefined when there is no such field.
 */
function findField(schema: Schema, args: Record<string, unknown>, spec: ConceptSpec): string | undefined {
  const props = propertiesOf(schema, schema) ?? {};
  const inSchema = pick(schemaCandidates(schema, props), spec);
  if (inSchema || isClosed(schema)) return inSchema;
  return pick(argCandidates(args), spec);
}

/**
 * The write rules of a call, chosen by the verb and nouns of the tool's name and
 * resolved to the fields its schema has; then the operator's policy rules, by exact field name.
 * A rule demands a field only where the server's schema requires it (the server knows its own API
 * better than a rule by meaning); the operator's
 * `required` and `nonEmpty` are demanded as written.
 */
export function rulesFor(definition: ToolDefinition, args: Record<string, unknown>): CallRules {
  const schema = definition.inputSchema;
  // A closed schema's fields do not depend on the call's arguments: resolved once per definition.
  const closed = isClosed(schema);
  const known = closed ? resolvedRules.get(definition) : undefined;
  if (known) return known;
  const rules = resolveRules(definition, args);
  if (closed) resolvedRules.set(definition, rules);
  return rules;
}

const resolvedRules = new WeakMap<ToolDefinition, CallRules>();

function resolveRules(definition: ToolDefinition, args: Record<string, unknown>): CallRules {
  const schema = definition.inputSchema;
  const parts = parseToolName(definition.name);
  const nouns = parts.nouns.map(singular);
  // A name may do more than one thing (`create_and_send_invoice`): each of its verbs brings its rules.
  const verbs: [string | undefined, VerbClass | undefined][] = [
    [parts.verb, parts.verbClass],
    ...parts.changes.map((c): [string, VerbClass] => [c.word, c.verbClass]),
  ];
  const out: CallRules = { matched: [], required: [], nonEmpty: [], positive: [] };
  const resolved = new Map<Concept, string | undefined>();
  const field = (concept: Concept) => {
    if (!resolved.has(concept)) {
      const spec = concept === 'recordId' ? recordIdSpec(nouns) : CONCEPTS[concept];
      resolved.set(concept, findField(schema, args, spec));
    }
    return resolved.get(concept);
  };
  const groups = new Set<string>();
  for (const rule of WRITE_RULES) {
    if (rule.group && groups.has(rule.group)) continue;
    if (!verbs.some(([verb, verbClass]) => ruleMatches(rule, verb, verbClass, nouns))) continue;
    if (rule.group) groups.add(rule.group);
    out.matched.push(rule.name);
    const add = (into: string[], concepts: readonly Concept[] = []) => {
      for (const concept of concepts) {
        const found = field(concept);
        if (found !== undefined) into.push(found);
      }
    };
    add(out.required, rule.required);
    add(out.nonEmpty, rule.nonEmpty);
    add(out.positive, rule.positive);
    if (rule.balanced) out.journal = field('lines');
  }
  out.required = out.required.filter((path) => isRequiredPath(schema, path));
  // A list the schema requires is demanded like any required field, and reported as a list.
  out.required.push(...out.nonEmpty.filter((path) => isRequiredPath(schema, path)));

  const policy = definition.access?.rules;
  if (policy) {
    const props = propertiesOf(schema, schema);
    // Never a field the schema cannot accept: the operator's rule would block every call.
    const accepts = (path: string) =>
      !isClosed(schema) || (props !== undefined && (path.split('.')[0] ?? path) in props);
    const nonEmpty = (policy.nonEmpty ?? []).filter(accepts);
    out.required.push(...(policy.required ?? []).filter(accepts), ...nonEmpty);
    out.nonEmpty.push(...nonEmpty);
    out.positive.push(...(policy.positive ?? []).filter(accepts));
    if (policy.balancedJournal) {
      out.journal ??= field('lines');
      if (out.journal) {
        out.required.push(out.journal);
        out.nonEmpty.push(out.journal);
      }
    }
  }
  out.required = [...new Set(out.required)];
  out.nonEmpty = [...new Set(out.nonEmpty)];
  return out;
}
