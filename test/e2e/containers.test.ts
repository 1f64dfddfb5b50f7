import { randomUUID } from 'node:crypto';
import { type ChatRequest, offeredToolNames } from '@munim/scripted-llm';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { ask } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

let sys: TestSystem;
const tenant = { entityId: 'ent-c', orgId: 'org-c' };

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({ database, nats, env: { TOOL_COLLAPSE: 'always' } });
});

afterAll(async () => {
  await sys?.stop();
});

function lastToolMessage(req: ChatRequest): unknown {
  const tool = [...req.messages].reverse().find((m) => m.role === 'tool');
  return JSON.parse(String(tool?.content));
}

describe('containers and answer blocks, end to end', () => {
  test('offers one container per group, expands it on an empty call, and explains a call with arguments', async () => {
    const query = `which invoices of acme are unpaid and why ${randomUUID().slice(0, 6)}`;
    let afterError: unknown;
    let afterExpand: unknown;
    sys.llm?.script({
      match: query,
      turns: [
        { toolCalls: [{ name: 'invoices', arguments: { Status: 'OVERDUE' } }] },
        (req) => {
          afterError = lastToolMessage(req);
          return { toolCalls: [{ name: 'invoices', arguments: {} }] };
        },
        (req) => {
          afterExpand = lastToolMessage(req);
          return { toolCalls: [{ name: 'get_all_invoices', arguments: { Status: 'OVERDUE' } }] };
        },
        { content: 'Customers owe you money on several overdue invoices.' },
      ],
    });
    const { events } = await ask(sys.gatewayUrl, { query, ...tenant });
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { status: 'answered' } });

    const requests = (sys.llm?.requestsFor(query) ?? []).map((r) => r.body);
    expect(offeredToolNames(requests[0])).toContain('invoices');
    expect(offeredToolNames(requests[0])).not.toContain('get_all_invoices');
    expect(afterError).toMatchObject({
      error_type: 'container_invocation_error',
      container_name: 'invoices',
      available_functions: expect.arrayContaining(['get_all_invoices']),
    });
    expect(afterExpand).toMatchObject({ success: true, expanded: 'invoices' });
    expect(offeredToolNames(requests[2])).toContain('get_all_invoices');
    expect(offeredToolNames(requests[2])).not.toContain('invoices');
    expect(events.filter((e) => e.event === 'tool_result').map((e) => e.data.tool)).toEqual([
      'get_all_invoices',
    ]);
    expect(events.at(-1)?.data.guardrails).toContain('container_invocation_error');
  });

  test('repairs a malformed params block before the user sees it', async () => {
    const query = `draft an invoice for acme ${randomUUID().slice(0, 6)}`;
    const broken =
      'I can create that.\n```params\n{"operation":"Create Invoice","applied":[{"label":"Customer","value":"Acme Corp"},],\n```';
    sys.llm?.script({ match: query, turns: [{ content: broken }] });
    const { events } = await ask(sys.gatewayUrl, { query, ...tenant });
    const done = events.at(-1)?.data;
    const response = String(done?.response);
    const block = /```params\n([\s\S]*?)\n```/.exec(response)?.[1];
    if (block !== undefined) expect(() => JSON.parse(block)).not.toThrow();
    expect(done?.guardrails).toEqual(
      expect.arrayContaining([expect.stringMatching(/^json_(repaired|llm_corrected|block_removed)$/)]),
    );
    const streamed = events
      .filter((e) => e.event === 'response_chunk')
      .map((e) => e.data.text)
      .join('');
    expect(streamed).toBe(response);
  });
});
