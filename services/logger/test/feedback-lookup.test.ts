import { randomUUID } from 'node:crypto';
import type { AgentEvent, Message } from '@munim/contracts';
import { test } from '@munim/testkit';
import { sql } from 'kysely';
import { describe, expect } from 'vitest';
import { previousQueries } from '../src/implicit-feedback.ts';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));

const row = (
  requestId: string,
  conversationId: string,
  created: Date,
  tenant = { entity_id: 'ent-1', org_id: 'org-1' },
  query: string | null = 'show overdue invoices',
) => ({ request_id: requestId, conversation_id: conversationId, created_at: created, query, ...tenant });

const nextQuery = (conversationId: string, ts: Date): Message<AgentEvent> => ({
  id: randomUUID(),
  requestId: `next-${randomUUID()}`,
  conversationId,
  entityId: 'ent-1',
  orgId: 'org-1',
  service: 'router',
  ts: ts.toISOString(),
  data: { type: 'understanding_started', payload: { query: 'and last month?' } },
});

describe('the previous query of a conversation (implicit feedback lookup)', () => {
  test("is found through the conversation index on a table without statistics, among one tenant's long history", async ({
    db,
  }) => {
    // One tenant, 600 queries in other conversations; the table is never analyzed (with this few rows
    // and no statistics, the planner took the tenant's index when the tenant checks could use it).
    await db
      .insertInto('query_routing_logs')
      .values(Array.from({ length: 600 }, (_, i) => row(`other-${i}`, `conv-${i}`, at(i % 50))))
      .execute();
    const conversation = `conv-${randomUUID()}`;
    await db
      .insertInto('query_routing_logs')
      .values([
        row('older', conversation, at(10)),
        row('previous', conversation, at(20)),
        // Newer than `previous` but not answerable as it: another tenant's, a row without a query,
        // a query after the next one.
        row('foreign', conversation, at(25), { entity_id: 'ent-2', org_id: 'org-1' }),
        row('no-query', conversation, at(26), undefined, null),
        row('later', conversation, at(40)),
      ])
      .execute();
    const next = nextQuery(conversation, at(30));

    const { rows: plan } = await sql<{ 'QUERY PLAN': string }>`explain ${previousQueries([next])}`.execute(
      db,
    );
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('query_routing_logs_conversation_tenant_created_idx');
    expect(text).not.toContain('query_routing_logs_org_entity_created_idx');
    expect(text).not.toContain('query_routing_logs_entity_created_idx');

    const { rows } = await previousQueries([next]).execute(db);
    expect(rows.map((r) => [r.next_request_id, r.request_id])).toEqual([[next.requestId, 'previous']]);
  });
});
