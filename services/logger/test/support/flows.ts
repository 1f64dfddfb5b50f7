import { randomUUID } from 'node:crypto';
import type { Bus } from '@munim/bus';
import type { AgentEvent, Message, RequestScope, ServiceName } from '@munim/contracts';
import type { Database } from '@munim/db';
import type { Kysely } from 'kysely';

/** A fresh scope; requests of one conversation share `conversationId`. */
export function scopeOf(conversationId = `conv-${randomUUID()}`): RequestScope {
  return { requestId: randomUUID(), conversationId, entityId: 'ent-1', orgId: 'org-1' };
}

/** A write flow of ten events: blocked, self-corrected, executed, answered. */
export function writeFlow(scope: RequestScope, query = 'Record ₹5000 payment from Acme Corp'): AgentEvent[] {
  return [
    { type: 'connected', payload: { requestId: scope.requestId, conversationId: scope.conversationId } },
    { type: 'understanding_started', payload: { query } },
    { type: 'route_classified', payload: { path: 'llm', category: 'unified', confidence: 0.4 } },
    {
      type: 'write_validation',
      payload: { tool: 'create_payment', status: 'blocked', missing_fields: ['Amount'], duration_ms: 2 },
    },
    { type: 'tool_result', payload: { tool: 'get_all_invoices', success: true, result: [{ id: 'INV-1' }] } },
    { type: 'tool_retry', payload: { tool: 'create_payment', attempt: 2, reason: 'blocked' } },
    {
      type: 'write_validation',
      payload: { tool: 'create_payment', status: 'passed', fields_validated: ['Amount'], duration_ms: 1 },
    },
    { type: 'tool_result', payload: { tool: 'create_payment', success: true, result: { id: 'PAY-1' } } },
    { type: 'response_chunk', payload: { text: 'Recorded.' } },
    {
      type: 'complete',
      payload: {
        query,
        path: 'llm',
        category: 'unified',
        matchedIntent: null,
        extractedEntities: {},
        reasoning: '',
        pipelineSteps: [],
        enrichments: [],
        responseFormat: 'text',
        response: 'Recorded.',
        mcpToolResults: [],
        dataSources: [],
        llmModel: 'gpt-4o-mini',
        iterationCount: 3,
        usage: { input_tokens: 100, output_tokens: 10, total_tokens: 110 },
        status: 'answered',
      },
    },
  ];
}

const SERVICE_OF: Partial<Record<AgentEvent['type'], ServiceName>> = {
  connected: 'gateway',
  understanding_started: 'router',
  route_classified: 'router',
  write_validation: 'validator',
  tool_result: 'mcp-executor',
};

/** Publishes a flow in order; resolves to the envelope ids as published. */
export async function publishFlow(
  buses: (service: ServiceName) => Bus,
  scope: RequestScope,
  flow: AgentEvent[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const event of flow) {
    const { message } = await buses(SERVICE_OF[event.type] ?? 'agent').emit(scope, event);
    ids.push((message as Message<AgentEvent>).id);
  }
  return ids;
}

/** How many events of these requests are stored. */
export async function countStored(db: Kysely<Database>, requestIds: string[]): Promise<number> {
  if (requestIds.length === 0) return 0;
  const { n } = await db
    .selectFrom('request_events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('request_id', 'in', requestIds)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** The stored envelope ids of each request, in stream order. */
export async function storedIds(db: Kysely<Database>, requestIds: string[]): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom('request_events')
    .select(['request_id', 'id'])
    .where('request_id', 'in', requestIds)
    .orderBy('request_id')
    .orderBy('seq')
    .execute();
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.request_id, [...(out.get(r.request_id) ?? []), r.id]);
  return out;
}
