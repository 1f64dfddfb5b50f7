import type { RouteDecision } from '@munim/contracts';
import { describe, expect, it, vi } from 'vitest';
import { ZodError } from 'zod';
import { type LoopState, PendingStateError, parseLoopState } from '../src/confirmation/state.ts';
import type { AgentContext } from '../src/run/context.ts';
import { Run } from '../src/run/run.ts';
import type { PendingAction } from '../src/run/store.ts';
import { resume } from '../src/turn/resume.ts';

const route: RouteDecision = {
  path: 'llm',
  category: 'unified',
  confidence: 0.9,
  tier: 'cheap',
  intent: null,
  extractedEntities: {},
  strategy: 'keywords',
  toolGroups: ['payments'],
  tools: ['create_payment'],
  pipeline: [],
  reasoning: 'a payment',
};

/** A loop state as the agent stores it when it proposes a write, read back as JSON. */
const stored = (): Record<string, unknown> =>
  JSON.parse(
    JSON.stringify({
      messages: [
        { role: 'system', content: 'You are munim.' },
        { role: 'user', content: [{ type: 'text', text: 'record 5000 from Acme' }] },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'list_contacts', arguments: '{}' } },
            {
              id: 'c2',
              type: 'function',
              function: { name: 'create_payment', arguments: '{"Amount":5000}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: '[{"ContactId":"k1"}]' },
      ],
      offered: ['list_contacts', 'create_payment'],
      containers: [
        { name: 'invoices', description: 'Invoices', inputSchema: {}, functions: ['list_invoices'] },
      ],
      iterations: 2,
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
      toolResults: [{ tool: 'list_contacts', input: {}, result: [{ ContactId: 'k1' }], success: true }],
      skippedToolCallIds: [],
      query: 'record 5000 from Acme',
      route,
      record: 'Acme Corp',
    } satisfies LoopState),
  );

describe('the loop state stored with a pending action', () => {
  it('parses back what the agent stored', () => {
    const state = stored();
    expect(parseLoopState({ actionId: 'a1', state })).toEqual(state);
  });

  it('reads a state stored before containers existed as having none', () => {
    const { containers: _, ...state } = stored();
    expect(parseLoopState({ actionId: 'a1', state }).containers).toEqual([]);
  });

  it.each([
    ['no messages', (s: Record<string, unknown>) => delete s.messages],
    [
      'a message of no known role',
      (s: Record<string, unknown>) => ((s.messages as unknown[])[0] = { role: 'x' }),
    ],
    [
      'a tool message without its call id',
      (s: Record<string, unknown>) => ((s.messages as unknown[])[3] = { role: 'tool', content: '' }),
    ],
    ['usage as text', (s: Record<string, unknown>) => (s.usage = 'lots')],
    ['no route', (s: Record<string, unknown>) => delete s.route],
  ])('rejects %s with a clear error', (_, spoil) => {
    const state = stored();
    spoil(state);
    let thrown: unknown;
    try {
      parseLoopState({ actionId: 'a1', state });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PendingStateError);
    const error = thrown as PendingStateError;
    expect(error.code).toBe('INTERNAL');
    expect(error.actionId).toBe('a1');
    expect(error.message).toMatch(/could not be read, so nothing was changed/);
    expect(error.cause).toBeInstanceOf(ZodError);
  });

  it('ends an answer to a confirmation whose state is malformed before anything is changed', async () => {
    const transition = vi.fn();
    const error = vi.fn();
    const ctx = {
      log: { error, warn: vi.fn(), info: vi.fn() },
      store: { transition },
    } as unknown as AgentContext;
    const run = new Run(ctx, { requestId: 'r2', conversationId: 'c', entityId: 'e', orgId: 'o' }, undefined);
    const pending: PendingAction = {
      actionId: 'a1',
      requestId: 'r1',
      tool: 'create_payment',
      args: { Amount: 5000 },
      argsHash: 'h',
      tier: 1,
      confirmText: null,
      question: 'Record the payment?',
      callId: 'r1:2',
      toolCallId: 'c2',
      state: { messages: 'garbled' },
      status: 'pending',
      expiresAt: new Date(Date.now() + 60_000),
      approvedByRequest: null,
      requestedBy: null,
    };
    await expect(resume(run, pending, 'confirm', undefined)).rejects.toBeInstanceOf(PendingStateError);
    expect(transition).not.toHaveBeenCalled();
    expect(error).toHaveBeenCalledWith(
      expect.objectContaining({ actionId: 'a1', requestId: 'r2' }),
      'stored confirmation state does not parse',
    );
  });
});
