import { randomUUID } from 'node:crypto';
import type { Bus } from '@munim/bus';
import { contentText, type ScriptedLlm, startScriptedLlm } from '@munim/scripted-llm';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { buildValidator, createLlmCorrector, type Validator } from '../src/app.ts';
import { demoBooksDefinitions, log, newScope, recordEvents } from './helpers.ts';

const SYSTEM = { conversationId: 'system', entityId: 'system', orgId: 'system' };

const ACCOUNT = randomUUID();
const INVOICE = randomUUID();
const payment = { AccountId: ACCOUNT, Amount: 5000, Applications: [{ InvoiceId: INVOICE, Amount: 5000 }] };
let registry = demoBooksDefinitions();

let llm: ScriptedLlm;
let bus: Bus;
let validator: Validator;

test.beforeAll(async ({ nats }) => {
  llm = await startScriptedLlm({ model: 'fixer' });
  bus = await nats.bus('validator');
  bus.serve('toolsList', async () => ({ tools: registry }));
  validator = await buildValidator({
    bus,
    log,
    config: { toolsTtlMs: 60_000, toolsRequestTimeoutMs: 2_000, collapse: 'never', collapseThreshold: 40 },
    corrector: createLlmCorrector({
      baseURL: llm.baseURL,
      model: 'fixer',
      timeoutMs: 5_000,
      maxTokens: 1024,
    }),
  });
  await validator.start();
});

afterAll(async () => {
  await validator.stop();
  await llm.close();
});

const lastUser = (body: { messages: { role: string; content?: unknown }[] }) =>
  contentText(body.messages.findLast((m) => m.role === 'user')?.content as never);

describe('containers over the bus', () => {
  test('offers containers per group when asked to collapse, and the tools as they are when not', async () => {
    const scope = newScope();
    const collapsed = await bus.request(
      'toolsContainers',
      scope,
      { collapse: 'always', groups: ['invoices', 'payments'] },
      { timeoutMs: 5_000 },
    );
    expect(collapsed.collapsed).toBe(true);
    expect(collapsed.containers.map((c) => c.name)).toEqual(['invoices', 'payments']);
    expect(collapsed.containers[1]?.functions).toEqual([
      'get_all_payments',
      'create_payment',
      'create_bill_payment',
      'update_payment',
    ]);
    // Tools of the groups not asked for stay outside the containers, offered as themselves.
    expect(collapsed.tools.map((t) => t.name)).toContain('get_bills');
    expect(collapsed.tools.map((t) => t.name)).not.toContain('get_all_invoices');

    const plain = await bus.request('toolsContainers', scope, {}, { timeoutMs: 5_000 });
    expect(plain).toMatchObject({ collapsed: false, containers: [] });
    expect(plain.tools).toHaveLength(registry.length);

    const selected = await bus.request(
      'toolsContainers',
      scope,
      { collapse: 'always', tools: ['get_bills', 'create_bill', 'get_profit_loss'] },
      { timeoutMs: 5_000 },
    );
    expect(selected.containers.map((c) => [c.name, c.functions])).toEqual([
      ['bills', ['get_bills', 'create_bill']],
      ['reports_pnl', ['get_profit_loss']],
    ]);
  });

  test('answers a container call: expand with no arguments, the container invocation error with arguments', async () => {
    const scope = newScope();
    const recorder = recordEvents(bus, scope.requestId);
    const expand = await bus.request(
      'toolValidate',
      scope,
      { tool: 'invoices', args: {}, callId: 'c1', attempt: 1 },
      { timeoutMs: 5_000 },
    );
    expect(expand).toMatchObject({
      status: 'blocked',
      isWrite: false,
      tier: 0,
      container: { name: 'invoices', expand: true },
      guardrails: [],
    });
    expect(expand.container?.functions).toContain('create_invoice');
    expect(expand.suggestedTools).toEqual(expand.container?.functions);

    const refused = await bus.request(
      'toolValidate',
      scope,
      { tool: 'invoices', args: { function: 'get_all_invoice', Status: 'PAID' }, callId: 'c2', attempt: 1 },
      { timeoutMs: 5_000 },
    );
    expect(refused).toMatchObject({
      status: 'blocked',
      guardrails: ['container_invocation_error'],
      container: {
        name: 'invoices',
        expand: false,
        error: {
          error_type: 'container_invocation_error',
          attempted_parameters: { function: 'get_all_invoice', Status: 'PAID' },
          suggested_function: 'get_all_invoices',
        },
      },
    });
    expect(refused.message).toContain("First call 'invoices' with NO arguments");

    const dotted = await bus.request(
      'toolValidate',
      scope,
      { tool: 'payments.create_payment', args: payment, callId: 'c3', attempt: 1 },
      { timeoutMs: 5_000 },
    );
    expect(dotted.container?.error?.suggested_function).toBe('create_payment');
    await bus.nc.flush();
    recorder.stop();
    // A container call is no write: nothing to record as write_validation.
    expect(recorder.events).toEqual([]);
  });
});

