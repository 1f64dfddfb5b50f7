import { type FieldIssue, isRecord } from '@munim/contracts';
import { argsHash } from '@munim/kit';
import { Ajv2019, type ErrorObject, type ValidateFunction } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Schema = Record<string, unknown>;
type AddFormats = (ajv: Ajv2019 | Ajv2020) => unknown;
// ajv-formats is CommonJS; under Node's ESM loader its default export is the plugin function itself.
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

const COMBINATORS = ['allOf', 'anyOf', 'oneOf'] as const;
const MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions'] as const;
const SINGLE_KEYWORDS = [
  'additionalProperties',
  'additionalItems',
  'contains',
  'propertyNames',
  'unevaluatedItems',
] as const;

/**
 * Whether an object schema lists its fields (properties, property patterns, or combinator branches
 * that may): only such a schema can say a field is unknown. One that lists none (`{ "type":
 * "object" }`, a Python `dict`) accepts any field, even those it requires.
 */
function listsFields(node: Schema): boolean {
  return (
    isRecord(node.properties) ||
    isRecord(node.patternProperties) ||
    COMBINATORS.some((k) => Array.isArray(node[k]))
  );
}

/**
 * A schema node's draft-04 keywords (OpenAPI 3.0 schemas still use them) in their later form, so
 * a server's schema compiles rather than leaving its writes unchecked: a boolean
 * `exclusiveMinimum`/`exclusiveMaximum` beside `minimum`/`maximum` becomes the number, a string
 * `id` (the schema's own name) is dropped.
 */
function modernize(node: Schema): void {
  for (const [exclusive, inclusive] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof node[exclusive] !== 'boolean') continue;
    if (node[exclusive] === true && typeof node[inclusive] === 'number') {
      node[exclusive] = node[inclusive];
      delete node[inclusive];
    } else delete node[exclusive];
  }
  if (typeof node.id === 'string') delete node.id;
}

/**
 * A copy of a tool's JSON Schema that rejects unknown fields (like zod's `.strict()`): every object
 * schema that lists its fields ({@link listsFields}) and does not say `additionalProperties` gets
 * `unevaluatedProperties: false`, which also
 * sees the properties of `allOf`/`anyOf`/`oneOf` branches. The branches themselves are left open
 * (closing one would reject its siblings' fields), and so are `not`/`if` (they only test).
 * Draft-04 keywords are read in their later form ({@link modernize}).
 */
export function strictify(schema: Schema, branch = false): Schema {
  const out: Schema = { ...schema };
  modernize(out);
  for (const key of MAP_KEYWORDS) {
    const map = out[key];
    if (isRecord(map)) {
      out[key] = Object.fromEntries(
        Object.entries(map).map(([name, sub]) => [name, isRecord(sub) ? strictify(sub) : sub]),
      );
    }
  }
  for (const key of SINGLE_KEYWORDS) {
    const sub = out[key];
    if (isRecord(sub)) out[key] = strictify(sub);
  }
  if (isRecord(out.items)) out.items = strictify(out.items);
  else if (Array.isArray(out.items)) out.items = out.items.map((s) => (isRecord(s) ? strictify(s) : s));
  if (Array.isArray(out.prefixItems))
    out.prefixItems = out.prefixItems.map((s) => (isRecord(s) ? strictify(s) : s));
  for (const key of COMBINATORS) {
    const list = out[key];
    if (Array.isArray(list)) out[key] = list.map((s) => (isRecord(s) ? strictify(s, true) : s));
  }
  for (const key of ['then', 'else'] as const) {
    const sub = out[key];
    if (isRecord(sub)) out[key] = strictify(sub, true);
  }
  if (
    !branch &&
    listsFields(out) &&
    out.additionalProperties === undefined &&
    out.unevaluatedProperties === undefined
  ) {
    out.unevaluatedProperties = false;
  }
  return out;
}

/** A compiled tool schema, or why it could not be compiled. */
export type CompiledSchema = { ok: true; validate: ValidateFunction } | { ok: false; reason: string };

const MAX_CACHED = 2_000;

/** Compiles each tool's input schema once (keyed by tool name and schema hash) with ajv. */
export class SchemaCompiler {
  #cache = new Map<string, CompiledSchema>();
  // The registry's schema objects live until the next refresh: skip hashing them on every call.
  #bySchema = new WeakMap<Schema, { tool: string; compiled: CompiledSchema }>();
  #ajv2019: Ajv2019 | undefined;
  #ajv2020: Ajv2020 | undefined;

