import {
  closedPeriodIssue,
  type FieldIssue,
  isRecord,
  type ToolDefinition,
  type ValidateRequest,
  type ValidationResult,
} from '@munim/contracts';
import { argsHash } from '@munim/kit';
import type { ValidateFunction } from 'ajv/dist/2019.js';
import { parseArgs } from './args.ts';
import { amountIssues } from './checks.ts';
import { guidanceSentence, questionsFor, sourceOf } from './guidance.ts';
import { checkJournal } from './journal.ts';
import { type CallRules, rulesFor, valueAt } from './match.ts';
import { deref, propertiesOf, requiredNames } from './required.ts';
import { confirmationTier } from './rules.ts';
import { fieldPath, renderValue, type SchemaCompiler, toFieldIssue } from './schema.ts';
import { taxIssues } from './tax/checks.ts';

export { isCalendarDate } from './checks.ts';

/** Guardrail names reported in `ValidationResult.guardrails`. */
export const GUARDRAILS = {
  jsonRepaired: 'json_repaired',
  jsonLlmCorrected: 'json_llm_corrected',
  containerInvocationError: 'container_invocation_error',
  writePreflightBlock: 'write_preflight_block',
  schemaUnavailable: 'schema_unavailable',
  /** A write dated inside the tenant's closed period. */
  periodLocked: 'period_locked',
} as const;

type Schema = Record<string, unknown>;
type Outcome = Omit<ValidationResult, 'durationMs'>;

/** Empty for a required field: absent, null or the empty string. */
const isBlank = (value: unknown) => value === undefined || value === null || value === '';

/**
 * The outcome for a tool the registry does not have. Whatever its name's verb, it is no write: no
 * such tool can run, so there is nothing to confirm (tier 0) and no `write_validation` to record.
 */
export function unknownTool(request: ValidateRequest): Outcome {
  const parsed = parseArgs(request.args, request.rawArgs);
  return {
    tool: request.tool,
    status: 'blocked',
    isWrite: false,
    missingFields: [],
    fieldsValidated: [],
    issues: [],
    message: `TOOL_NOT_FOUND: there is no tool named "${request.tool}".`,
    suggestedTools: [],
    tier: 0,
    argsHash: argsHash(parsed.ok ? parsed.args : {}),
    guardrails: [],
  };
}

/**
 * Required fields that are null or "" (ajv accepts them when the type allows), found by walking
 * schema and value; what is required is what the schema requires whatever the call ({@link requiredNames}).
 */
function blankRequired(schema: unknown, root: Schema, value: unknown, path: string, out: string[]): void {
  const node = deref(schema, root);
  if (!node) return;
  if (Array.isArray(value)) {
    const items = node.items;
    if (isRecord(items))
      value.forEach((item, i) => void blankRequired(items, root, item, `${path}[${i}]`, out));
    return;
  }
  if (!isRecord(value)) return;
  for (const key of requiredNames(node, root))
    if (key in value && (value[key] === null || value[key] === '')) out.push(path ? `${path}.${key}` : key);
  for (const [key, sub] of Object.entries(propertiesOf(node, root) ?? {}))
    if (key in value && value[key] !== null)
      blankRequired(sub, root, value[key], path ? `${path}.${key}` : key, out);
}

