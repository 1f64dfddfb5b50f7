import type { FieldIssue, ToolDefinition, ValidateRequest, ValidationResult } from '@munim/contracts';
import { isWriteTool } from '@munim/contracts';
import { parseArgs } from './args.ts';
import { argsHash } from './canonical.ts';
import { ISO_4217 } from './currencies.ts';
import { guidanceSentence, questionsFor, sourceOf } from './guidance.ts';
import {
  AMOUNT_FIELDS,
  CURRENCY_FIELDS,
  CUSTOM_CHECKS,
  confirmationTier,
  DATE_FIELD,
  WRITE_TOOL_RULES,
} from './rules.ts';
import { fieldPath, renderValue, type SchemaCompiler, toFieldIssue } from './schema.ts';

/** Guardrail names reported in `ValidationResult.guardrails`. */
export const GUARDRAILS = {
  jsonRepaired: 'json_repaired',
  jsonLlmCorrected: 'json_llm_corrected',
  containerInvocationError: 'container_invocation_error',
  writePreflightBlock: 'write_preflight_block',
  schemaUnavailable: 'schema_unavailable',
} as const;

type Schema = Record<string, unknown>;
type Outcome = Omit<ValidationResult, 'durationMs'>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Empty in the sense of seed 000 §4.2: absent, null or the empty string. */
const isBlank = (value: unknown) => value === undefined || value === null || value === '';

/** The outcome for a tool the registry does not have. */
export function unknownTool(request: ValidateRequest): Outcome {
  const isWrite = isWriteTool(request.tool);
  const parsed = parseArgs(request.args, request.rawArgs);
  return {
    tool: request.tool,
    status: 'blocked',
    isWrite,
    missingFields: [],
    fieldsValidated: [],
    issues: [],
    message: `TOOL_NOT_FOUND: there is no tool named "${request.tool}".`,
    suggestedTools: [],
    tier: confirmationTier(request.tool, isWrite),
    argsHash: argsHash(parsed.ok ? parsed.args : {}),
    guardrails: [],
  };
}

/** Required fields that are null or "" (ajv accepts them when the type allows), found by walking schema and value. */
function blankRequired(schema: unknown, value: unknown, path: string, out: string[]): void {
  if (!isRecord(schema)) return;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (isRecord(items)) value.forEach((item, i) => void blankRequired(items, item, `${path}[${i}]`, out));
    return;
  }
  if (!isRecord(value)) return;
  const props = isRecord(schema.properties) ? schema.properties : {};
  if (Array.isArray(schema.required)) {
    for (const key of schema.required) {
      if (typeof key !== 'string') continue;
      if (key in value && (value[key] === null || value[key] === '')) out.push(path ? `${path}.${key}` : key);
    }
  }
  for (const [key, sub] of Object.entries(props)) {
    if (key in value && value[key] !== null)
      blankRequired(sub, value[key], path ? `${path}.${key}` : key, out);
  }
}

const DATE_TEXT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** Whether text is a real calendar date (YYYY-MM-DD, optionally with an ISO time): no 2025-02-30. */
export function isCalendarDate(text: string): boolean {
  const m = DATE_TEXT.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const day = new Date(Date.UTC(y, mo - 1, d));
  const timeOk = m[4] === undefined || (Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6] ?? 0) < 60);
  return timeOk && day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d;
}

/** Date and currency fields anywhere in a write's arguments: real dates, known ISO 4217 codes. */
function dateAndCurrencyIssue(field: string, key: string, value: unknown): FieldIssue | undefined {
  if (typeof value !== 'string') return undefined;
  if (DATE_FIELD.test(key) && !isCalendarDate(value)) {
    return {
      field,
      expected: 'a real calendar date (YYYY-MM-DD)',
      received: renderValue(value),
      code: 'invalid_date',
      message: `Field '${field}' must be a real calendar date as YYYY-MM-DD, but received ${renderValue(value)}.`,
    };
  }
  if (CURRENCY_FIELDS.has(key) && !ISO_4217.has(value)) {
    return {
      field,
      expected: 'an ISO 4217 currency code, e.g. INR',
      received: renderValue(value),
      code: 'invalid_currency',
      message: `Field '${field}' must be an ISO 4217 currency code such as INR or USD, but received ${renderValue(value)}.`,
    };
  }
  return undefined;
}

