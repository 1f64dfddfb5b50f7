import { parseToolName, singular, type ToolDefinition, type VerbClass } from '@munim/contracts';
import { CONCEPTS, type Concept, type ConceptSpec, fieldKey, recordIdSpec } from './fields.ts';
import { WRITE_RULES, type WriteRuleSpec } from './rules.ts';

type Schema = Record<string, unknown>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The write rules of one call, as field paths of its arguments (`AccountId`, `payment.amount`). */
export interface CallRules {
  /** The built-in rules that matched, by name. */
  matched: string[];
  required: string[];
  nonEmpty: string[];
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

/** The properties of a schema, and of its object-valued properties. */
function schemaCandidates(props: Record<string, unknown>): Candidate[] {
  const out: Candidate[] = [];
  for (const [key, schema] of Object.entries(props)) {
    out.push({ path: key, key, schema, depth: 1 });
    const inner = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
    for (const [child, sub] of Object.entries(inner))
      out.push({ path: `${key}.${child}`, key: child, schema: sub, depth: 2 });
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

/**
 * Where a concept lives in a tool's arguments: the schema's property that means it (in any naming
 * style); for a schema that lists no properties (or allows any), the argument that means it, else
 * the concept's usual name. Undefined when a closed schema has no such field.
 */
export function findField(
  schema: Schema,
  args: Record<string, unknown>,
  spec: ConceptSpec,
): string | undefined {
  const props = isRecord(schema.properties) ? schema.properties : undefined;
  const inSchema = props ? pick(schemaCandidates(props), spec) : undefined;
  if (inSchema) return inSchema;
  if (props !== undefined && schema.additionalProperties !== true) return undefined;
  return pick(argCandidates(args), spec) ?? spec.canonical;
}

/**
 * The write rules of a call (seed 000 §4.1), chosen by the verb and nouns of the tool's name and
 * resolved to the fields its schema has; then the operator's policy rules, by exact field name.
 */
export function rulesFor(definition: ToolDefinition, args: Record<string, unknown>): CallRules {
  const schema = definition.inputSchema;
  // A closed schema's fields do not depend on the call's arguments: resolved once per definition.
  const closed = isRecord(schema.properties) && schema.additionalProperties !== true;
  const known = closed ? resolvedRules.get(definition) : undefined;
  if (known) return known;
  const rules = resolveRules(definition, args);
  if (closed) resolvedRules.set(definition, rules);
  return rules;
}

const resolvedRules = new WeakMap<ToolDefinition, CallRules>();

function resolveRules(definition: ToolDefinition, args: Record<string, unknown>): CallRules {
  const schema = definition.inputSchema;
  const { verb, verbClass, nouns: words } = parseToolName(definition.name);
  const nouns = words.map(singular);
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
    if ((rule.group && groups.has(rule.group)) || !ruleMatches(rule, verb, verbClass, nouns)) continue;
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

  const policy = definition.access?.rules;
  if (policy) {
    const props = isRecord(schema.properties) ? schema.properties : undefined;
    // As the built-in rules: never a field the schema cannot accept.
    const accepts = (path: string) =>
      props === undefined || schema.additionalProperties === true || (path.split('.')[0] ?? path) in props;
    out.required.push(...(policy.required ?? []).filter(accepts));
    out.nonEmpty.push(...(policy.nonEmpty ?? []).filter(accepts));
    out.positive.push(...(policy.positive ?? []).filter(accepts));
    if (policy.balancedJournal) {
      out.journal ??= field('lines');
      if (out.journal && !out.nonEmpty.includes(out.journal)) out.nonEmpty.push(out.journal);
    }
  }
  return out;
}