const topField = (path: string) => path.split(/[.[]/)[0] ?? path;

/** The outermost part of a dotted path the arguments lack: `payment` for `payment.amount` when there is no `payment`. */
function absentFrom(args: Record<string, unknown>, path: string): string {
  const parts = path.split('.');
  for (let i = 1; i < parts.length; i++) {
    const head = parts.slice(0, i).join('.');
    if (valueAt(args, head) === undefined) return head;
  }
  return path;
}

/** The issue of a write whose input schema does not compile: nothing can be said to fit it. */
function uncheckable(tool: string, reason: string): FieldIssue {
  return {
    field: '(arguments)',
    expected: 'arguments checked against the input schema of the tool',
    received: 'an input schema that cannot be compiled',
    code: 'schema_unavailable',
    message: `The server's input schema for ${tool} cannot be checked (${reason}), so this change is not sent. The operator must fix or replace the tool's schema on the server.`,
  };
}

function arrayLike(schema: Schema, field: string): boolean {
  const props = isRecord(schema.properties) ? schema.properties : {};
  const sub = props[field];
  return isRecord(sub) && (sub.type === 'array' || isRecord(sub.items));
}

/**
 * Validates one tool call against its definition: JSON Schema (strict on unknown fields),
 * the write rules and amount sanity, and builds the message the model reads: what is missing or wrong,
 * and how to fix it.
 */
export function validateCall(
  definition: ToolDefinition,
  request: ValidateRequest,
  compiler: SchemaCompiler,
  availableTools: ReadonlySet<string>,
): Outcome {
  const { tool } = request;
  const isWrite = definition.isWrite;
  const tier = confirmationTier(definition);
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
  const missing: string[] = [];
  const issues: FieldIssue[] = [];
  const rules = isWrite ? rulesFor(definition, args) : undefined;
  const arrayFields = new Set(rules?.nonEmpty);

  for (const field of rules?.required ?? [])
    if (isBlank(valueAt(args, field))) missing.push(absentFrom(args, field));
  for (const field of rules?.nonEmpty ?? []) {
    const value = valueAt(args, field);
    if (Array.isArray(value) && value.length === 0) missing.push(field);
  }

  const checked = compiler.compile(tool, schema);
  if (checked.ok) schemaErrors(checked.validate, args, missing, issues);
  else {
    guardrails.push(GUARDRAILS.schemaUnavailable);
    // Fail closed: a write the server's schema cannot check is not sent on the rules alone.
    if (isWrite) issues.push(uncheckable(tool, checked.reason));
  }
  blankRequired(schema, schema, args, '', missing);

  const signed = rules ? ruleIssues(rules, args, issues) : undefined;
  if (isWrite) {
    amountIssues(schema, args, '', issues, signed);
    // Against the law of the books' country: identifiers, rates in force, place of supply, arithmetic.
    issues.push(...taxIssues(args, request.books, schema, tool));
    // Not in a closed period: dated after the lock date (an undated write is dated today).
    const locked = request.closedUpTo ? closedPeriodIssue(args, request.closedUpTo) : null;
    if (locked) {
      issues.push(locked);
      guardrails.push(GUARDRAILS.periodLocked);
    }
  }

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

  const { sentences, suggestedTools } = guidance(
    [...missingFields, ...uniqueIssues.filter((i) => i.code === 'invalid_format').map((i) => i.field)],
    tool,
    availableTools,
  );

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

/** The schema's errors on `args`: a missing required field into `missing`, every other error into `issues`. */
function schemaErrors(
  validate: ValidateFunction,
  args: Record<string, unknown>,
  missing: string[],
  issues: FieldIssue[],
): void {
  if (validate(args)) return;
  for (const error of validate.errors ?? []) {
    if (error.keyword === 'required') {
      missing.push(
        fieldPath(error.instancePath, String((error.params as { missingProperty: unknown }).missingProperty)),
      );
      continue;
    }
    const issue = toFieldIssue(error);
    if (issue) issues.push(issue);
  }
}

/**
 * The write rules beyond the schema, into `issues`: arrays where the rules want them, amounts above
 * zero, a journal with two lines or more that balances. Returns the journal's signed amount fields.
 */
function ruleIssues(
  rules: CallRules,
  args: Record<string, unknown>,
  issues: FieldIssue[],
): ReadonlySet<string> | undefined {
  for (const field of rules.nonEmpty) {
    const value = valueAt(args, field);
    if (!isBlank(value) && !Array.isArray(value)) {
      issues.push({
        field,
        expected: 'array',
        received: renderValue(value),
        code: 'invalid_type',
        message: `Field '${field}' must be a non-empty array.`,
      });
    }
  }
  for (const field of rules.positive) {
    const value = valueAt(args, field);
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
  const lines = rules.journal === undefined ? undefined : valueAt(args, rules.journal);
  if (rules.journal === undefined || !Array.isArray(lines) || lines.length === 0) return undefined;
  const journal = checkJournal(lines, rules.journal);
  // A posting type the schema's enum already rejected is not reported twice.
  issues.push(
    ...journal.issues.filter((j) => !issues.some((i) => i.field === j.field && j.field !== rules.journal)),
  );
  return journal.signed;
}

/** Where the model can read each of `fields` with a tool it has: one sentence per tool and field it supplies. */
function guidance(
  fields: readonly string[],
  tool: string,
  availableTools: ReadonlySet<string>,
): { sentences: string[]; suggestedTools: string[] } {
  const sources = new Map<string, string>();
  const sentences: string[] = [];
  for (const field of fields) {
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
  return { sentences, suggestedTools: [...new Set(sources.values())] };
}
