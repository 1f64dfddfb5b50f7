import { type ScriptedLlm, startScriptedLlm } from '@munim/scripted-llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlm, LlmError } from '../src/llm.ts';

let server: ScriptedLlm;

beforeAll(async () => {
  server = await startScriptedLlm({ apiKey: 'k-1' });
});

afterAll(async () => {
  await server.close();
});

const base = { apiKey: 'k-1', model: 'm', provider: 'openai', timeoutMs: 5000 };

describe('LLM client', () => {
  it('streams text and reassembles tool calls with usage', async () => {
    server.script({ match: 'stream me', turns: [{ content: 'one two three' }] });
    server.script({
      match: 'call a tool',
      turns: [{ toolCalls: [{ name: 'get_bills', arguments: { Status: 'OVERDUE' } }] }],
    });
    const llm = createLlm({ ...base, baseURL: server.baseURL });
    const pieces: string[] = [];
    const text = await llm.turn({
      messages: [{ role: 'user', content: 'stream me' }],
      maxTokens: 50,
      onText: async (t) => void pieces.push(t),
    });
    expect(text.content).toBe('one two three');
    expect(pieces.length).toBeGreaterThan(1);
    expect(text.usage.total_tokens).toBeGreaterThan(0);
    const tool = await llm.turn({ messages: [{ role: 'user', content: 'call a tool' }], maxTokens: 50 });
    expect(tool.toolCalls).toEqual([
      { id: expect.any(String), name: 'get_bills', arguments: '{"Status":"OVERDUE"}' },
    ]);
  });

  it('retries a 429 and a 500, then answers', async () => {
    server.script({
      match: 'flaky',
      turns: [
        { error: { status: 429, headers: { 'retry-after-ms': '10' } } },
        { error: { status: 500 } },
        { content: 'fine now' },
      ],
    });
    const llm = createLlm({ ...base, baseURL: server.baseURL, maxRetries: 2 });
    const turn = await llm.turn({ messages: [{ role: 'user', content: 'flaky' }], maxTokens: 10 });
    expect(turn.content).toBe('fine now');
    expect(server.requestsFor('flaky')).toHaveLength(3);
  });

  it('fails with an LlmError (not a hang) when the model is unreachable', async () => {
    const llm = createLlm({ ...base, baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0 });
    await expect(
      llm.turn({ messages: [{ role: 'user', content: 'x' }], maxTokens: 5 }),
    ).rejects.toBeInstanceOf(LlmError);
  });

  it('speaks Azure OpenAI: deployment path, api-key header, developer role', async () => {
    server.script({ match: 'azure please', turns: [{ content: 'hello from azure' }] });
    const llm = createLlm({
      ...base,
      baseURL: server.origin,
      model: 'gpt4o-deployment',
      apiStyle: 'azure',
      systemRole: 'developer',
    });
    const turn = await llm.turn({
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'azure please' },
      ],
      maxTokens: 10,
    });
    expect(turn.content).toBe('hello from azure');
    const request = server.requestsFor('azure please')[0];
    expect(request?.deployment).toBe('gpt4o-deployment');
    expect(request?.headers['api-key']).toBe('k-1');
    expect(request?.body.messages[0]?.role).toBe('developer');
  });
});
