import { randomUUID } from 'node:crypto';
import type { ToolDefinition } from '@munim/contracts';
import { describe, expect, it } from 'vitest';
import { SchemaCompiler, validateCall } from '../src/app.ts';
import { isCalendarDate } from '../src/validate.ts';
import { demoBooksDefinitions } from './helpers.ts';

const compiler = new SchemaCompiler();
const demo = new Map(demoBooksDefinitions().map((d) => [d.name, d]));
const available = new Set(demo.keys());
const check = (definition: ToolDefinition, args: unknown) =>
  validateCall(definition, { tool: definition.name, args, callId: 'c', attempt: 1 }, compiler, available);

/** A complex tool: every field type, strict on unknown fields. */
const healthForm: ToolDefinition = {
  name: 'submit_health_form',
  isWrite: true,
  annotations: { readOnlyHint: false },
  inputSchema: {
    type: 'object',
    properties: {
      user_id: { type: 'string', maxLength: 50 },
      weight: { type: 'number', minimum: 0, maximum: 500 },
      height: { type: 'integer', minimum: 0, maximum: 300 },
      is_smoker: { type: 'boolean' },
      activity_level: { type: 'string', enum: ['sedentary', 'light', 'moderate', 'active', 'very_active'] },
      notes: { type: 'string', maxLength: 10 },
      recorded_at: { type: 'string', format: 'date-time' },
      metadata: { type: 'object', additionalProperties: true },
    },
    required: ['user_id', 'weight', 'height', 'is_smoker', 'activity_level', 'recorded_at'],
  },
};
const form = {
  user_id: 'u1',
  weight: 70.5,
  height: 180,
  is_smoker: false,
  activity_level: 'light',
  recorded_at: '2025-10-05T14:30:00Z',
};

