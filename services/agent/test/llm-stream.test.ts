import { type ScriptedLlm, startScriptedLlm } from '@munim/scripted-llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlm, LlmError } from '../src/model/llm.ts';

let server: ScriptedLlm;

beforeAll(async () => {
  server = await startScriptedLlm({ apiKey: 'k-2' });
});

afterAll(async () => {
  await server.close();
});

describe('LLM client, streaming to a sink', () => {
  it('hands each delta over as it arrives, before the model has finished', async () => {
    const { promise: gate, resolve: open } = Promise.withResolvers<void>();
    const deltas = ['Cash ', 'is ', 'fine.'];
    server.script({ match: 'live', turns: [{ content: deltas.join(''), deltas, lastDeltaAfter: gate }] });
    const llm = createLlm({
      baseURL: server.baseURL,
      apiKey: 'k-2',
      model: 'm',
      provider: 'openai',
      timeoutMs: 5000,
    });
    const sentWhenSeen: number[] = [];
    const turn = await llm.turn({
      messages: [{ role: 'user', content: 'live' }],
      maxTokens: 20,
      onText: async () => {
        sentWhenSeen.push(server.requestsFor('live').at(-1)?.streamed?.sent ?? -1);
        if (sentWhenSeen.length === 2) open();
      },
    });
    expect(turn.content).toBe('Cash is fine.');
    expect(sentWhenSeen.slice(1)).toEqual([2, 3]);
  });

  it('fails with the sink’s own error, not as the model’s', async () => {
    server.script({ match: 'sink', turns: [{ content: 'one two three' }] });
    const llm = createLlm({
      baseURL: server.baseURL,
      apiKey: 'k-2',
      model: 'm',
      provider: 'openai',
      timeoutMs: 5000,
    });
    const broken = new Error('the bus is gone');
    const turn = llm.turn({
      messages: [{ role: 'user', content: 'sink' }],
      maxTokens: 20,
      onText: async () => {
        throw broken;
      },
    });
    await expect(turn).rejects.toBe(broken);
    await expect(turn).rejects.not.toBeInstanceOf(LlmError);
  });
});
