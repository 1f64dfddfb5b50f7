import { randomUUID } from 'node:crypto';
import type { Bus } from '@munim/bus';
import type { AgentEvent, ToolDefinition, ValidateRequest, ValidationResult } from '@munim/contracts';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { buildValidator, type Validator } from '../src/app.ts';
import { loadEnv } from '../src/env.ts';
import { demoBooksDefinitions, log, newScope, recordEvents } from './helpers.ts';

const ACCOUNT = randomUUID();
const INVOICE = randomUUID();
const CONTACT = randomUUID();

/** Tools beyond the demo books: schemas that leave `additionalProperties` unsaid, and other write shapes. */
const extraTools: ToolDefinition[] = [
  {
    name: 'log_mood',
    inputSchema: {
      type: 'object',
      properties: {
        user_id: { type: 'string', maxLength: 50 },
        mood: { type: 'string', enum: ['happy', 'sad', 'neutral', 'anxious'] },
        energy_level: { type: 'integer', minimum: 1, maximum: 10 },
        notes: { type: 'string', maxLength: 500 },
        timestamp: { type: 'string', format: 'date-time' },
        meta: { type: 'object', properties: { source: { type: 'string' } } },
      },
      required: ['user_id', 'mood', 'energy_level', 'timestamp'],
    },
    annotations: { readOnlyHint: false },
    isWrite: true,
  },
  {
    name: 'adjust_ledger',
    inputSchema: { type: 'object', properties: { Amount: { type: 'number' }, Note: { type: 'string' } } },
    isWrite: true,
  },
  {
    name: 'merge_contacts',
    inputSchema: { type: 'object', properties: { From: { type: 'string' }, Into: { type: 'string' } } },
    annotations: { destructiveHint: true },
    isWrite: true,
  },
];

let served: ToolDefinition[] = [...demoBooksDefinitions(), ...extraTools];
let listRequests = 0;
let bus: Bus;
let validator: Validator;

test.beforeAll(async ({ nats }) => {
  bus = await nats.bus('validator');
  // The test plays the MCP executor's registry.
  bus.serve('toolsList', async () => {
    listRequests += 1;
    return { tools: served };
  });
  validator = await buildValidator({
    bus,
    log,
    config: { toolsTtlMs: 60_000, toolsRequestTimeoutMs: 2_000 },
  });
  await validator.start();
});

afterAll(async () => {
  await validator.stop();
});

async function validate(
  tool: string,
  input: Partial<Pick<ValidateRequest, 'args' | 'rawArgs'>>,
): Promise<{ result: ValidationResult; events: AgentEvent[] }> {
  const scope = newScope();
  const recorder = recordEvents(bus, scope.requestId);
  const result = await bus.request(
    'toolValidate',
    scope,
    { tool, callId: 'call-1', attempt: 1, ...input },
    { timeoutMs: 5_000 },
  );
  // The event is published before the reply; a flush makes sure it reached this connection.
  await bus.nc.flush();
  recorder.stop();
  return { result, events: recorder.events };
}

const payment = { AccountId: ACCOUNT, Amount: 5000, Applications: [{ InvoiceId: INVOICE, Amount: 5000 }] };
const line = { Description: 'Steel rods', Quantity: 10, UnitPrice: 450, TaxRate: 18 };

