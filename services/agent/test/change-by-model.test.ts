import { describe, expect, it } from 'vitest';
import { readChange } from '../src/confirmation/change-words.ts';
import type { Llm } from '../src/model/llm.ts';
import { changeByModel, parseChange } from '../src/turn/change-by-model.ts';
import { fakeAgent } from './fake-agent.ts';

// With a model: a value in words the reading does not know is read by the model — a date, a due
// date and an amount only, whatever else the model answers.

const model = (content: string): Llm => ({
  label: 'fake/model',
  model: 'model',
  turn: async () => ({
    content,
    toolCalls: [],
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
  }),
});

describe('what a model may say', () => {
  it.each([
    ['{"amount": 4500}', { amount: 4500 }],
    ['```json\n{"date":"2026-12-01","amount":4500.5}\n```', { date: '2026-12-01', amount: 4500.5 }],
    ['{"due":"2026-12-31"}', { due: '2026-12-31' }],
  ])('%s', (content, change) => {
    expect(parseChange(content)).toEqual(change);
  });

  it.each([
    '{}',
    'I think it should be 4500',
    '{"amount": -4500}',
    '{"amount": "4500"}',
    '{"date": "2026-02-31"}',
    '{"date": "1 December"}',
    '[4500]',
    '{"customer": "Beta Traders", "account": "Cash"}',
  ])('nothing from %s', (content) => {
    expect(parseChange(content)).toBeUndefined();
  });

  it('drops anything but the date, due date and amount', () => {
    expect(parseChange('{"amount": 4500, "customer_id": "C-2", "Applications": []}')).toEqual({
      amount: 4500,
    });
  });
});

describe('the model is asked only for values in words', () => {
  it('reads "four thousand five hundred" with a model, and nothing without one', async () => {
    const text = 'yes but make it four thousand five hundred';
    expect(readChange(text, { fields: new Set(['amount']) })).toMatchObject({
      kind: 'unclear',
      about: 'value',
    });
    const withModel = fakeAgent({ tools: [], llm: model('{"amount": 4500}') });
    expect(await changeByModel(withModel.run, text)).toEqual({ amount: 4500 });
    const without = fakeAgent({ tools: [] });
    expect(await changeByModel(without.run, text)).toBeUndefined();
  });

  it('a model that fails is no change', async () => {
    const failing: Llm = {
      label: 'fake/model',
      model: 'model',
      turn: async () => {
        throw new Error('503');
      },
    };
    expect(
      await changeByModel(fakeAgent({ tools: [], llm: failing }).run, 'yes, make it four thousand'),
    ).toBeUndefined();
  });

  it('another field or two values is never given to the model', () => {
    const fields = new Set(['contact', 'amount']);
    expect(readChange('yes but change the customer to Beta Traders', { fields })).toMatchObject({
      about: 'field',
    });
    expect(readChange('yes, make it 4500 5000', { fields })).toMatchObject({ about: 'ambiguous' });
    expect(readChange('haan, kal ki date daal do', { fields })).toMatchObject({ about: 'ambiguous' });
  });
});
