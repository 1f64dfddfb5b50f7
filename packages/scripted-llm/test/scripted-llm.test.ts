import OpenAI, { AuthenticationError, AzureOpenAI, InternalServerError, RateLimitError } from 'openai';
import type { ChatCompletionChunk, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedLlm, startScriptedLlm } from '../src/index.ts';

const API_KEY = 'sk-test-scripted';

const tools: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'create_invoice',
      description: 'Create an invoice',
      parameters: {
        type: 'object',
        properties: { customer: { type: 'string' }, amount: { type: 'number' } },
        required: ['customer', 'amount'],
      },
    },
  },
];

let llm: ScriptedLlm;
let client: OpenAI;

beforeAll(async () => {
  llm = await startScriptedLlm({ apiKey: API_KEY });
  client = new OpenAI({ baseURL: llm.baseURL, apiKey: API_KEY, maxRetries: 0 });
});

afterAll(async () => {
  await llm.close();
});

beforeEach(() => {
  llm.reset();
});

describe('non-streaming', () => {
  it('answers with scripted content in the OpenAI shape', async () => {
    llm.script({ name: 'hello', match: 'HELLO', turns: [{ content: 'Hi, I am munim.' }] });
    const res = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'You are a CFO.' },
        { role: 'user', content: 'hello there' },
      ],
    });
    expect(res.object).toBe('chat.completion');
    expect(res.id).toMatch(/^chatcmpl-/);
    expect(res.model).toBe('gpt-test');
    expect(typeof res.created).toBe('number');
    const choice = res.choices[0]!;
    expect(choice.finish_reason).toBe('stop');
    expect(choice.message).toMatchObject({ role: 'assistant', content: 'Hi, I am munim.' });
    expect(choice.message.tool_calls).toBeUndefined();
    expect(res.usage!.completion_tokens).toBe(Math.ceil('Hi, I am munim.'.length / 4));
    expect(res.usage!.total_tokens).toBe(res.usage!.prompt_tokens + res.usage!.completion_tokens);
    expect(res.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]!.scriptName).toBe('hello');
  });

  it('answers a tool call, then a final answer computed from the tool result', async () => {
    llm.script({
      name: 'invoice',
      match: /create an invoice/i,
      turns: [
        {
          toolCalls: [
            { name: 'create_invoice', arguments: { customer: 'Acme', amount: 1200 }, id: 'call_1' },
          ],
        },
        (req) => {
          const toolMsg = req.messages.find((m) => m.role === 'tool');
          const { InvoiceId } = JSON.parse(String(toolMsg?.content)) as { InvoiceId: string };
          return { content: `Created invoice ${InvoiceId}.` };
        },
      ],
    });
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Please create an invoice for Acme, 1200' },
    ];
    const first = await client.chat.completions.create({ model: 'gpt-test', messages, tools });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls![0]!;
    expect(call).toEqual({
      id: 'call_1',
      type: 'function',
      function: { name: 'create_invoice', arguments: '{"customer":"Acme","amount":1200}' },
    });

    messages.push(choice.message, { role: 'tool', tool_call_id: call.id, content: '{"InvoiceId":"INV-42"}' });
    const second = await client.chat.completions.create({ model: 'gpt-test', messages, tools });
    expect(second.choices[0]!.message.content).toBe('Created invoice INV-42.');
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expect(llm.requests.map((r) => r.turnIndex)).toEqual([0, 1]);
  });

  it('passes malformed argument strings through raw and generates tool-call ids', async () => {
    llm.script({
      match: 'broken',
      turns: [
        {
          content: 'Let me try.',
          toolCalls: [
            { name: 'create_invoice', arguments: '{"customer": "Acme", amount: }' },
            { name: 'create_invoice', arguments: { customer: 'B', amount: 1 } },
          ],
        },
      ],
    });
    const res = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'broken args please' }],
      tools,
    });
    const message = res.choices[0]!.message;
    expect(message.content).toBe('Let me try.');
    const [a, b] = message.tool_calls as OpenAI.Chat.ChatCompletionMessageFunctionToolCall[];
    expect(a!.function.arguments).toBe('{"customer": "Acme", amount: }');
    expect(b!.function.arguments).toBe('{"customer":"B","amount":1}');
    expect(a!.id).toMatch(/^call_/);
    expect(b!.id).not.toBe(a!.id);
  });

  it('keeps a separate cursor per script when requests interleave', async () => {
    llm.script({ name: 'cash', match: 'cash', turns: [{ content: 'cash 1' }, { content: 'cash 2' }] });
    llm.script({ name: 'sales', match: 'sales', turns: [{ content: 'sales 1' }, { content: 'sales 2' }] });
    const ask = async (q: string): Promise<string | null> =>
      (await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: q }] }))
        .choices[0]!.message.content;
    expect(await ask('what is my cash?')).toBe('cash 1');
    expect(await ask('how are sales?')).toBe('sales 1');
    expect(await ask('and cash now?')).toBe('cash 2');
    const [s2, c3] = await Promise.allSettled([ask('sales again'), ask('cash once more')]);
    expect(s2).toEqual({ status: 'fulfilled', value: 'sales 2' });
    expect(c3.status).toBe('rejected');
    expect(String((c3 as PromiseRejectedResult).reason)).toContain(
      'scripted-llm: script "cash" has no turn left',
    );
    expect(llm.requestsFor('cash')).toHaveLength(3);
    expect(llm.requestsFor(/sales/)).toHaveLength(2);
  });

  it('starts over when repeat is set', async () => {
    llm.script({ match: 'ping', repeat: true, turns: [{ content: 'pong' }, { content: 'pong again' }] });
    const answers: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'ping' }],
      });
      answers.push(res.choices[0]!.message.content);
    }
    expect(answers).toEqual(['pong', 'pong again', 'pong']);
  });

  it('matches on the last user message, including array content, and by function', async () => {
    llm.script({
      name: 'by-fn',
      match: (req) => req.model === 'special',
      turns: [{ content: 'special answer' }],
    });
    llm.script({ match: 'second question', turns: [{ content: 'second' }] });
    const res = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: [{ type: 'text', text: 'the second question' }] },
      ],
    });
    expect(res.choices[0]!.message.content).toBe('second');
    const special = await client.chat.completions.create({
      model: 'special',
      messages: [{ role: 'user', content: 'anything' }],
    });
    expect(special.choices[0]!.message.content).toBe('special answer');
  });
});