describe('backend cases of the write rules', () => {
  test('blocks create_payment without Amount and Applications, naming get_all_invoices', async () => {
    const { result, events } = await validate('create_payment', { args: { AccountId: ACCOUNT } });
    expect(result).toMatchObject({
      status: 'blocked',
      isWrite: true,
      missingFields: ['Amount', 'Applications'],
      fieldsValidated: ['AccountId'],
      issues: [],
      suggestedTools: ['get_all_invoices'],
      tier: 1,
      guardrails: ['write_preflight_block'],
    });
    expect(result.message).toBe(
      'Missing: Amount, Applications[]. Fetch the invoice first via get_all_invoices to obtain InvoiceId for Applications.',
    );
    expect(result.args).toBeUndefined();
    expect(events).toEqual([
      {
        type: 'write_validation',
        payload: {
          tool: 'create_payment',
          status: 'blocked',
          missing_fields: ['Amount', 'Applications'],
          errors: [],
          message: result.message,
          duration_ms: result.durationMs,
        },
      },
    ]);
  });

  test('blocks create_invoice without Lines', async () => {
    const { result } = await validate('create_invoice', { args: { ContactId: CONTACT } });
    expect(result).toMatchObject({
      status: 'blocked',
      missingFields: ['Lines'],
      fieldsValidated: ['ContactId'],
    });
    expect(result.message).toContain('Missing: Lines[].');
  });

  test('blocks void_invoice without InvoiceId as a tier 3 write', async () => {
    const { result } = await validate('void_invoice', { args: { Reason: 'duplicate' } });
    expect(result).toMatchObject({
      status: 'blocked',
      missingFields: ['InvoiceId'],
      tier: 3,
      suggestedTools: ['get_all_invoices'],
    });
    expect(result.message).toBe(
      'Missing: InvoiceId. Fetch the invoice first via get_all_invoices to obtain InvoiceId.',
    );
  });

  test('blocks an unbalanced journal entry and one with a single line', async () => {
    const unbalanced = await validate('create_journal_entry', {
      args: {
        Lines: [
          { AccountId: ACCOUNT, DebitAmount: 1000 },
          { AccountId: randomUUID(), CreditAmount: 900 },
        ],
      },
    });
    expect(unbalanced.result.status).toBe('blocked');
    expect(unbalanced.result.issues).toEqual([
      {
        field: 'Lines',
        expected: 'total debits equal to total credits',
        received: 'debits 1000, credits 900',
        code: 'unbalanced',
        message: 'Debits (1000) must equal Credits (900).',
      },
    ]);
    const single = await validate('create_journal_entry', {
      args: { Lines: [{ AccountId: ACCOUNT, DebitAmount: 5 }] },
    });
    expect(single.result.status).toBe('blocked');
    expect(single.result.issues).toHaveLength(1);
    expect(single.result.issues[0]).toMatchObject({ field: 'Lines', code: 'too_small' });
    const balanced = await validate('create_journal_entry', {
      args: {
        Lines: [
          { AccountId: ACCOUNT, DebitAmount: 1000.004 },
          { AccountId: randomUUID(), CreditAmount: 1000 },
        ],
      },
    });
    expect(balanced.result.status).toBe('passed');
  });

  test('passes a valid payment with its fields and a hash that ignores key order', async () => {
    const { result, events } = await validate('create_payment', { args: payment });
    expect(result).toMatchObject({
      status: 'passed',
      isWrite: true,
      args: payment,
      missingFields: [],
      issues: [],
      fieldsValidated: ['AccountId', 'Amount', 'Applications'],
      tier: 1,
      guardrails: [],
    });
    expect(result.argsHash).toMatch(/^[0-9a-f]{64}$/);
    expect(events).toEqual([
      {
        type: 'write_validation',
        payload: {
          tool: 'create_payment',
          status: 'passed',
          fields_validated: ['AccountId', 'Amount', 'Applications'],
          duration_ms: result.durationMs,
        },
      },
    ]);
    const reordered = await validate('create_payment', {
      args: { Applications: [{ Amount: 5000, InvoiceId: INVOICE }], Amount: 5000, AccountId: ACCOUNT },
    });
    expect(reordered.result.argsHash).toBe(result.argsHash);
    const other = await validate('create_payment', { args: { ...payment, Amount: 5001 } });
    expect(other.result.argsHash).not.toBe(result.argsHash);
  });
});

