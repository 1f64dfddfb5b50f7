import type { ToolDefinition } from '@munim/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, SchemaCompiler, strictify, validateCall } from '../src/app.ts';
import { demoBooksDefinitions } from './helpers.ts';

const compiler = new SchemaCompiler();
const demo = new Map(demoBooksDefinitions().map((d) => [d.name, d]));
const available = new Set(demo.keys());
const check = (definition: ToolDefinition, args: Record<string, unknown>) =>
  validateCall(definition, { tool: definition.name, args, callId: 'c', attempt: 1 }, compiler, available);

describe('strict schemas', () => {
  it('closes plain objects but leaves explicit additionalProperties and combinator branches alone', () => {
    const out = strictify({
      type: 'object',
      properties: {
        a: { type: 'object', properties: { b: { type: 'string' } } },
        open: { type: 'object', additionalProperties: true },
      },
      allOf: [{ properties: { c: { type: 'string' } } }],
    });
    expect(out.unevaluatedProperties).toBe(false);
    expect((out.properties as Record<string, Record<string, unknown>>).a?.unevaluatedProperties).toBe(false);
    expect(
      (out.properties as Record<string, Record<string, unknown>>).open?.unevaluatedProperties,
    ).toBeUndefined();
    expect((out.allOf as Record<string, unknown>[])[0]?.unevaluatedProperties).toBeUndefined();
  });

  it('accepts fields that an allOf branch declares and rejects the others', () => {
    const tool: ToolDefinition = {
      name: 'create_thing',
      isWrite: true,
      inputSchema: {
        type: 'object',
        properties: { Name: { type: 'string' } },
        allOf: [{ properties: { Code: { type: 'string' } } }],
      },
    };
    expect(check(tool, { Name: 'x', Code: 'y' }).status).toBe('passed');
    expect(check(tool, { Name: 'x', Other: 1 }).issues).toEqual([
      expect.objectContaining({ field: 'Other', code: 'unrecognized_keys' }),
    ]);
  });

  it('blocks a write whose schema cannot be compiled, saying why, and lets a read through', () => {
    const broken: Record<string, Record<string, unknown>> = {
      'an unknown type': { type: 'object', properties: { InvoiceId: { type: 'uuid-ish' } } },
      'a reference to nothing': { type: 'object', properties: { InvoiceId: { $ref: '#/$defs/Missing' } } },
      'a pattern that is no regular expression': {
        type: 'object',
        properties: { InvoiceId: { type: 'string', pattern: '([' } },
      },
    };
    for (const [what, inputSchema] of Object.entries(broken)) {
      const result = check({ name: 'void_invoice', isWrite: true, inputSchema }, { InvoiceId: 'INV-1' });
      expect(result, what).toMatchObject({ status: 'blocked', missingFields: [] });
      expect(result.issues, what).toEqual([
        expect.objectContaining({ field: '(arguments)', code: 'schema_unavailable' }),
      ]);
      expect(result.message, what).toMatch(
        /^The server's input schema for void_invoice cannot be checked \(.+\), so this change is not sent\./,
      );
      expect(result.guardrails, what).toEqual(['schema_unavailable', 'write_preflight_block']);
      const read = check({ name: 'get_invoice', isWrite: false, inputSchema }, { InvoiceId: 'INV-1' });
      expect(read, what).toMatchObject({ status: 'passed', guardrails: ['schema_unavailable'] });
    }
  });
});

describe('guidance', () => {
  it('sends bills and vendor payments to the vendor and bill tools', () => {
    const bill = check(demo.get('create_bill')!, {
      Lines: [{ Description: 'x', Quantity: 1, UnitPrice: 1, TaxRate: 0 }],
    });
    expect(bill.suggestedTools).toEqual(['get_all_vendors']);
    expect(bill.message).toBe(
      'Missing: ContactId. Fetch the vendor first via get_all_vendors to obtain ContactId.',
    );
    const payment = check(demo.get('create_bill_payment')!, {
      AccountId: '6f1c1f9e-3d7b-4a52-9f0e-1a2b3c4d5e6f',
      Amount: 10,
    });
    expect(payment.message).toBe(
      'Missing: Applications[]. Fetch the bill first via get_bills to obtain BillId for Applications.',
    );
  });

  it('only suggests tools the registry has', () => {
    const result = validateCall(
      demo.get('void_invoice')!,
      { tool: 'void_invoice', args: {}, callId: 'c', attempt: 1 },
      compiler,
      new Set(['void_invoice']),
    );
    expect(result.suggestedTools).toEqual([]);
    expect(result.message).toBe('Missing: InvoiceId.');
  });
});

describe('canonical JSON', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });
});

describe('canonical JSON against JSON.stringify', () => {
  it('matches JSON.stringify of a key-sorted copy for nested values, unicode and odd scalars', () => {
    const sortDeep = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(sortDeep)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.keys(v)
                .sort()
                .map((k) => [k, sortDeep((v as Record<string, unknown>)[k])]),
            )
          : v;
    const reverseDeep = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reverseDeep)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.keys(v)
                .reverse()
                .map((k) => [k, reverseDeep((v as Record<string, unknown>)[k])]),
            )
          : v;
    const value = { z: [3, { b: 'नमस्ते😀', a: null }], a: { y: 1.5, x: [] }, 'k"q': '\u0000', n: Number.NaN };
    expect(canonicalJson(value)).toBe(JSON.stringify(sortDeep(value)));
    expect(canonicalJson([undefined, () => 1])).toBe('[null,null]');
    expect(canonicalJson(new Date(0))).toBe('"1970-01-01T00:00:00.000Z"');
    expect(canonicalJson(undefined)).toBe('null');
    fc.assert(
      fc.property(fc.jsonValue(), (json) => {
        // Same value back, and one text whatever the key order (integer-like keys included).
        const text = canonicalJson(json);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(json)));
        expect(canonicalJson(reverseDeep(json))).toBe(text);
      }),
    );
  });
});