  compile(tool: string, inputSchema: Schema): CompiledSchema {
    const known = this.#bySchema.get(inputSchema);
    if (known?.tool === tool) return known.compiled;
    const compiled = this.#compileByHash(tool, inputSchema);
    this.#bySchema.set(inputSchema, { tool, compiled });
    return compiled;
  }

  /** Keyed by the schema's hash, so a refreshed registry with unchanged schemas compiles nothing. */
  #compileByHash(tool: string, inputSchema: Schema): CompiledSchema {
    const key = `${tool}:${argsHash(inputSchema)}`;
    const hit = this.#cache.get(key);
    if (hit) return hit;
    const { $schema, $id: _id, ...rest } = inputSchema;
    const ajv =
      typeof $schema === 'string' && $schema.includes('2020-12') ? this.#draft2020() : this.#draft2019();
    let compiled: CompiledSchema;
    try {
      compiled = { ok: true, validate: ajv.compile(strictify(rest)) };
    } catch (error) {
      compiled = { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
    if (this.#cache.size >= MAX_CACHED) this.#cache.clear();
    this.#cache.set(key, compiled);
    return compiled;
  }

  #draft2019(): Ajv2019 {
    this.#ajv2019 ??= configure(
      new Ajv2019({
        allErrors: true,
        strict: false,
        verbose: true,
        validateSchema: false,
        code: { regExp: lenientRegExp },
      }),
    );
    return this.#ajv2019;
  }

  #draft2020(): Ajv2020 {
    this.#ajv2020 ??= configure(
      new Ajv2020({
        allErrors: true,
        strict: false,
        verbose: true,
        validateSchema: false,
        code: { regExp: lenientRegExp },
      }),
    );
    return this.#ajv2020;
  }
}

/**
 * Patterns as JavaScript reads them with the `u` flag JSON Schema asks for, else without it: many
 * servers write their patterns for another engine (`^[\w\_]+$` from Python), which only the `u`
 * flag refuses. A pattern neither reads still fails the schema's compilation.
 */
const lenientRegExp = Object.assign(
  (pattern: string, flags: string): RegExp => {
    try {
      return new RegExp(pattern, flags);
    } catch (error) {
      if (!flags.includes('u')) throw error;
      return new RegExp(pattern, flags.replace('u', ''));
    }
  },
  { code: 'new RegExp' },
);

function configure<A extends Ajv2019 | Ajv2020>(ajv: A): A {
  addFormats(ajv);
  return ajv;
}

/** A JSON pointer (`/Lines/0/UnitPrice`) as a field path (`Lines[0].UnitPrice`). */
export function fieldPath(pointer: string, child?: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) segments.push(child);
  return segments.reduce((path, segment) => {
    if (/^\d+$/.test(segment)) return `${path}[${segment}]`;
    return path ? `${path}.${segment}` : segment;
  }, '');
}

/** Short rendering of a received value for messages. */
export function renderValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

/** The JSON type name of a value, as JSON Schema names types. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const FORMAT_NAMES: Record<string, string> = {
  date: 'a date (YYYY-MM-DD)',
  'date-time': 'an ISO 8601 date-time (e.g. 2025-10-05T14:30:00Z)',
  time: 'a time (HH:MM:SS)',
  email: 'an email address',
  uuid: 'a UUID',
  uri: 'a URI',
};

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

function bounds(parent: Schema, unit: string): string | undefined {
  const min = parent.minimum ?? parent.exclusiveMinimum;
  const max = parent.maximum ?? parent.exclusiveMaximum;
  if (typeof min === 'number' && typeof max === 'number') return `${unit} between ${min} and ${max}`;
  return undefined;
}

/**
 * One ajv error as a {@link FieldIssue} (field, expected, received, code, message), or undefined
 * for `required` (reported as a missing field) and for combinator summaries that only repeat their
 * branches' errors.
 */
