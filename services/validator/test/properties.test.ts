import { type ToolDefinition, ValidationResultSchema } from '@munim/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildContainers,
  checkContainerCall,
  repairBlocks,
  SchemaCompiler,
  validateCall,
} from '../src/app.ts';
import { demoBooksDefinitions } from './helpers.ts';

type Schema = Record<string, unknown>;
const compiler = new SchemaCompiler();
const registry = demoBooksDefinitions();
const available = new Set(registry.map((t) => t.name));
const containers = buildContainers(registry);

/** A complex tool with every field type (a write the rules data does not know). */
const healthForm: ToolDefinition = {
  name: 'submit_health_form',
  isWrite: true,
  inputSchema: {
    type: 'object',
    properties: {
      user_id: { type: 'string', maxLength: 50 },
      weight: { type: 'number', minimum: 0, maximum: 500 },
      height: { type: 'integer', minimum: 0, maximum: 300 },
      is_smoker: { type: 'boolean' },
      activity_level: { type: 'string', enum: ['sedentary', 'light', 'moderate', 'active', 'very_active'] },
      notes: { type: 'string', maxLength: 1000 },
      recorded_at: { type: 'string', format: 'date-time' },
      tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 5 }, maxItems: 4 },
    },
    required: ['user_id', 'weight', 'height', 'is_smoker', 'activity_level', 'recorded_at'],
  },
};

const day = fc.date({
  min: new Date('1970-01-01T00:00:00Z'),
  max: new Date('2100-12-31T00:00:00Z'),
  noInvalidDate: true,
});

/** An arbitrary of values valid under a JSON Schema (the subset the tools use). */
function arbitraryFor(schema: Schema): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const num = (key: string) => (typeof schema[key] === 'number' ? (schema[key] as number) : undefined);
  switch (schema.type) {
    case 'string': {
      if (schema.format === 'uuid') return fc.uuid();
      if (schema.format === 'date') return day.map((d) => d.toISOString().slice(0, 10));
      if (schema.format === 'date-time') return day.map((d) => d.toISOString());
      if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern));
      if (schema.format === 'email') return fc.stringMatching(/^[a-z]{1,8}@[a-z]{1,8}\.(com|in)$/);
      // Required text is never "" (that is "missing"); any unicode code point, as JSON Schema counts them.
      return fc.string({
        unit: 'binary',
        minLength: Math.max(1, num('minLength') ?? 0),
        maxLength: num('maxLength') ?? 20,
      });
    }
    case 'integer':
      return fc.integer({ min: num('minimum') ?? -1_000_000, max: num('maximum') ?? 1_000_000 });
    case 'number': {
      const lo =
        num('minimum') ??
        (num('exclusiveMinimum') !== undefined ? (num('exclusiveMinimum') as number) + 0.01 : -1e6);
      return fc
        .double({ min: lo, max: num('maximum') ?? 1e6, noNaN: true, noDefaultInfinity: true })
        .map((n) => (Object.is(n, -0) ? 0 : n));
    }
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(arbitraryFor((schema.items ?? {}) as Schema), {
        minLength: num('minItems') ?? 0,
        maxLength: Math.max(num('minItems') ?? 0, num('maxItems') ?? 3),
      });
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required ?? []) as string[];
      const model = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, arbitraryFor(s)]));
      return fc.record(model, { requiredKeys: required });
    }
    default:
      return fc.jsonValue();
  }
}

/**
 * The one write rule no JSON Schema can say (a journal's debits equal its credits) applied to a generated
 * journal entry: each line debits and credits the same amount, so the entry balances.
 */
function withRules(tool: string, args: unknown): unknown {
  if (tool === 'create_invoice' && (args as { Total?: number }).Total !== undefined) {
    // A stated total must be what the lines come to: quantity × price plus tax.
    const invoice = args as { Lines: { Quantity: number; UnitPrice: number; TaxRate: number }[] };
    const Total = invoice.Lines.reduce((s, l) => s + l.Quantity * l.UnitPrice * (1 + l.TaxRate / 100), 0);
    return { ...invoice, Total };
  }
  if (tool !== 'create_journal_entry') return args;
  const entry = args as { Lines: Record<string, unknown>[] };
  return {
    ...entry,
    Lines: entry.Lines.map((line) => {
      const amount = (line.DebitAmount ?? line.CreditAmount ?? 0) as number;
      return { ...line, DebitAmount: amount, CreditAmount: amount };
    }),
  };
}

describe('properties', () => {
  it('never throws and always returns a well-formed result, for arbitrary JSON or text arguments', () => {
    const tools = [...registry, healthForm];
    fc.assert(
      fc.property(
        fc.constantFrom(...tools),
        fc.oneof(fc.jsonValue(), fc.dictionary(fc.string(), fc.jsonValue())),
        fc.option(fc.string(), { nil: undefined }),
        (tool, args, rawArgs) => {
          const request = {
            tool: tool.name,
            callId: 'c',
            attempt: 1,
            ...(rawArgs === undefined ? { args } : { rawArgs }),
          };
          const result = validateCall(tool, request, compiler, available);
          expect(ValidationResultSchema.safeParse({ ...result, durationMs: 0 }).success).toBe(true);
          expect(result.status === 'passed').toBe(
            result.missingFields.length === 0 && result.issues.length === 0,
          );
          if (result.status === 'blocked') expect(result.message.length).toBeGreaterThan(0);
          expect(checkContainerCall(tool.name, args, containers, rawArgs)).toEqual({ kind: 'none' });
        },
      ),
      { numRuns: 400 },
    );
  });

  it('passes every payload generated from a tool schema', () => {
    const tools = [...registry, healthForm];
    for (const tool of tools) {
      fc.assert(
        fc.property(
          arbitraryFor(tool.inputSchema).map((generated) => withRules(tool.name, generated)),
          (args) => {
            const result = validateCall(
              tool,
              { tool: tool.name, args, callId: 'c', attempt: 1 },
              compiler,
              available,
            );
            if (result.status !== 'passed')
              throw new Error(`${tool.name}: ${result.message} for ${JSON.stringify(args)}`);
          },
        ),
        { numRuns: 30 },
      );
    }
  });

  it('answers every container call with an expansion or a well-formed error, never throwing', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...containers.map((c) => c.name)),
        fc.option(fc.jsonValue(), { nil: undefined }),
        (name, args) => {
          const check = checkContainerCall(name, args, containers);
          expect(check.kind).not.toBe('none');
          if (check.kind === 'error') expect(check.response.available_functions.length).toBeGreaterThan(0);
        },
      ),
    );
  });

  it('leaves no broken block in any answer', async () => {
    const block = fc.tuple(
      fc.constantFrom('params', 'clarification', 'card'),
      fc.oneof(fc.string(), fc.json()),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.string(), block), { maxLength: 4 }), async (parts) => {
        const text = parts
          .map(([prose, [kind, body]]) => `${prose}\n\`\`\`${kind}\n${body}\n\`\`\`\n`)
          .join('');
        const once = await repairBlocks(text);
        const twice = await repairBlocks(once.text);
        expect(twice.blocks.every((b) => b.outcome === 'valid')).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