describe('one JSON correction by the LLM', () => {
  test('corrects arguments that jsonrepair cannot make an object, once, at temperature 0.1, then validates them', async () => {
    llm.script({
      name: 'fix-args',
      match: 'set of arguments for the tool create_payment',
      turns: [{ content: `\`\`\`json\n${JSON.stringify(payment)}\n\`\`\`` }],
    });
    const before = llm.requests.length;
    const scope = newScope();
    const result = await bus.request(
      'toolValidate',
      scope,
      {
        tool: 'create_payment',
        rawArgs: `AccountId is ${ACCOUNT} and the Amount is 5000 for invoice ${INVOICE}`,
        callId: 'c',
        attempt: 1,
      },
      { timeoutMs: 10_000 },
    );
    expect(result).toMatchObject({ status: 'passed', args: payment, guardrails: ['json_llm_corrected'] });
    const asked = llm.requests.slice(before);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.body.temperature).toBe(0.1);
    const prompt = lastUser(asked[0]!.body);
    expect(prompt).toContain('"Applications"');
    expect(prompt).toContain(`the Amount is 5000 for invoice ${INVOICE}`);
  });

  test('blocks when the correction is still wrong, naming what is wrong', async () => {
    llm.script({
      name: 'bad-fix',
      match: 'set of arguments for the tool void_invoice',
      turns: [{ content: '{"InvoiceId": "not-a-uuid"}' }],
    });
    const result = await bus.request(
      'toolValidate',
      newScope(),
      { tool: 'void_invoice', rawArgs: 'void that one please', callId: 'c', attempt: 1 },
      { timeoutMs: 10_000 },
    );
    expect(result.status).toBe('blocked');
    expect(result.guardrails).toEqual(['json_llm_corrected', 'write_preflight_block']);
    expect(result.issues[0]).toMatchObject({ field: 'InvoiceId', code: 'invalid_format' });
  });

  test('does not ask the LLM for arguments that parse or that jsonrepair fixes', async () => {
    const before = llm.requests.length;
    const repaired = await bus.request(
      'toolValidate',
      newScope(),
      { tool: 'get_all_invoices', rawArgs: "{Status: 'PAID',}", callId: 'c', attempt: 1 },
      { timeoutMs: 5_000 },
    );
    expect(repaired).toMatchObject({ status: 'passed', guardrails: ['json_repaired'] });
    expect(llm.requests.length).toBe(before);
  });

  test('repairs the blocks of an answer over the bus, with the LLM for a block that breaks its schema', async () => {
    llm.script({
      name: 'fix-block',
      match: '`clarification` block',
      turns: [
        {
          content:
            '{"question":"Which customer?","type":"radio","options":[{"label":"Acme","value":"acme"},{"label":"Globex","value":"globex"}]}',
        },
      ],
    });
    const text = [
      'Which one do you mean?',
      '```clarification',
      '{"question":"Which customer?","options":[{"label":"Acme","value":"acme"}, {"label":"Globex"}]}',
      '```',
      '```params',
      "{operation: 'Record Payment', applied: [], pending: [{label: 'Amount'}]}",
      '```',
    ].join('\n');
    const out = await bus.request('answerBlocks', newScope(), { text }, { timeoutMs: 10_000 });
    expect(out.blocks).toEqual([
      { kind: 'clarification', outcome: 'llm_corrected' },
      { kind: 'params', outcome: 'repaired' },
    ]);
    expect(out.guardrails.sort()).toEqual(['json_llm_corrected', 'json_repaired']);
    expect(out.text).toContain('"value":"globex"');
    expect(out.text).toContain('{"operation":"Record Payment","applied":[],"pending":[{"label":"Amount"}]}');
  });
});

describe('registry changes', () => {
  test('refetches and recompiles when the executor announces a changed registry', async () => {
    const call = () =>
      bus.request(
        'toolValidate',
        newScope(),
        { tool: 'get_all_invoices', args: { Colour: 'red' }, callId: 'c', attempt: 1 },
        { timeoutMs: 5_000 },
      );
    expect((await call()).status).toBe('blocked');
    registry = registry.map((t) =>
      t.name === 'get_all_invoices'
        ? { ...t, inputSchema: { ...t.inputSchema, properties: { Colour: { type: 'string' } } } }
        : t,
    );
    // Within the 60 s TTL the cached registry still answers.
    expect((await call()).status).toBe('blocked');
    const notice = {
      id: randomUUID(),
      requestId: randomUUID(),
      ...SYSTEM,
      service: 'mcp-executor',
      ts: new Date().toISOString(),
      data: {
        reason: 'list_changed',
        added: [],
        removed: [],
        changed: ['get_all_invoices'],
        total: registry.length,
      },
    };
    bus.nc.publish(bus.subject('toolsChanged'), JSON.stringify(notice));
    bus.nc.publish(bus.subject('toolsChanged'), 'not json');
    await expect.poll(async () => (await call()).status, { timeout: 5_000 }).toBe('passed');
  });
});