export function toFieldIssue(error: ErrorObject): FieldIssue | undefined {
  const params = error.params as Record<string, unknown>;
  const parent = isRecord(error.parentSchema) ? error.parentSchema : {};
  const data = error.data;
  const field = fieldPath(error.instancePath);
  const name = field || '(arguments)';
  const unit = parent.type === 'integer' ? 'integer' : 'number';
  switch (error.keyword) {
    case 'required':
    case 'if':
      return undefined;
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const extra = String(params.additionalProperty ?? params.unevaluatedProperty);
      const known = isRecord(parent.properties) ? Object.keys(parent.properties) : [];
      const path = fieldPath(error.instancePath, extra);
      return {
        field: path,
        expected: known.length > 0 ? `one of the known fields: ${known.join(', ')}` : 'no such field',
        received: extra,
        code: 'unrecognized_keys',
        message: `Field '${path}' is not accepted here${known.length > 0 ? `; known fields: ${known.join(', ')}` : ''}.`,
      };
    }
    case 'type': {
      const expected = Array.isArray(params.type) ? params.type.join(' or ') : String(params.type);
      const received = jsonType(data);
      return {
        field,
        expected,
        received,
        code: 'invalid_type',
        message:
          data === null
            ? `Field '${name}' must be ${article(expected)}, but received null; leave the field out instead of sending null.`
            : `Field '${name}' must be ${article(expected)}, but received ${received} ${renderValue(data)}.`,
      };
    }
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map((v) =>
        typeof v === 'string' ? v : JSON.stringify(v),
      );
      return {
        field,
        expected: `one of: ${allowed.join(', ')}`,
        received: renderValue(data),
        code: 'invalid_enum_value',
        message: `Field '${name}' must be one of: ${allowed.join(', ')}, but received ${renderValue(data)}.`,
      };
    }
    case 'const':
      return {
        field,
        expected: renderValue(params.allowedValue),
        received: renderValue(data),
        code: 'invalid_literal',
        message: `Field '${name}' must be ${renderValue(params.allowedValue)}, but received ${renderValue(data)}.`,
      };
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum': {
      const small = error.keyword.endsWith('inimum');
      const limit = params.limit as number;
      const between = bounds(parent, unit);
      const relation = `${small ? 'greater than' : 'less than'}${error.keyword.startsWith('exclusive') ? '' : ' or equal to'} ${limit}`;
      return {
        field,
        expected: between ?? `${unit} ${String(params.comparison)} ${limit}`,
        received: renderValue(data),
        code: small ? 'too_small' : 'too_big',
        message: `Field '${name}' must be ${between ? between.replace(`${unit} `, '') : relation}, but received ${renderValue(data)}.`,
      };
    }
    case 'minLength':
    case 'maxLength': {
      const small = error.keyword === 'minLength';
      const limit = params.limit as number;
      return {
        field,
        expected: `text of ${small ? 'at least' : 'at most'} ${limit} characters`,
        received: `${typeof data === 'string' ? data.length : 0} characters`,
        code: small ? 'too_small' : 'too_big',
        message: small
          ? `Field '${name}' must be at least ${limit} characters long.`
          : `Field '${name}' exceeds maximum length of ${limit} characters.`,
      };
    }
    case 'minItems':
    case 'maxItems': {
      const small = error.keyword === 'minItems';
      const limit = params.limit as number;
      return {
        field,
        expected: `${small ? 'at least' : 'at most'} ${limit} item${limit === 1 ? '' : 's'}`,
        received: `${Array.isArray(data) ? data.length : 0} items`,
        code: small ? 'too_small' : 'too_big',
        message: `Field '${name}' must have ${small ? 'at least' : 'at most'} ${limit} item${limit === 1 ? '' : 's'}.`,
      };
    }
    case 'format': {
      const format = String(params.format);
      const expected = FORMAT_NAMES[format] ?? `text in the ${format} format`;
      return {
        field,
        expected,
        received: renderValue(data),
        code: 'invalid_format',
        message: `Field '${name}' must be ${expected}, but received ${renderValue(data)}.`,
      };
    }
    case 'pattern':
      return {
        field,
        expected: `text matching ${String(params.pattern)}`,
        received: renderValue(data),
        code: 'invalid_format',
        message: `Field '${name}' must match the pattern ${String(params.pattern)}, but received ${renderValue(data)}.`,
      };
    case 'multipleOf':
      return {
        field,
        expected: `a multiple of ${String(params.multipleOf)}`,
        received: renderValue(data),
        code: 'not_multiple_of',
        message: `Field '${name}' must be a multiple of ${String(params.multipleOf)}, but received ${renderValue(data)}.`,
      };
    default:
      return {
        field,
        expected: error.message ?? error.keyword,
        received: renderValue(data),
        code: error.keyword,
        message: `Field '${name}' ${error.message ?? 'is invalid'}.`,
      };
  }
}