describe('schema checks of every field type', () => {
  it('passes valid input for every field type, with optional fields omitted or all present', () => {
    expect(check(healthForm, form).status).toBe('passed');
    const all = { ...form, notes: 'ok', metadata: { nested: { deep: [1, { a: null }] } } };
    expect(check(healthForm, all)).toMatchObject({ status: 'passed', args: all });
  });

  it('reports an invalid value of every field type as a field issue', () => {
    const result = check(healthForm, {
      user_id: 7,
      weight: 'heavy',
      height: 1.5,
      is_smoker: 'no',
      activity_level: 'lazy',
      recorded_at: 'yesterday',
      metadata: 'x',
    });
    expect(result.status).toBe('blocked');
    const byField = Object.fromEntries(result.issues.map((i) => [i.field, i.code]));
    expect(byField).toEqual({
      user_id: 'invalid_type',
      weight: 'invalid_type',
      height: 'invalid_type',
      is_smoker: 'invalid_type',
      activity_level: 'invalid_enum_value',
      recorded_at: 'invalid_format',
      metadata: 'invalid_type',
    });
    for (const issue of result.issues) {
      expect(issue.message).toContain(`'${issue.field}'`);
      expect(issue.expected.length).toBeGreaterThan(0);
      expect(issue.received.length).toBeGreaterThan(0);
    }
  });

  it('accepts values exactly at the boundaries and rejects one step beyond', () => {
    expect(check(healthForm, { ...form, weight: 0, height: 300, user_id: 'x'.repeat(50) }).status).toBe(
      'passed',
    );
    expect(check(healthForm, { ...form, weight: 500 }).status).toBe('passed');
    const over = check(healthForm, { ...form, weight: 500.01, height: -1, user_id: 'x'.repeat(51) });
    expect(over.issues.map((i) => [i.field, i.code])).toEqual(
      expect.arrayContaining([
        ['weight', 'too_big'],
        ['height', 'too_small'],
        ['user_id', 'too_big'],
      ]),
    );
    expect(over.issues.find((i) => i.field === 'user_id')?.message).toBe(
      "Field 'user_id' exceeds maximum length of 50 characters.",
    );
  });

  it('counts unicode text in characters, not UTF-16 units, and keeps it intact', () => {
    const notes = 'नमस्ते😀₹éü'; // 10 code points, more UTF-16 units
    expect([...notes].length).toBe(10);
    const result = check(healthForm, { ...form, notes });
    expect(result.status).toBe('passed');
    expect(result.args?.notes).toBe(notes);
    expect(check(healthForm, { ...form, notes: `${notes}😀` }).issues[0]).toMatchObject({
      field: 'notes',
      code: 'too_big',
    });
  });

  it('tells null, undefined and "" apart', () => {
    expect(check(healthForm, { ...form, notes: undefined }).status).toBe('passed');
    const nullOptional = check(healthForm, { ...form, notes: null });
    expect(nullOptional.issues[0]).toMatchObject({ field: 'notes', code: 'invalid_type', received: 'null' });
    expect(nullOptional.issues[0]?.message).toContain('leave the field out instead of sending null');
    expect(check(healthForm, { ...form, notes: '' }).status).toBe('passed');
    const { user_id: _drop, ...noUser } = form;
    expect(check(healthForm, noUser).missingFields).toEqual(['user_id']);
    expect(check(healthForm, { ...form, user_id: null }).missingFields).toEqual(['user_id']);
    expect(check(healthForm, { ...form, user_id: '' }).missingFields).toEqual(['user_id']);
  });

  it('rejects unknown fields, several at once, at the top and nested', () => {
    const result = check(demo.get('create_invoice')!, {
      ContactId: randomUUID(),
      Lines: [{ Description: 'x', Quantity: 1, UnitPrice: 1, TaxRate: 0, Colour: 'red' }],
      Customer: 'Acme',
      Extra: 1,
    });
    expect(result.issues.filter((i) => i.code === 'unrecognized_keys').map((i) => i.field)).toEqual(
      expect.arrayContaining(['Customer', 'Extra', 'Lines[0].Colour']),
    );
  });

  it('handles date-time time zones and rejects dates that are not on the calendar', () => {
    for (const t of ['2025-10-05T14:30:00Z', '2025-10-05T14:30:00+05:30', '2024-02-29T00:00:00.123Z'])
      expect(check(healthForm, { ...form, recorded_at: t }).status, t).toBe('passed');
    for (const t of ['2025-10-05T14:30:00', '2025-02-30T10:00:00Z', '2025-10-05T25:00:00Z', '05/10/2025'])
      expect(check(healthForm, { ...form, recorded_at: t }).status, t).toBe('blocked');
    const leap = check(demo.get('create_invoice')!, {
      ContactId: randomUUID(),
      Lines: [{ Description: 'x', Quantity: 1, UnitPrice: 1, TaxRate: 0 }],
      Date: '2023-02-29',
    });
    expect(leap.issues).toEqual([expect.objectContaining({ field: 'Date', code: 'invalid_format' })]);
  });

  it('checks floating point sums of a journal entry to within 0.01', () => {
    const account = randomUUID();
    const lines = (debits: number[], credit: number) => ({
      Lines: [
        ...debits.map((d) => ({ AccountId: account, DebitAmount: d })),
        { AccountId: account, CreditAmount: credit },
      ],
    });
    expect(check(demo.get('create_journal_entry')!, lines([0.1, 0.2], 0.3)).status).toBe('passed');
    expect(check(demo.get('create_journal_entry')!, lines([0.1, 0.2], 0.32)).status).toBe('blocked');
  });
});

