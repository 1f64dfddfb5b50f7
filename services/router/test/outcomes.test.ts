import type { AgentEvent, EventPayload, Message } from '@munim/contracts';
import { createLogger } from '@munim/kit';
import { describe, expect, it } from 'vitest';
import { outcomeHandler } from '../src/outcomes.ts';
import type { RouterStore } from '../src/store.ts';

const complete = (
  path: EventPayload<'complete'>['path'],
  status: EventPayload<'complete'>['status'] = 'answered',
): EventPayload<'complete'> => ({
  query: 'show all invoices',
  path,
  category: 'unified',
  matchedIntent: null,
  extractedEntities: {},
  reasoning: '',
  pipelineSteps: [],
  enrichments: [],
  responseFormat: 'markdown',
  response: 'ok',
  mcpToolResults: [],
  dataSources: [],
  llmModel: '',
  iterationCount: 0,
  usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
  status,
});

const message = (data: AgentEvent): Message<AgentEvent> => ({
  id: 'm1',
  requestId: 'r1',
  conversationId: 'c1',
  entityId: 'e1',
  orgId: 'o1',
  service: 'router',
  ts: new Date().toISOString(),
  data,
});

/** A store that records which of its calls were made, and settles no route. */
function recordingStore() {
  const calls: string[] = [];
  const store = {
    transaction: async (fn: (tx: RouterStore) => Promise<unknown>) => {
      calls.push('transaction');
      return fn(store as unknown as RouterStore);
    },
    settleRoute: async () => {
      calls.push('settleRoute');
      return undefined;
    },
    settleFastRoute: async () => {
      calls.push('settleFastRoute');
      return undefined;
    },
    invalidateTenant: async () => {
      calls.push('invalidateTenant');
      return 0;
    },
  };
  return { store: store as unknown as RouterStore, calls };
}

const config = { cacheEnabled: true, ttls: { volatileMs: 1, reportMs: 1, staticMs: 1 } };

describe('what the router learns when a request ends', () => {
  it('touches nothing for an answer it gave from its cache (it recorded no route for it)', async () => {
    const { store, calls } = recordingStore();
    await outcomeHandler(
      store,
      createLogger('router', 'silent'),
      config,
    )(message({ type: 'complete', payload: complete('cached') }));
    expect(calls).toEqual([]);
  });

  it('settles the route of every other ending, answered or not', async () => {
    for (const data of [
      { type: 'complete', payload: complete('fast') },
      { type: 'complete', payload: complete('llm', 'awaiting_confirmation') },
      { type: 'error', payload: { code: 'INTERNAL', message: 'x' } },
    ] as AgentEvent[]) {
      const { store, calls } = recordingStore();
      await outcomeHandler(store, createLogger('router', 'silent'), config)(message(data));
      // One statement settles any route but an LLM-path one; finding none, the transaction looks.
      const llm = data.type === 'complete' && data.payload.path === 'llm';
      expect(calls).toEqual([...(llm ? [] : ['settleFastRoute']), 'transaction', 'settleRoute']);
    }
  });
});