describe('schema checks reported as field issues', () => {
  test('rejects unknown fields, also where the schema does not say additionalProperties', async () => {
    const demo = await validate('create_invoice', {
      args: { ContactId: CONTACT, Lines: [line], Discount: 5 },
    });
    expect(demo.result.status).toBe('blocked');
    expect(demo.result.issues).toEqual([
      expect.objectContaining({ field: 'Discount', code: 'unrecognized_keys', received: 'Discount' }),
    ]);
    expect(demo.result.fieldsValidated).toEqual(['ContactId', 'Lines']);

    const mood = { user_id: 'u1', mood: 'happy', energy_level: 8, timestamp: '2025-10-05T14:30:00Z' };
    expect((await validate('log_mood', { args: mood })).result.status).toBe('passed');
    const extra = await validate('log_mood', {
      args: { ...mood, weather: 'sunny', meta: { source: 'app', device: 'x' } },
    });
    expect(extra.result.issues.map((i) => [i.field, i.code]).sort()).toEqual([
      ['meta.device', 'unrecognized_keys'],
      ['weather', 'unrecognized_keys'],
    ]);
  });

  test('reports enum, range, length and format errors with field, expected, received, code and message', async () => {
    const invoice = await validate('create_invoice', {
      args: { ContactId: CONTACT, Lines: [line], Status: 'PAID', Date: '05/10/2025' },
    });
    expect(invoice.result.issues).toEqual([
      {
        field: 'Date',
        expected: 'a date (YYYY-MM-DD)',
        received: '"05/10/2025"',
        code: 'invalid_format',
        message: `Field 'Date' must be a date (YYYY-MM-DD), but received "05/10/2025".`,
      },
      {
        field: 'Status',
        expected: 'one of: DRAFT, AUTHORISED',
        received: '"PAID"',
        code: 'invalid_enum_value',
        message: `Field 'Status' must be one of: DRAFT, AUTHORISED, but received "PAID".`,
      },
    ]);
    expect(invoice.result.message).toContain(`Field 'Status' must be one of: DRAFT, AUTHORISED`);

    const mood = await validate('log_mood', {
      args: {
        user_id: 'u1',
        mood: 'ecstatic',
        energy_level: 15,
        notes: 'n'.repeat(501),
        timestamp: '2025-10-05 14:30',
      },
    });
    const byField = Object.fromEntries(mood.result.issues.map((i) => [i.field, i]));
    expect(byField.energy_level).toEqual({
      field: 'energy_level',
      expected: 'integer between 1 and 10',
      received: '15',
      code: 'too_big',
      message: "Field 'energy_level' must be between 1 and 10, but received 15.",
    });
    expect(byField.mood).toMatchObject({
      code: 'invalid_enum_value',
      expected: 'one of: happy, sad, neutral, anxious',
    });
    expect(byField.notes).toMatchObject({
      code: 'too_big',
      message: "Field 'notes' exceeds maximum length of 500 characters.",
    });
    expect(byField.timestamp).toMatchObject({ code: 'invalid_format', received: '"2025-10-05 14:30"' });

    const send = await validate('send_invoice', { args: { InvoiceId: INVOICE, email: 'not-an-email' } });
    expect(send.result.issues).toEqual([
      expect.objectContaining({ field: 'email', code: 'invalid_format', expected: 'an email address' }),
    ]);
    expect(send.result.tier).toBe(2);
  });

  test('checks nested arrays and objects by path', async () => {
    const { result } = await validate('create_payment', {
      args: { ...payment, Applications: [{ InvoiceId: INVOICE, Amount: 'lots' }, { Amount: 10 }] },
    });
    expect(result.status).toBe('blocked');
    expect(result.missingFields).toEqual(['Applications[1].InvoiceId']);
    expect(result.issues).toEqual([
      expect.objectContaining({
        field: 'Applications[0].Amount',
        code: 'invalid_type',
        expected: 'number',
        received: 'string',
      }),
    ]);
    expect(result.message).toContain('Fetch the invoice first via get_all_invoices to obtain InvoiceId.');
  });

  test('treats null and "" of a required field as missing, and null of an optional field as a type error', async () => {
    const cases = [{}, { ContactId: null }, { ContactId: '' }];
    for (const args of cases) {
      const { result } = await validate('create_invoice', { args: { ...args, Lines: [line] } });
      expect(result.missingFields).toEqual(['ContactId']);
      expect(result.issues).toEqual([]);
      expect(result.suggestedTools).toEqual(['get_all_customers']);
    }
    const optionalNull = await validate('create_invoice', {
      args: { ContactId: CONTACT, Lines: [line], Reference: null },
    });
    expect(optionalNull.result.issues).toEqual([
      expect.objectContaining({
        field: 'Reference',
        code: 'invalid_type',
        expected: 'string',
        received: 'null',
      }),
    ]);
    const optionalEmpty = await validate('create_invoice', {
      args: { ContactId: CONTACT, Lines: [line], Reference: '' },
    });
    expect(optionalEmpty.result.status).toBe('passed');
    expect(optionalEmpty.result.fieldsValidated).toEqual(['ContactId', 'Lines', 'Reference']);
    const emptyArray = await validate('create_invoice', { args: { ContactId: CONTACT, Lines: [] } });
    expect(emptyArray.result).toMatchObject({ missingFields: ['Lines'], issues: [] });
  });

  test('keeps amounts finite and not negative, and a payment amount above zero', async () => {
    const negative = await validate('adjust_ledger', { args: { Amount: -5 } });
    expect(negative.result.issues).toEqual([expect.objectContaining({ field: 'Amount', code: 'too_small' })]);
    expect((await validate('adjust_ledger', { args: { Amount: 0 } })).result.status).toBe('passed');
    const zeroPayment = await validate('create_payment', { args: { ...payment, Amount: 0 } });
    expect(zeroPayment.result.issues).toEqual([
      expect.objectContaining({ field: 'Amount', code: 'too_small' }),
    ]);
    const textAmount = await validate('create_journal_entry', {
      args: {
        Lines: [
          { AccountId: ACCOUNT, DebitAmount: '100' },
          { AccountId: ACCOUNT, CreditAmount: 100 },
        ],
      },
    });
    expect(textAmount.result.issues).toContainEqual(
      expect.objectContaining({ field: 'Lines[0].DebitAmount', code: 'invalid_type' }),
    );
  });
});

