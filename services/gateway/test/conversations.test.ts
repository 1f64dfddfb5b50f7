import { randomUUID } from 'node:crypto';
import type { Database } from '@munim/db';
import { type FixtureNats, test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import type { Gateway } from '../src/app.ts';
import { insertConversation, startGateway } from './helpers.ts';

let testBus: FixtureNats;
let db: Kysely<Database>;
let gateway: Gateway;
let url: string;
let withoutDb: { gateway: Gateway; url: string };
const older = randomUUID();
const newer = randomUUID();
const gone = randomUUID();
const TENANT = 'entityId=ent-a&orgId=org-a';

test.beforeAll(async ({ nats, db: fileDb }) => {
  testBus = nats;
  db = fileDb;
  ({ gateway, url } = await startGateway(testBus, {}, db));
  withoutDb = await startGateway(testBus, {});
  await insertConversation(db, {
    id: older,
    entityId: 'ent-a',
    orgId: 'org-a',
    chatNumber: 1,
    name: 'Overdue invoices',
    updatedAt: new Date('2026-01-01T10:00:00Z'),
    messages: [
      { role: 'user', content: 'show overdue invoices', ts: '2026-01-01T09:59:00Z' },
      {
        role: 'assistant',
        content: '| Invoice | Due |\n|---|---|\n| INV-1 | <script>alert(1)</script> |',
        ts: '2026-01-01T10:00:00Z',
      },
    ],
  });
  await insertConversation(db, {
    id: newer,
    entityId: 'ent-a',
    orgId: 'org-a',
    chatNumber: 12,
    name: 'Cash position',
    updatedAt: new Date('2026-02-01T10:00:00Z'),
    messages: [{ role: 'user', content: 'cash position?' }],
  });
  await insertConversation(db, { id: gone, entityId: 'ent-a', orgId: 'org-a', chatNumber: 3, deleted: true });
  // Same entity, another organisation: never shown to org-a.
  await insertConversation(db, { id: randomUUID(), entityId: 'ent-a', orgId: 'org-z', chatNumber: 2 });
});

afterAll(async () => {
  await gateway?.stop();
  await withoutDb?.gateway.stop();
});

describe('conversations API', () => {
  test('lists the live conversations of the tenant, newest first, with chat number, name, preview and time', async () => {
    const response = await fetch(`${url}/v1/conversations?${TENANT}`);
    expect(response.status).toBe(200);
    const { conversations } = (await response.json()) as { conversations: Record<string, unknown>[] };
    expect(conversations).toEqual([
      {
        id: newer,
        chatNumber: 12,
        displayId: '#MJ-0012',
        name: 'Cash position',
        preview: 'cash position?',
        messageCount: 1,
        createdAt: '2026-02-01T10:00:00.000Z',
        updatedAt: '2026-02-01T10:00:00.000Z',
      },
      expect.objectContaining({ id: older, displayId: '#MJ-0001', messageCount: 2 }),
    ]);
    const limited = await fetch(`${url}/v1/conversations?${TENANT}&limit=1`);
    expect(((await limited.json()) as { conversations: unknown[] }).conversations).toHaveLength(1);
  });

  test('needs the tenant without auth, and rejects bad parameters with 400 naming them', async () => {
    const missing = await fetch(`${url}/v1/conversations?entityId=ent-a`);
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { field: string } }).error.field).toBe('orgId');
    const badLimit = await fetch(`${url}/v1/conversations?${TENANT}&limit=1000`);
    expect(((await badLimit.json()) as { error: { field: string } }).error.field).toBe('limit');
    const unknown = await fetch(`${url}/v1/conversations?${TENANT}&sort=asc`);
    expect(((await unknown.json()) as { error: { field: string } }).error.field).toBe('sort');
  });

  test('gets one conversation with its messages', async () => {
    const response = await fetch(`${url}/v1/conversations/${older}?${TENANT}`);
    expect(response.status).toBe(200);
    const conversation = (await response.json()) as { displayId: string; messages: { role: string }[] };
    expect(conversation.displayId).toBe('#MJ-0001');
    expect(conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const other = await fetch(`${url}/v1/conversations/${older}?entityId=ent-a&orgId=org-z`);
    expect(other.status).toBe(404);
  });

  test('exports a conversation as printable HTML with every message escaped', async () => {
    const response = await fetch(`${url}/v1/conversations/${older}/export?${TENANT}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-disposition')).toContain('chat-MJ-0001.html');
    const html = await response.text();
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('#MJ-0001 · Overdue invoices');
    expect(html).toContain('@media print');
    expect(html).toContain('show overdue invoices');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>');
    expect(html).toContain('<dt>Entity</dt><dd>ent-a</dd>');
  });

  test('soft-deletes a conversation: gone from the API, kept in the table', async () => {
    const deleted = await fetch(`${url}/v1/conversations/${newer}?${TENANT}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await fetch(`${url}/v1/conversations/${newer}?${TENANT}`)).status).toBe(404);
    expect((await fetch(`${url}/v1/conversations/${newer}?${TENANT}`, { method: 'DELETE' })).status).toBe(
      404,
    );
    const list = (await (await fetch(`${url}/v1/conversations?${TENANT}`)).json()) as {
      conversations: { id: string }[];
    };
    expect(list.conversations.map((c) => c.id)).toEqual([older]);
    const row = await db
      .selectFrom('unified_conversations')
      .select(['is_deleted', 'messages'])
      .where('id', '=', newer)
      .executeTakeFirstOrThrow();
    expect(row.is_deleted).toBe(true);
    expect(row.messages).toHaveLength(1);
  });

  test('hides a deleted conversation and answers 503 without a database', async () => {
    expect((await fetch(`${url}/v1/conversations/${gone}?${TENANT}`)).status).toBe(404);
    const response = await fetch(`${withoutDb.url}/v1/conversations?${TENANT}`);
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('SERVICE_UNAVAILABLE');
  });
});
