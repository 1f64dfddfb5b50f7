// The validator's LLM corrections spend no more model tokens than the agent held
// for them in the tenant's quota (`correctionTokens`), each with its own max_tokens, and the reply
// says what they spent (`correctionUsage`), which the agent settles against the tenant. Real NATS
// and the scripted OpenAI-compatible model.
import { randomUUID } from 'node:crypto';
import type { Bus } from '@munim/bus';
import { type ScriptedLlm, startScriptedLlm } from '@munim/scripted-llm';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { buildValidator, createLlmCorrector, type Validator } from '../src/app.ts';
import { demoBooksDefinitions, log, newScope } from './helpers.ts';

const MAX_TOKENS = 1024;
const ACCOUNT = randomUUID();
const INVOICE = randomUUID();
const payment = { AccountId: ACCOUNT, Amount: 5000, Applications: [{ InvoiceId: INVOICE, Amount: 5000 }] };

let llm: ScriptedLlm;
let bus: Bus;
let validator: Validator;

test.beforeAll(async ({ nats }) => {
  llm = await startScriptedLlm({ model: 'fixer' });
  bus = await nats.bus('validator');
  bus.serve('toolsList', async () => ({ tools: demoBooksDefinitions() }));
  validator = await buildValidator({
    bus,
    log,
    config: { toolsTtlMs: 60_000, toolsRequestTimeoutMs: 2_000, collapse: 'never', collapseThreshold: 40 },
    corrector: createLlmCorrector({
      baseURL: llm.baseURL,
      model: 'fixer',
      timeoutMs: 5_000,
      maxTokens: MAX_TOKENS,
    }),
  });
  await validator.start();
});

afterAll(async () => {
  await validator.stop();
  await llm.close();
});

/** A payment in words: no JSON, so only the LLM can make arguments of it. */
function paymentInWords(marker: string) {
  llm.script({
    match: marker,
    turns: [{ content: JSON.stringify(payment) }],
    repeat: true,
  });
  return {
    tool: 'create_payment',
    rawArgs: `AccountId is ${ACCOUNT} and the Amount is 5000 for invoice ${INVOICE} (${marker})`,
    callId: 'c',
    attempt: 1,
  };
}

describe('the tokens of an LLM correction of arguments', () => {
  test('makes the correction with its max_tokens and reports what it spent, within what was held', async () => {
    const marker = randomUUID();
    const result = await bus.request(
      'toolValidate',
      newScope(),
      { ...paymentInWords(marker), correctionTokens: 50_000 },
      { timeoutMs: 10_000 },
    );
    expect(result).toMatchObject({ status: 'passed', args: payment, guardrails: ['json_llm_corrected'] });
    const asked = llm.requestsFor(marker);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.body.max_tokens).toBe(MAX_TOKENS);
    const usage = result.correctionUsage;
    expect(usage?.input_tokens).toBeGreaterThan(0);
    expect(usage?.output_tokens).toBeGreaterThan(0);
    expect(usage?.total_tokens).toBe((usage?.input_tokens ?? 0) + (usage?.output_tokens ?? 0));
  });

  test('does not make a correction that the tokens held cannot cover, and reports nothing spent', async () => {
    const marker = randomUUID();
    const result = await bus.request(
      'toolValidate',
      newScope(),
      // Its max_tokens alone is more than was held.
      { ...paymentInWords(marker), correctionTokens: MAX_TOKENS },
      { timeoutMs: 10_000 },
    );
    expect(llm.requestsFor(marker)).toHaveLength(0);
    expect(result.status).toBe('blocked');
    expect(result.guardrails).not.toContain('json_llm_corrected');
    expect(result.issues[0]?.field).toBe('(arguments)');
    expect(result.correctionUsage).toBeUndefined();
  });

  test('reports no usage for arguments that needed no correction', async () => {
    const result = await bus.request(
      'toolValidate',
      newScope(),
      { tool: 'create_payment', args: payment, callId: 'c', attempt: 1, correctionTokens: 50_000 },
      { timeoutMs: 10_000 },
    );
    expect(result.status).toBe('passed');
    expect(result.correctionUsage).toBeUndefined();
  });
});

describe('the tokens of the LLM corrections of answer blocks', () => {
  test('makes only the corrections the tokens held cover, and reports what they spent together', async () => {
    const marker = randomUUID();
    llm.script({
      match: marker,
      repeat: true,
      turns: [
        {
          content:
            '{"question":"Which customer?","type":"radio","options":[{"label":"Acme","value":"acme"},{"label":"Globex","value":"globex"}]}',
        },
      ],
    });
    const broken = (n: number) =>
      `\`\`\`clarification\n{"question":"Which customer? ${marker} ${n}","options":[{"label":"Acme"}]}\n\`\`\``;
    const text = ['Which one do you mean?', broken(1), broken(2)].join('\n');

    const both = await bus.request(
      'answerBlocks',
      newScope(),
      { text, correctionTokens: 50_000 },
      { timeoutMs: 10_000 },
    );
    expect(both.blocks.map((b) => b.outcome)).toEqual(['llm_corrected', 'llm_corrected']);
    const asked = llm.requestsFor(marker);
    expect(asked).toHaveLength(2);
    // Each correction holds its prompt's estimate and its max_tokens: room for one, not for two.
    const one =
      Math.max(...asked.map((r) => Math.ceil(JSON.stringify(r.body.messages).length / 4))) + MAX_TOKENS;
    const spentBoth = both.correctionUsage?.total_tokens ?? 0;
    expect(spentBoth).toBeGreaterThan(0);
    expect(spentBoth).toBeLessThan(2 * one);

    const single = await bus.request(
      'answerBlocks',
      newScope(),
      { text, correctionTokens: one + MAX_TOKENS - 1 },
      { timeoutMs: 10_000 },
    );
    expect(llm.requestsFor(marker)).toHaveLength(3);
    expect(single.blocks.map((b) => b.outcome).sort()).toEqual(['llm_corrected', 'removed']);
    expect(single.correctionUsage?.total_tokens).toBeGreaterThan(0);
    expect(single.correctionUsage?.total_tokens).toBeLessThanOrEqual(one + MAX_TOKENS - 1);

    const none = await bus.request(
      'answerBlocks',
      newScope(),
      { text, correctionTokens: 0 },
      { timeoutMs: 10_000 },
    );
    expect(llm.requestsFor(marker)).toHaveLength(3);
    expect(none.blocks.map((b) => b.outcome)).toEqual(['removed', 'removed']);
    expect(none.correctionUsage).toBeUndefined();
  });
});