describe('streaming', () => {
  it('streams content as word deltas that reassemble to the scripted text, with usage', async () => {
    const text = 'Your cash balance is  $12,345.67 across 3 accounts.\nAnything else?';
    llm.script({ match: 'stream cash', turns: [{ content: text }] });
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'stream cash please' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'gpt-test')).toBe(true);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const contentDeltas = chunks
      .flatMap((c) => c.choices.map((ch) => ch.delta.content ?? ''))
      .filter(Boolean);
    expect(contentDeltas.length).toBeGreaterThan(5);
    expect(contentDeltas.join('')).toBe(text);
    const finish = chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter(Boolean);
    expect(finish).toEqual(['stop']);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ completion_tokens: Math.ceil(text.length / 4) });
    expect(last.usage!.prompt_tokens).toBeGreaterThan(0);
  });

  it('stalls after some deltas until the client gives up, or cuts the connection mid-stream', async () => {
    const deltas = ['Cash ', 'is ', 'fine ', 'today.'];
    llm.script({ match: 'stall here', turns: [{ content: deltas.join(''), deltas, stallAfterDeltas: 2 }] });
    llm.script({ match: 'drop here', turns: [{ content: deltas.join(''), deltas, dropAfterDeltas: 2 }] });
    const read = async (question: string, signal?: AbortSignal) => {
      const seen: string[] = [];
      const stream = await client.chat.completions.create(
        { model: 'gpt-test', messages: [{ role: 'user', content: question }], stream: true },
        signal ? { signal } : {},
      );
      const failure = await (async () => {
        for await (const chunk of stream) {
          const text = chunk.choices[0]?.delta.content;
          if (text) seen.push(text);
        }
      })().then(
        () => undefined,
        (error: unknown) => error,
      );
      return { seen, failure };
    };
    // Nothing after the second delta: only the client's own bound ends it.
    const stalled = await read('stall here', AbortSignal.timeout(300));
    expect(stalled.seen).toEqual(['Cash ', 'is ']);
    expect(llm.requestsFor('stall here')[0]?.streamed).toMatchObject({ deltas: 4, sent: 2 });
    // The connection closes mid-body: the client sees the two deltas, then an error, no [DONE].
    const dropped = await read('drop here');
    expect(dropped.seen).toEqual(['Cash ', 'is ']);
    expect(dropped.failure).toBeInstanceOf(Error);
  });

  it('streams scripted deltas as given, and records them as they are written', async () => {
    const deltas = ['Your id is 550e8400-e29b-', '41d4-a716-446655440000', ' today.'];
    const { promise: gate, resolve: open } = Promise.withResolvers<void>();
    llm.script({
      match: 'gated',
      turns: [{ content: deltas.join(''), deltas, chunkDelayMs: 1, lastDeltaAfter: gate }],
    });
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'gated please' }],
      stream: true,
    });
    const seen: string[] = [];
    const progress: number[] = [];
    for await (const chunk of stream) {
      const text = chunk.choices[0]?.delta.content;
      if (!text) continue;
      seen.push(text);
      progress.push(llm.requests.at(-1)?.streamed?.sent ?? -1);
      // The last delta waits for the gate: the client has every earlier one before it is written.
      if (seen.length === deltas.length - 1) open();
    }
    expect(seen).toEqual(deltas);
    // Seen the second delta, the model had written two: the third waited for the gate.
    expect(progress.slice(1)).toEqual([2, 3]);
    const streamed = llm.requests.at(-1)?.streamed;
    expect(streamed).toMatchObject({ deltas: 3, sent: 3 });
    expect(streamed?.lastAt).toBeGreaterThanOrEqual(streamed?.firstAt ?? Number.POSITIVE_INFINITY);
  });

  it('rejects deltas that do not join to the content', () => {
    expect(() => llm.script({ match: 'x', turns: [{ content: 'abc', deltas: ['ab', 'd'] }] })).toThrow(
      /deltas must join to content/,
    );
  });

  it('omits the usage chunk unless include_usage is set', async () => {
    llm.script({ match: 'no usage', turns: [{ content: 'short answer' }] });
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'no usage' }],
      stream: true,
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.some((c) => c.usage)).toBe(false);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
  });

  it('streams tool calls that reassemble (SDK stream helper) to the scripted name and arguments', async () => {
    const args = { customer: 'Acme Corporation Pvt Ltd', amount: 125000.5, lines: [{ sku: 'A1', qty: 3 }] };
    llm.script({
      match: 'stream invoice',
      turns: [
        {
          toolCalls: [
            { name: 'create_invoice', arguments: args },
            { name: 'create_invoice', arguments: '{"customer":"B"' },
          ],
        },
      ],
    });
    const runner = client.chat.completions.stream({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'stream invoice for Acme' }],
      tools,
      stream_options: { include_usage: true },
    });
    let argumentDeltas = 0;
    runner.on('chunk', (chunk) => {
      for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) if (tc.function?.arguments) argumentDeltas++;
    });
    const final = await runner.finalChatCompletion();
    const choice = final.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const calls = choice.message.tool_calls as OpenAI.Chat.ChatCompletionMessageFunctionToolCall[];
    expect(calls).toHaveLength(2);
    expect(calls[0]!.type).toBe('function');
    expect(calls[0]!.id).toMatch(/^call_/);
    expect(calls[0]!.function.name).toBe('create_invoice');
    expect(JSON.parse(calls[0]!.function.arguments)).toEqual(args);
    expect(calls[1]!.function.arguments).toBe('{"customer":"B"');
    expect(argumentDeltas).toBeGreaterThan(4);
    expect(final.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('streams tool calls that reassemble from raw deltas', async () => {
    llm.script({
      match: 'raw deltas',
      turns: [{ toolCalls: [{ name: 'list_bills', arguments: { status: 'unpaid' } }] }],
    });
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'raw deltas' }],
      tools,
      stream: true,
    });
    const acc: { id?: string; name?: string; args: string }[] = [];
    for await (const chunk of stream) {
      for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) {
        const slot = acc[tc.index] ?? { args: '' };
        acc[tc.index] = slot;
        if (tc.id) slot.id = tc.id;
        if (tc.function?.name) slot.name = tc.function.name;
        slot.args += tc.function?.arguments ?? '';
      }
    }
    expect(acc).toHaveLength(1);
    expect(acc[0]!.name).toBe('list_bills');
    expect(JSON.parse(acc[0]!.args)).toEqual({ status: 'unpaid' });
  });
});

