import type { ToolAccess, ToolDefinition } from '@munim/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SchemaCompiler, validateCall } from '../src/app.ts';

// The server's schema decides what is required. The rules by meaning check what is
// sent or required; they never demand what the schema leaves optional.

const compiler = new SchemaCompiler();
type Schema = Record<string, unknown>;

const write = (name: string, inputSchema: Schema, access?: Partial<ToolAccess>): ToolDefinition => ({
  name,
  isWrite: true,
  inputSchema,
  ...(access ? { access: { kind: 'write', tier: 1, reason: 'policy', ...access } as ToolAccess } : {}),
});
const check = (definition: ToolDefinition, args: Record<string, unknown>) =>
  validateCall(definition, { tool: definition.name, args, callId: 'c', attempt: 1 }, compiler, new Set());

const str = { type: 'string' };
const num = { type: 'number' };
const lines = { type: 'array', items: { type: 'object', additionalProperties: true } };

describe('what a schema requires, through its shapes', () => {
  it('a field an allOf branch requires is demanded; one only some anyOf/oneOf branches require is not', () => {
    const allOf = write('create_payment', {
      type: 'object',
      properties: { AccountId: str, Amount: num },
      allOf: [{ required: ['AccountId'] }],
    });
    expect(check(allOf, { Amount: 5 }).missingFields).toEqual(['AccountId']);

    // A cash payment names no bank account; a bank payment must.
    const byMethod = write('receive_payment', {
      type: 'object',
      properties: { amount: num, method: { enum: ['cash', 'bank'] }, deposit_account_id: str },
      required: ['amount', 'method'],
      oneOf: [
        { properties: { method: { const: 'cash' } } },
        { properties: { method: { const: 'bank' } }, required: ['deposit_account_id'] },
      ],
    });
    expect(check(byMethod, { amount: 5, method: 'cash' }).status).toBe('passed');
    expect(check(byMethod, { amount: 5, method: 'bank' }).missingFields).toEqual(['deposit_account_id']);
    // Still a payment: what is sent is checked.
    expect(check(byMethod, { amount: 0, method: 'cash' }).issues).toEqual([
      expect.objectContaining({ field: 'amount', code: 'too_small' }),
    ]);

    // Stripe's refund names a charge or a payment intent: either will do, neither will not.
    const refund = write('create_refund', {
      type: 'object',
      properties: { charge: str, payment_intent: str, amount: { type: 'integer' } },
      anyOf: [{ required: ['charge'] }, { required: ['payment_intent'] }],
    });
    expect(check(refund, { payment_intent: 'pi_1' }).status).toBe('passed');
    expect(check(refund, { charge: 'ch_1', amount: 500 }).status).toBe('passed');
    expect(check(refund, { amount: 500 }).status).toBe('blocked');
  });

  it('a nested field is demanded only under a parent that is required or sent, through $refs', () => {
    const schema = (parentRequired: boolean): Schema => ({
      type: 'object',
      $defs: {
        Payment: {
          type: 'object',
          properties: { account_id: str, amount: num, memo: str },
          required: ['account_id', 'amount'],
        },
      },
      properties: { payment: { $ref: '#/$defs/Payment' }, notify: { type: 'boolean' } },
      required: parentRequired ? ['payment'] : [],
    });
    const required = write('create_payment', schema(true));
    expect(check(required, {}).missingFields).toEqual(['payment']);
    expect(check(required, { payment: { amount: 5 } }).missingFields).toEqual(['payment.account_id']);
    expect(check(required, { payment: { account_id: 'a', amount: 0 } }).issues).toEqual([
      expect.objectContaining({ field: 'payment.amount', code: 'too_small' }),
    ]);
    const optional = write('create_payment', schema(false));
    expect(check(optional, { notify: true }).status).toBe('passed');
    expect(check(optional, { payment: { amount: 5 } }).missingFields).toEqual(['payment.account_id']);
  });

  it('a schema that lists no properties demands only what it requires, and checks what is sent', () => {
    const bare = write('create_payment', { type: 'object', required: ['Amount'] });
    expect(check(bare, {}).missingFields).toEqual(['Amount']);
    expect(check(bare, { Amount: 0 }).issues).toEqual([
      expect.objectContaining({ field: 'Amount', code: 'too_small', expected: 'number > 0' }),
    ]);
    expect(check(bare, { Amount: 5 }).status).toBe('passed');

    const open = write('create_journal_entry', { type: 'object', additionalProperties: true });
    expect(check(open, {}).status).toBe('passed');
    expect(check(open, { Lines: [] }).missingFields).toEqual(['Lines']);
    const entry = (credit: number) => ({ Lines: [{ DebitAmount: 10 }, { CreditAmount: credit }] });
    expect(check(open, entry(10)).status).toBe('passed');
    expect(check(open, entry(9)).issues).toEqual([
      expect.objectContaining({ field: 'Lines', code: 'unbalanced' }),
    ]);
  });

  it("keeps the operator's required and non-empty fields, which are the operator's decision", () => {
    const schema = { type: 'object', properties: { AccountId: str, Amount: num, Applications: lines } };
    expect(check(write('create_payment', schema), { Amount: 5 }).status).toBe('passed');
    const policy = write('create_payment', schema, {
      rules: { required: ['AccountId'], nonEmpty: ['Applications'] },
    });
    expect(check(policy, { Amount: 5 })).toMatchObject({
      status: 'blocked',
      missingFields: ['AccountId', 'Applications'],
      message: 'Missing: AccountId, Applications[].',
    });
  });

  it('reads draft-04 and Python-style schemas rather than leaving their writes unchecked', () => {
    const draft4 = write('create_payment', {
      $schema: 'http://json-schema.org/draft-04/schema#',
      id: 'urn:books:payment',
      type: 'object',
      properties: {
        amount: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 100, exclusiveMaximum: false },
      },
      required: ['amount'],
    });
    expect(check(draft4, { amount: 100 })).toMatchObject({ status: 'passed', guardrails: [] });
    expect(check(draft4, { amount: 0 }).issues).toEqual([
      expect.objectContaining({ field: 'amount', code: 'too_small' }),
    ]);
    expect(check(draft4, { amount: 100.5 }).issues).toEqual([
      expect.objectContaining({ field: 'amount', code: 'too_big' }),
    ]);

    const python = write('create_item', {
      type: 'object',
      properties: { sku: { type: 'string', pattern: '^[\\w\\_-]+$' } },
    });
    expect(check(python, { sku: 'DESK_01' }).status).toBe('passed');
    expect(check(python, { sku: 'DESK 01' }).issues).toEqual([
      expect.objectContaining({ field: 'sku', code: 'invalid_format' }),
    ]);
    // What no engine reads is no schema: the write is blocked.
    const named = write('create_item', {
      type: 'object',
      properties: { sku: { type: 'string', pattern: '^(?P<sku>\\w+)$' } },
    });
    expect(check(named, { sku: 'DESK_01' }).issues).toEqual([
      expect.objectContaining({ field: '(arguments)', code: 'schema_unavailable' }),
    ]);
  });
});

