// GET /v1/audit: an entity's audit trail, oldest first, as JSON or CSV, for its approvers, admins
// and owners only; the org's other entities' rows are withheld (their place in the chain only), so
// every export, of the whole trail or a window, still verifies. The gateway runs on its own
// database role; the rows are appended as the services append them.
import {
  AUDIT_ACTIONS,
  AUDIT_READER_ROLES,
  AuditExportSchema,
  HttpErrorSchema,
  PERSON_ROLES,
} from '@munim/contracts';
import {
  AUDIT_COLUMNS,
  type AuditAction,
  appendAudit,
  createDb,
  type Database,
  parseAuditExport,
  readAudit,
  verifyAuditChain,
} from '@munim/db';
import { test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import { AUDIT_PAGE_ROWS } from '../src/audit/export.ts';
import { startGateway } from './helpers.ts';

const ADMIN_KEY = 'audit-admin-key-000000000001';
const OWNER_KEY = 'audit-owner-key-000000000001';
const OTHER_ORG_KEY = 'audit-org-b-key-000000000001';
const roleKey = (role: string) => `audit-${role}-key-${'0'.repeat(24)}`;
const KEYS = [
  `${OWNER_KEY}:ent-1:org-a`,
  ...PERSON_ROLES.map((role) => `${roleKey(role)}:ent-1:org-a:user-${role}:${role}`),
  `${OTHER_ORG_KEY}:ent-1:org-b`,
].join(',');

/** The summaries the rows get: commas, quotes, line breaks, Devanagari, an empty one. */
const SUMMARIES = [
  'Paid ₹1,25,000 to "Acme Corp"',
  'बिल #B-7 रद्द किया',
  'line one\r\nline two',
  '',
  '=SUM(A1:A2) stays text',
  'Void INV-0042',
];

let writer: Kysely<Database>;
let gatewayDb: Kysely<Database>;
let url: string;
let stop: () => Promise<void>;
let openUrl: string;
let stopOpen: () => Promise<void>;

/** Appends `count` rows for org-a at one-minute steps from 2026-03-01, entities ent-1 and ent-2 by turns (ent-1 last). */
async function seed(orgId: string, count: number, start = Date.UTC(2026, 2, 1)) {
  for (let i = 0; i < count; i++) {
    await appendAudit(
      writer,
      {
        entityId: (count - i) % 3 === 2 ? 'ent-2' : 'ent-1',
        orgId,
        actor: i % 4 === 0 ? `program:key-${i}` : `user-${i % 5}`,
        action: AUDIT_ACTIONS[i % AUDIT_ACTIONS.length] as AuditAction,
        tool: i % 3 === 0 ? null : i % 7 === 1 ? '' : 'record_payment',
        argsHash: i % 3 === 0 ? null : `${i}`.padStart(64, 'a'),
        summary: SUMMARIES[i % SUMMARIES.length] as string,
      },
      new Date(start + i * 60_000),
    );
  }
}

const get = (path: string, key: string | null = OWNER_KEY, base = url) =>
  fetch(`${base}${path}`, key ? { headers: { authorization: `Bearer ${key}` } } : {});

async function exportJson(query = '', key = OWNER_KEY) {
  const response = await get(`/v1/audit${query}`, key);
  expect(response.status).toBe(200);
  return AuditExportSchema.parse(await response.json()).rows;
}

test.beforeAll(async ({ nats, serviceLogins }) => {
  writer = createDb(serviceLogins.agent, { max: 2 });
  gatewayDb = createDb(serviceLogins.gateway, { max: 3 });
  await seed('org-a', 30);
  await seed('org-b', 3);
  const started = await startGateway(
    nats,
    { GATEWAY_API_KEYS: KEYS, GATEWAY_ADMIN_KEYS: ADMIN_KEY },
    gatewayDb,
  );
  url = started.url;
  stop = () => started.gateway.stop();
  // Without any credential configured (loopback only): the request acts as the tenant's owner.
  const open = await startGateway(nats, {}, gatewayDb);
  openUrl = open.url;
  stopOpen = () => open.gateway.stop();
});

afterAll(async () => {
  await stop?.();
  await stopOpen?.();
  await gatewayDb?.destroy();
  await writer?.destroy();
});

describe('GET /v1/audit', () => {
  test('answers approvers, admins and owners, and refuses every other role with ROLE_REQUIRED', async () => {
    for (const role of PERSON_ROLES) {
      const response = await get('/v1/audit', roleKey(role));
      const reads = (AUDIT_READER_ROLES as readonly string[]).includes(role);
      expect({ role, status: response.status }).toEqual({ role, status: reads ? 200 : 403 });
      if (!reads) {
        const body = HttpErrorSchema.parse(await response.json());
        expect(body.error.code).toBe('ROLE_REQUIRED');
        expect(body.error.message).toBe(
          `Reading the audit trail of entity ent-1 needs the approver, admin or owner role; this credential's roles for it: ${role}.`,
        );
      } else await response.body?.cancel();
    }
    // A key that names no person acts as the tenant's owner, as does a request without auth.
    expect((await get('/v1/audit')).status).toBe(200);
    expect((await get('/v1/audit?entityId=ent-1&orgId=org-a', null, openUrl)).status).toBe(200);
    // The tenant gate: another org's rows, an admin key (which acts for no tenant), no credential.
    expect((await get('/v1/audit?orgId=org-b')).status).toBe(403);
    expect((await get('/v1/audit', ADMIN_KEY)).status).toBe(403);
    expect((await get('/v1/audit', null)).status).toBe(401);
  });

  test('exports the entity’s rows oldest first, whole, and the org’s other rows withheld; the export verifies', async () => {
    const rows = await exportJson();
    const table = await readAudit(gatewayDb, { orgId: 'org-a' });
    expect(rows.map((r) => r.seq)).toEqual(table.map((r) => r.seq));
    for (const [i, row] of rows.entries()) {
      expect(Object.keys(row)).toEqual([...AUDIT_COLUMNS]);
      const stored = table[i] as (typeof table)[number];
      if (stored.entityId === 'ent-1') expect(row).toEqual(stored);
      else
        expect(row).toEqual({
          ...Object.fromEntries(AUDIT_COLUMNS.map((c) => [c, null])),
          seq: stored.seq,
          orgId: 'org-a',
          prevHash: stored.prevHash,
          hash: stored.hash,
        });
    }
    expect(rows.filter((r) => r.entityId === 'ent-2')).toEqual([]);
    expect(verifyAuditChain(parseAuditExport(JSON.stringify({ rows })))).toEqual({
      ok: true,
      rows: 30,
      withheld: 10,
    });
    // org-b's chain is its own, seen by its own key only.
    const other = await exportJson('', OTHER_ORG_KEY);
    expect(other.map((r) => r.orgId)).toEqual(['org-b', 'org-b', 'org-b']);
  });

  test('exports the same rows as CSV: a header row, quoted where needed, null apart from the empty string', async () => {
    const response = await get('/v1/audit?format=csv');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="audit-org-a-ent-1.csv"');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const text = await response.text();
    expect(text.split('\n')[0]).toBe(AUDIT_COLUMNS.join(','));
    expect(text).toContain('"Paid ₹1,25,000 to ""Acme Corp"""');
    expect(text).toContain('"line one\r\nline two"');
    const rows = parseAuditExport(text);
    expect(rows).toEqual(await exportJson());
    expect(rows.some((r) => r.tool === '')).toBe(true);
    expect(rows.some((r) => r.action !== null && r.tool === null)).toBe(true);
    expect(rows.some((r) => r.summary === '')).toBe(true);
  });

  test('exports a window of time as one unbroken piece of the chain, which verifies on its own', async () => {
    const all = await exportJson();
    // Rows 11 to 20 were appended from 10:00 to 10:09 (minute steps from midnight UTC, 1 March 2026).
    const from = new Date(Date.UTC(2026, 2, 1, 0, 10)).toISOString();
    const to = new Date(Date.UTC(2026, 2, 1, 0, 20)).toISOString();
    const window = await exportJson(`?from=${from}&to=${to}`);
    expect(window.map((r) => r.seq)).toEqual(Array.from({ length: 10 }, (_, i) => i + 11));
    expect(window).toEqual(all.slice(10, 20));
    expect(verifyAuditChain(parseAuditExport(JSON.stringify({ rows: window })))).toMatchObject({ ok: true });
    // A date alone is midnight UTC; a window with no row in it is an empty export.
    expect(await exportJson('?from=2026-03-02')).toEqual([]);
    expect((await exportJson('?to=2026-03-02')).length).toBe(30);
    const csv = await (await get('/v1/audit?format=csv&from=2027-01-01')).text();
    expect(csv).toBe(`${AUDIT_COLUMNS.join(',')}\n`);
  });

  test('names the field of a bad query', async () => {
    for (const [query, field] of [
      ['format=xml', 'format'],
      ['from=yesterday', 'from'],
      ['to=2026-13-01', 'to'],
      ['limit=5', 'limit'],
      ['from=2026-03-02&to=2026-03-01', 'to'],
    ] as const) {
      const response = await get(`/v1/audit?${query}`);
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
      expect(HttpErrorSchema.parse(await response.json()).error.field).toBe(field);
    }
  });

  test('streams a trail longer than many pages whole, in order, as JSON and CSV', async () => {
    const count = AUDIT_PAGE_ROWS * 2 + 37;
    await seed('org-c', count);
    const path = '/v1/audit?entityId=ent-1&orgId=org-c';
    const json = await (await get(path, null, openUrl)).text();
    const csv = await (await get(`${path}&format=csv`, null, openUrl)).text();
    for (const text of [json, csv]) {
      const rows = parseAuditExport(text);
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
      expect(verifyAuditChain(rows)).toMatchObject({ ok: true, rows: count });
    }
  });
});