describe('errors', () => {
  it('a 429 error turn makes the SDK throw RateLimitError with retry-after', async () => {
    llm.script({
      match: 'busy',
      turns: [
        { error: { status: 429, message: 'Rate limit reached', headers: { 'retry-after': '1' } } },
        { content: 'ok now' },
      ],
    });
    const err = await client.chat.completions
      .create({ model: 'gpt-test', messages: [{ role: 'user', content: 'busy?' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).status).toBe(429);
    expect((err as RateLimitError).message).toContain('Rate limit reached');
    expect((err as RateLimitError).headers?.get('retry-after')).toBe('1');
    const next = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'busy?' }],
    });
    expect(next.choices[0]!.message.content).toBe('ok now');
  });

  it('the SDK retries a scripted 500 and gets the next turn', async () => {
    llm.script({ match: 'flaky', turns: [{ error: { status: 500 } }, { content: 'recovered' }] });
    const retrying = new OpenAI({ baseURL: llm.baseURL, apiKey: API_KEY, maxRetries: 1 });
    const res = await retrying.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'flaky' }],
    });
    expect(res.choices[0]!.message.content).toBe('recovered');
    expect(llm.requestsFor('flaky').map((r) => r.status)).toEqual([500, 200]);
  });

  it('no matching script gives a clear 500 error', async () => {
    llm.script({ match: 'something else', turns: [{ content: 'x' }] });
    const err = await client.chat.completions
      .create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Unscripted question' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InternalServerError);
    expect((err as InternalServerError).message).toContain(
      'scripted-llm: no script matches "Unscripted question"',
    );
  });

  it('rejects a wrong API key with 401 in OpenAI shape', async () => {
    const bad = new OpenAI({ baseURL: llm.baseURL, apiKey: 'sk-wrong-key-123', maxRetries: 0 });
    const err = await bad.chat.completions
      .create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as AuthenticationError).code).toBe('invalid_api_key');
  });

  it('rejects an invalid script turn at registration', () => {
    expect(() => llm.script({ match: 'x', turns: [{ nope: true } as never] })).toThrow(/needs `content`/);
  });
});