// ── Generated: tools of every kind with rules by meaning, each field required or not ────────────

const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
/** A field's words in a naming style. */
const spell = (words: string[], style: number) =>
  style === 0
    ? words.join('_')
    : style === 1
      ? words.map(cap).join('')
      : words[0] + words.slice(1).map(cap).join('');

type Kind = 'payment' | 'transfer' | 'document' | 'removal';
interface FieldSpec {
  spellings: string[][];
  schema: Schema;
  value: unknown;
}
const ID: Schema = str;
const FIELDS: Record<string, FieldSpec> = {
  account: {
    spellings: [
      ['account', 'id'],
      ['deposit', 'to', 'account'],
      ['bank', 'account', 'id'],
      ['paid', 'through', 'account', 'id'],
    ],
    schema: ID,
    value: 'ACC-7',
  },
  amount: {
    spellings: [['amount'], ['total', 'amt'], ['amount', 'paid'], ['payment', 'amount']],
    schema: num,
    value: 250,
  },
  applications: {
    spellings: [['applications'], ['invoices'], ['allocations']],
    schema: lines,
    value: [{ invoice_id: 'INV-1', amount: 250 }],
  },
  fromAccount: {
    spellings: [
      ['from', 'account', 'id'],
      ['source', 'account', 'ref'],
    ],
    schema: ID,
    value: 'ACC-1',
  },
  toAccount: {
    spellings: [
      ['to', 'account', 'id'],
      ['destination', 'account', 'ref'],
    ],
    schema: ID,
    value: 'ACC-2',
  },
  contact: {
    spellings: [
      ['customer', 'id'],
      ['contact', 'id'],
      ['vendor', 'ref'],
      ['customer', 'ref'],
    ],
    schema: ID,
    value: 'C-9',
  },
  lines: {
    spellings: [['lines'], ['line', 'items'], ['items']],
    schema: lines,
    value: [{ description: 'Design work', quantity: 2, unit_price: 120 }],
  },
  recordId: { spellings: [['invoice', 'id'], ['id']], schema: ID, value: 'INV-42' },
  memo: { spellings: [['memo'], ['reference']], schema: str, value: 'May rent' },
};
const KINDS: Record<Kind, { names: string[]; fields: string[] }> = {
  payment: {
    names: [
      'create_payment',
      'receive_payment',
      'recordPayment',
      'payments.create',
      'pay_bill',
      'create-bill-payment',
    ],
    fields: ['account', 'amount', 'applications', 'memo'],
  },
  transfer: {
    names: ['create_transfer', 'transfer_funds', 'transferMoney'],
    fields: ['fromAccount', 'toAccount', 'amount', 'memo'],
  },
  document: {
    names: ['create_invoice', 'createBill', 'add-credit-note', 'raise_quote'],
    fields: ['contact', 'lines', 'memo'],
  },
  removal: { names: ['void_invoice', 'delete-invoice', 'cancelInvoice'], fields: ['recordId', 'memo'] },
};