/** Amount fields anywhere in the arguments: finite numbers, not negative (seed 003 §6.10); dates and currencies. */
function amountIssues(value: unknown, path: string, out: FieldIssue[]): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => void amountIssues(item, `${path}[${i}]`, out));
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const field = path ? `${path}.${key}` : key;
    if (AMOUNT_FIELDS.has(key) && child !== undefined && child !== null) {
      if (typeof child !== 'number' || !Number.isFinite(child)) {
        out.push({
          field,
          expected: 'a finite number',
          received: renderValue(child),
          code: 'invalid_type',
          message: `Field '${field}' is an amount and must be a number, but received ${renderValue(child)}.`,
        });
      } else if (child < 0) {
        out.push({
          field,
          expected: 'number >= 0',
          received: String(child),
          code: 'too_small',
          message: `Field '${field}' is an amount and must not be negative, but received ${child}.`,
        });
      }
    }
    const other = dateAndCurrencyIssue(field, key, child);
    // The schema's own format error for the field already says it.
    if (other && !out.some((issue) => issue.field === field)) out.push(other);
    if (typeof child === 'object') amountIssues(child, field, out);
  }
}

const topField = (path: string) => path.split(/[.[]/)[0] ?? path;

function arrayLike(schema: Schema, field: string): boolean {
  const props = isRecord(schema.properties) ? schema.properties : {};
  const sub = props[field];
  return isRecord(sub) && (sub.type === 'array' || isRecord(sub.items));
}

/**
 * Validates one tool call against its definition: JSON Schema (strict on unknown fields),
 * the write rules of seed 000 and amount sanity, and builds the seed 000 style message.
 */
export function validateCall(
  definition: ToolDefinition,
  request: ValidateRequest,
  compiler: SchemaCompiler,
  availableTools: ReadonlySet<string>,
): Outcome {
  const { tool } = request;
  const isWrite = definition.isWrite;
  const tier = confirmationTier(tool, isWrite, definition.annotations);
  const guardrails: string[] = [];
  const parsed = parseArgs(request.args, request.rawArgs);
  if (!parsed.ok) {
    if (isWrite) guardrails.push(GUARDRAILS.writePreflightBlock);
    return {
      tool,
      status: 'blocked',
      isWrite,
      missingFields: [],
      fieldsValidated: [],
      issues: [parsed.issue],
      message: parsed.issue.message,
      suggestedTools: [],
      tier,
      argsHash: argsHash({}),
      guardrails,
    };
  }
  const args = parsed.args;
  if (parsed.repaired) guardrails.push(GUARDRAILS.jsonRepaired);
  const schema = definition.inputSchema;
  const known = isRecord(schema.properties) ? new Set(Object.keys(schema.properties)) : undefined;
  const open = known === undefined || schema.additionalProperties === true;
  // A rule never demands a field the tool's schema cannot accept.
  const applies = (field: string) => open || known?.has(field) === true;

  const missing: string[] = [];
  const issues: FieldIssue[] = [];
  const rule = isWrite ? WRITE_TOOL_RULES[tool] : undefined;
  const arrayFields = new Set<string>();

  if (rule) {
    for (const field of rule.required) if (applies(field) && isBlank(args[field])) missing.push(field);
    for (const field of rule.arrayFields ?? []) {
      if (!applies(field)) continue;
      arrayFields.add(field);
      const value = args[field];
      if (isBlank(value) || (Array.isArray(value) && value.length === 0)) missing.push(field);
    }
  }

  const compiled = compiler.compile(tool, schema);
  if (compiled.ok) {
    if (!compiled.validate(args)) {
      for (const error of compiled.validate.errors ?? []) {
        if (error.keyword === 'required') {
          missing.push(
            fieldPath(
              error.instancePath,
              String((error.params as { missingProperty: unknown }).missingProperty),
            ),
          );
          continue;
        }
        const issue = toFieldIssue(error);
        if (issue) issues.push(issue);
      }
    }
  } else {
    guardrails.push(GUARDRAILS.schemaUnavailable);
  }
  blankRequired(schema, args, '', missing);

  if (rule) {
    for (const field of rule.arrayFields ?? []) {
      const value = args[field];
      if (applies(field) && !isBlank(value) && !Array.isArray(value)) {
        issues.push({
          field,
          expected: 'array',
          received: renderValue(value),
          code: 'invalid_type',
          message: `Field '${field}' must be a non-empty array.`,
        });
      }
    }
    for (const field of rule.positive ?? []) {
      const value = args[field];
      if (typeof value === 'number' && Number.isFinite(value) && value <= 0) {
        issues.push({
          field,
          expected: 'number > 0',
          received: String(value),
          code: 'too_small',
          message: `Field '${field}' must be greater than 0, but received ${value}.`,
        });
      }
    }
    if (rule.check && Array.isArray(args.Lines) && args.Lines.length > 0) {
      const issue = CUSTOM_CHECKS[rule.check](args);
      if (issue) issues.push(issue);
    }
  }
  if (isWrite) amountIssues(args, '', issues);

  const missingFields = [...new Set(missing)];
  const missingSet = new Set(missingFields);
  const seen = new Set<string>();
  // One issue per field and code; none for a field already reported missing.
  const uniqueIssues = issues.filter((issue) => {
    const key = `${issue.field}\u0000${issue.code}`;
    if (missingSet.has(issue.field) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });

  const bad = new Set([...missingFields, ...uniqueIssues.map((i) => i.field)].map(topField));
  const fieldsValidated = Object.keys(args)
    .filter((field) => args[field] !== undefined && !bad.has(field))
    .sort();
  const blocked = missingFields.length > 0 || uniqueIssues.length > 0;
  if (blocked && isWrite) guardrails.push(GUARDRAILS.writePreflightBlock);

  const sources = new Map<string, string>();
  const sentences: string[] = [];
  for (const field of [
    ...missingFields,
    ...uniqueIssues.filter((i) => i.code === 'invalid_format').map((i) => i.field),
  ]) {
    const source = sourceOf(field, tool);
    if (
      !source ||
      !availableTools.has(source.tool) ||
      sources.has(`${source.tool}:${source.supplies ?? field}`)
    )
      continue;
    sources.set(`${source.tool}:${source.supplies ?? field}`, source.tool);
    sentences.push(guidanceSentence(field, source));
  }
  const suggestedTools = [...new Set(sources.values())];

  let message: string;
  if (!blocked) {
    message = `All ${fieldsValidated.length} field${fieldsValidated.length === 1 ? '' : 's'} of ${tool} are valid.`;
  } else {
    const parts: string[] = [];
    if (missingFields.length > 0) {
      const shown = missingFields.map((f) => (arrayFields.has(f) || arrayLike(schema, f) ? `${f}[]` : f));
      parts.push(`Missing: ${shown.join(', ')}.`);
    }
    parts.push(...sentences);
    parts.push(...uniqueIssues.slice(0, 8).map((i) => i.message));
    if (uniqueIssues.length > 8) parts.push(`(${uniqueIssues.length - 8} more problems.)`);
    message = parts.join(' ');
  }

  return {
    tool,
    status: blocked ? 'blocked' : 'passed',
    isWrite,
    ...(blocked ? {} : { args }),
    missingFields,
    fieldsValidated,
    issues: uniqueIssues,
    message,
    suggestedTools,
    tier,
    argsHash: argsHash(args),
    guardrails,
    ...(missingFields.length > 0 ? { questions: questionsFor(tool, missingFields) } : {}),
  };
}
