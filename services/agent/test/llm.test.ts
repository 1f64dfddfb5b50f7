import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EMPTY_ALLOWLIST, EndpointAllowlistSchema } from '@munim/kit';
import { type ScriptedLlm, startScriptedLlm } from '@munim/scripted-llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlm, LlmError } from '../src/model/llm.ts';

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

describe('where the model client may go', () => {
  it('refuses a redirect: the request and its key never reach where it points', async () => {
    server.script({ match: 'redirected question', turns: [{ content: 'should never be asked' }] });
    const before = server.requests.length;
    const bouncing = createServer((req, res) =>
      res.writeHead(307, { location: `${server.baseURL}${req.url?.replace(/^\/v1/, '')}` }).end(),
    );
    await new Promise<void>((resolve) => bouncing.listen(0, '127.0.0.1', resolve));
    try {
      const llm = createLlm({
        ...base,
        maxRetries: 0,
        baseURL: `http://127.0.0.1:${(bouncing.address() as AddressInfo).port}/v1`,
      });
      await expect(
        llm.turn({ messages: [{ role: 'user', content: 'redirected question' }], maxTokens: 20 }),
      ).rejects.toBeInstanceOf(LlmError);
      expect(server.requests.length).toBe(before);
    } finally {
      await new Promise((resolve) => bouncing.close(resolve));
    }
  });

  it('reaches a saved endpoint only at an address its allow-list covers, checked as it connects', async () => {
    server.script({ match: 'saved endpoint', repeat: true, turns: [{ content: 'allowed' }] });
    const port = new URL(server.baseURL).port;
    const baseURL = `http://localhost:${port}/v1`;
    const before = server.requests.length;
    const refused = createLlm({ ...base, maxRetries: 0, baseURL, allowlist: EMPTY_ALLOWLIST });
    await expect(
      refused.turn({ messages: [{ role: 'user', content: 'saved endpoint' }], maxTokens: 20 }),
    ).rejects.toBeInstanceOf(LlmError);
    expect(server.requests.length).toBe(before);
    const allowed = createLlm({
      ...base,
      baseURL,
      allowlist: EndpointAllowlistSchema.parse('127.0.0.0/8,::1'),
    });
    const turn = await allowed.turn({
      messages: [{ role: 'user', content: 'saved endpoint' }],
      maxTokens: 20,
    });
    expect(turn.content).toBe('allowed');
  });
});