describe('business rules as data', () => {
  const ledger: ToolDefinition = {
    name: 'create_expense',
    isWrite: true,
    inputSchema: {
      type: 'object',
      properties: {
        Amount: { type: 'number' },
        Currency: { type: 'string' },
        ExpenseDate: { type: 'string' },
        Lines: { type: 'array', items: { type: 'object', properties: { TaxAmount: { type: 'number' } } } },
      },
    },
  };

  it('knows ISO 4217 currency codes', () => {
    expect(check(ledger, { Amount: 5, Currency: 'INR' }).status).toBe('passed');
    const bad = check(ledger, { Amount: 5, Currency: 'RUPEES' });
    expect(bad.issues).toEqual([
      expect.objectContaining({ field: 'Currency', code: 'invalid_currency', received: '"RUPEES"' }),
    ]);
    // Stripe writes codes in lower case; a code is a code in either case, a made-up one in neither.
    expect(check(ledger, { Currency: 'inr' }).status).toBe('passed');
    expect(check(ledger, { Currency: 'rupees' }).status).toBe('blocked');
    expect(check(ledger, { Currency: 'xyz' }).status).toBe('blocked');
  });

  it('wants real calendar dates even where the schema gives no format', () => {
    expect(check(ledger, { ExpenseDate: '2024-02-29' }).status).toBe('passed');
    expect(check(ledger, { ExpenseDate: '2025-02-29' }).issues).toEqual([
      expect.objectContaining({ field: 'ExpenseDate', code: 'invalid_date' }),
    ]);
    expect(check(ledger, { ExpenseDate: 'tomorrow' }).status).toBe('blocked');
    expect(isCalendarDate('2025-12-31')).toBe(true);
    expect(isCalendarDate('2025-13-01')).toBe(false);
    expect(isCalendarDate('2025-04-31')).toBe(false);
    expect(isCalendarDate('2025-04-30T23:59:59+05:30')).toBe(true);
  });

  it('keeps every amount a finite number and never negative, nested too', () => {
    expect(check(ledger, { Lines: [{ TaxAmount: -1 }] }).issues).toEqual([
      expect.objectContaining({ field: 'Lines[0].TaxAmount', code: 'too_small' }),
    ]);
    expect(check(ledger, { Amount: '5' }).issues[0]).toMatchObject({ field: 'Amount', code: 'invalid_type' });
  });

  it('covers every write tool of the demo books with its required fields', () => {
    const seed: Record<string, string[]> = {
      create_payment: ['AccountId', 'Amount', 'Applications'],
      create_invoice: ['ContactId', 'Lines'],
      create_bill: ['ContactId', 'Lines'],
      create_credit_note: ['ContactId', 'Lines'],
      update_invoice: ['InvoiceId'],
      update_bill: ['BillId'],
      void_invoice: ['InvoiceId'],
      delete_contact: ['ContactId'],
      send_invoice: ['InvoiceId', 'email'],
      approve_bill: ['BillId'],
      create_journal_entry: ['Lines'],
      update_payment: ['PaymentId'],
    };
    for (const [tool, fields] of Object.entries(seed)) {
      const books = demo.get(tool);
      expect(books, tool).toBeDefined();
      if (!books) continue;
      expect(check(books, {}).missingFields, tool).toEqual(fields);
      expect(check(books, {}).guardrails, tool).toEqual(['write_preflight_block']);
      // A schema that requires nothing: the rules by meaning do not invent what it leaves out.
      const open: ToolDefinition = { name: tool, isWrite: true, inputSchema: { type: 'object' } };
      expect(check(open, {}), tool).toMatchObject({ status: 'passed', missingFields: [] });
    }
  });
});

describe('schema compilation', () => {
  it('compiles once per schema and recompiles when the registry brings a changed schema', () => {
    const fresh = new SchemaCompiler();
    const v1: ToolDefinition = {
      name: 'get_things',
      isWrite: false,
      inputSchema: { type: 'object', properties: { Limit: { type: 'integer', maximum: 10 } } },
    };
    const first = fresh.compile(v1.name, v1.inputSchema);
    expect(fresh.compile(v1.name, v1.inputSchema)).toBe(first);
    // A refresh yields new objects: an unchanged schema reuses the compiled validator.
    expect(fresh.compile(v1.name, structuredClone(v1.inputSchema))).toBe(first);
    const v2 = { type: 'object', properties: { Limit: { type: 'integer', maximum: 100 } } };
    const second = fresh.compile(v1.name, v2);
    expect(second).not.toBe(first);
    const at = (schema: Record<string, unknown>) =>
      validateCall(
        { ...v1, inputSchema: schema },
        { tool: v1.name, args: { Limit: 50 }, callId: 'c', attempt: 1 },
        fresh,
        available,
      ).status;
    expect(at(v1.inputSchema)).toBe('blocked');
    expect(at(v2)).toBe('passed');
  });
});

describe('fallback questions', () => {
  it('asks in plain words for what is missing, from the field→question data', () => {
    const payment = check(demo.get('create_payment')!, { AccountId: randomUUID() });
    expect(payment.questions).toEqual([
      'Please confirm the exact amount.',
      'Which invoice should this payment apply to?',
    ]);
    expect(check(demo.get('create_bill')!, {}).questions).toEqual([
      'Which vendor is this for?',
      'What should it include (item, quantity and price)?',
    ]);
    const open: ToolDefinition = {
      name: 'create_widget',
      isWrite: true,
      inputSchema: { type: 'object', required: ['WidgetColour'] },
    };
    expect(check(open, {}).questions).toEqual(['What should the widget colour be?']);
    expect(check(demo.get('get_all_invoices')!, {}).questions).toBeUndefined();
  });
});