describe('recording and routes', () => {
  it('records tools, tool_choice, temperature and max_tokens', async () => {
    llm.script({ name: 'rec', match: 'record me', turns: [{ content: 'done' }] });
    await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'Record me please' }],
      tools,
      tool_choice: 'auto',
      temperature: 0,
      max_tokens: 512,
    });
    const [rec] = llm.requestsFor('record me');
    expect(rec).toBeDefined();
    expect(rec!.body.tools).toEqual(tools);
    expect(rec!.body.tool_choice).toBe('auto');
    expect(rec!.body.temperature).toBe(0);
    expect(rec!.body.max_tokens).toBe(512);
    expect(rec!.body.stream).toBeUndefined();
    expect(rec!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(rec!.scriptName).toBe('rec');
    expect(rec!.path).toBe('/v1/chat/completions');
    expect(rec!.status).toBe(200);
    expect(rec!.at).toBeLessThanOrEqual(Date.now());
  });

  it('serves Azure-style deployment paths with the api-key header', async () => {
    llm.script({ match: 'azure', turns: [{ content: 'from azure' }] });
    const azure = new AzureOpenAI({
      endpoint: llm.origin,
      apiKey: API_KEY,
      apiVersion: '2024-10-21',
      deployment: 'munim-gpt',
      maxRetries: 0,
    });
    const res = await azure.chat.completions.create({
      model: 'munim-gpt',
      messages: [{ role: 'user', content: 'azure hello' }],
    });
    expect(res.choices[0]!.message.content).toBe('from azure');
    const [rec] = llm.requestsFor('azure');
    expect(rec!.deployment).toBe('munim-gpt');
    expect(rec!.headers['api-key']).toBe(API_KEY);
  });

  it('lists one model', async () => {
    const models = [];
    for await (const m of client.models.list()) models.push(m.id);
    expect(models).toEqual(['scripted-llm']);
  });

  it('delays an answer by delayMs', async () => {
    llm.script({ match: 'slow', turns: [{ content: 'finally', delayMs: 150 }] });
    const t0 = Date.now();
    const res = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'slow' }],
    });
    expect(res.choices[0]!.message.content).toBe('finally');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });
});