describe('arguments as text', () => {
  test('repairs malformed JSON and says so', async () => {
    const raw = `{AccountId: '${ACCOUNT}', Amount: 5000, Applications: [{InvoiceId: '${INVOICE}', Amount: 5000}],}`;
    const { result } = await validate('create_payment', { rawArgs: raw });
    expect(result).toMatchObject({ status: 'passed', args: payment, guardrails: ['json_repaired'] });
    const clean = await validate('create_payment', { rawArgs: JSON.stringify(payment) });
    expect(clean.result).toMatchObject({ status: 'passed', guardrails: [] });
    expect(clean.result.argsHash).toBe(result.argsHash);
  });

  test('blocks text that is not a JSON object even after repair', async () => {
    const prose = await validate('create_payment', { rawArgs: 'record the payment please' });
    expect(prose.result).toMatchObject({ status: 'blocked', missingFields: [] });
    expect(prose.result.issues).toEqual([
      expect.objectContaining({ field: '(arguments)', code: 'invalid_type', received: 'string' }),
    ]);
    expect(prose.result.message).toMatch(/must be a JSON object/);
    const broken = await validate('get_all_invoices', {
      rawArgs: '{"Status": "PAID"} and also the overdue ones',
    });
    expect(broken.result.issues).toEqual([expect.objectContaining({ code: 'invalid_json' })]);
    expect(broken.result.message).toMatch(/not valid JSON and could not be repaired/);
  });

  test('takes null and absent arguments as {}', async () => {
    const none = await validate('get_all_invoices', {});
    const nulled = await validate('get_all_invoices', { args: null });
    expect(none.result).toMatchObject({ status: 'passed', args: {}, fieldsValidated: [] });
    expect(nulled.result.argsHash).toBe(none.result.argsHash);
  });
});