const arbitraryTool = fc
  .constantFrom(...(Object.keys(KINDS) as Kind[]))
  .chain((kind) =>
    fc.record({
      name: fc.constantFrom(...KINDS[kind].names),
      fields: fc.tuple(
        ...KINDS[kind].fields.map((concept) =>
          fc.record({
            concept: fc.constant(concept),
            words: fc.constantFrom(...(FIELDS[concept]?.spellings ?? [])),
            style: fc.integer({ min: 0, max: 2 }),
            required: fc.boolean(),
            sent: fc.boolean(),
          }),
        ),
      ),
    }),
  )
  .map(({ name, fields }) => {
    const named = fields.map((f) => ({
      ...f,
      field: spell(f.words, f.style),
      spec: FIELDS[f.concept] as FieldSpec,
    }));
    const definition = write(name, {
      type: 'object',
      properties: Object.fromEntries(named.map((f) => [f.field, f.spec.schema])),
      required: named.filter((f) => f.required).map((f) => f.field),
      additionalProperties: false,
    });
    return { definition, fields: named };
  });

describe('generated tools: the schema decides what is required', () => {
  it('passes, untouched, every call that sends what the schema requires, whatever it leaves out', () => {
    fc.assert(
      fc.property(arbitraryTool, ({ definition, fields }) => {
        const args = Object.fromEntries(
          fields.filter((f) => f.required || f.sent).map((f) => [f.field, structuredClone(f.spec.value)]),
        );
        const result = check(definition, args);
        expect(result, JSON.stringify({ tool: definition.name, args })).toMatchObject({
          status: 'passed',
          missingFields: [],
          args,
        });
      }),
      { seed: 2026, numRuns: 400 },
    );
  });

  it('blocks every call that leaves out a field the schema requires, naming it, and never names an optional one', () => {
    fc.assert(
      fc.property(arbitraryTool, fc.nat(), ({ definition, fields }, pick) => {
        const required = fields.filter((f) => f.required);
        fc.pre(required.length > 0);
        const dropped = required[pick % required.length];
        const args = Object.fromEntries(
          fields
            .filter((f) => (f.required || f.sent) && f !== dropped)
            .map((f) => [f.field, structuredClone(f.spec.value)]),
        );
        const result = check(definition, args);
        expect(result.status).toBe('blocked');
        expect(result.missingFields).toEqual([dropped?.field]);
      }),
      { seed: 2026, numRuns: 400 },
    );
  });

  it('still checks what is sent: an amount of zero or empty lines are blocked where the field is optional', () => {
    fc.assert(
      fc.property(arbitraryTool, ({ definition, fields }) => {
        const target = fields.find(
          (f) => f.concept === 'amount' || f.concept === 'lines' || f.concept === 'applications',
        );
        fc.pre(target !== undefined && !target.required);
        const args = Object.fromEntries(
          fields.filter((f) => f.required).map((f) => [f.field, structuredClone(f.spec.value)]),
        );
        const bad = target?.concept === 'amount' ? 0 : [];
        const result = check(definition, { ...args, [target?.field as string]: bad });
        expect(result.status).toBe('blocked');
        expect([...result.missingFields, ...result.issues.map((i) => i.field)]).toContain(target?.field);
      }),
      { seed: 2026, numRuns: 300 },
    );
  });
});