describe('reads, tiers and the registry', () => {
  test('validates reads without a write_validation event', async () => {
    const ok = await validate('get_all_invoices', { args: { Status: 'OVERDUE', PageSize: 10 } });
    expect(ok.result).toMatchObject({
      status: 'passed',
      isWrite: false,
      tier: 0,
      fieldsValidated: ['PageSize', 'Status'],
    });
    expect(ok.events).toEqual([]);
    const bad = await validate('get_all_invoices', { args: { PageSize: 500 } });
    expect(bad.result).toMatchObject({ status: 'blocked', isWrite: false, guardrails: [] });
    expect(bad.result.issues).toEqual([
      expect.objectContaining({ field: 'PageSize', code: 'too_big', expected: 'integer between 1 and 200' }),
    ]);
    expect(bad.events).toEqual([]);
  });

  test('assigns confirmation tiers from the rules data and the annotations', async () => {
    const tier = async (tool: string, args: Record<string, unknown>) =>
      (await validate(tool, { args })).result.tier;
    expect(await tier('create_invoice', {})).toBe(1);
    expect(await tier('update_invoice', { InvoiceId: INVOICE })).toBe(2);
    expect(await tier('approve_bill', {})).toBe(3);
    expect(await tier('delete_contact', { ContactId: CONTACT })).toBe(3);
    expect(await tier('merge_contacts', {})).toBe(3);
    expect(await tier('create_customer', { Name: 'Acme' })).toBe(1);
  });

  test('blocks an unknown tool naming it and nothing else', async () => {
    const { result, events } = await validate('make_coffee', { args: { sugar: 2 } });
    expect(result).toMatchObject({
      status: 'blocked',
      isWrite: false,
      missingFields: [],
      issues: [],
      suggestedTools: [],
      message: 'TOOL_NOT_FOUND: there is no tool named "make_coffee".',
    });
    expect(events).toEqual([]);
  });

  test('uses the cached registry and refetches it when a tool is unknown', async () => {
    await validate('get_bills', {});
    const before = listRequests;
    await validate('get_bills', {});
    expect(listRequests).toBe(before);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    served = [
      ...served,
      { name: 'get_gst_returns', inputSchema: { type: 'object', properties: {} }, isWrite: false },
    ];
    const { result } = await validate('get_gst_returns', {});
    expect(result.status).toBe('passed');
    expect(listRequests).toBe(before + 1);
  });

  test('reads its settings from the environment', () => {
    expect(loadEnv({})).toMatchObject({ VALIDATOR_TOOLS_TTL_MS: 60_000, TOOLS_REQUEST_TIMEOUT_MS: 5_000 });
    expect(() => loadEnv({ VALIDATOR_TOOLS_TTL_MS: '-1' })).toThrow(/VALIDATOR_TOOLS_TTL_MS/);
    expect(loadEnv({})).toMatchObject({ TOOL_COLLAPSE: 'auto', TOOL_COLLAPSE_THRESHOLD: 40 });
    expect(loadEnv({}).LLM_MODEL).toBeUndefined();
    expect(
      loadEnv({ TOOL_COLLAPSE: 'always', OPENAI_BASE_URL: 'http://x/v1', LLM_MODEL: 'm' }),
    ).toMatchObject({
      TOOL_COLLAPSE: 'always',
      LLM_MODEL: 'm',
    });
    expect(() => loadEnv({ TOOL_COLLAPSE: 'sometimes' })).toThrow(/TOOL_COLLAPSE/);
    expect(() => loadEnv({ OPENAI_BASE_URL: 'ftp://x' })).toThrow(/OPENAI_BASE_URL/);
  });
});
