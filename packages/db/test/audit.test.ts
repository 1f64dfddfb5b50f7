import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUDIT_COLUMNS,
  type AuditAction,
  type AuditRow,
  appendAudit,
  auditHash,
  canonicalJson,
  createDb,
  type Database,
  type ExportedAuditRow,
  GENESIS_HASH,
  parseAuditExport,
  readAudit,
  verifyAuditChain,
  verifyAuditExport,
  withhold,
} from '../src/index.ts';
import { createMigratedTestDatabase, serviceLoginUrls, type TestDatabase } from '../src/testing.ts';

/**
 * The audit trail on a real PostgreSQL: written by the services' own roles, concurrently, it stays
 * one unbroken chain per tenant; nobody, the schema's owner included, changes or removes a row;
 * and the documented command finds any change to an export.
 */
const run = promisify(execFile);
const VERIFY = join(import.meta.dirname, '../src/verify-audit-main.ts');

let database: TestDatabase;
let owner: pg.Pool;
const writers: Kysely<Database>[] = [];
let dir: string;

beforeAll(async () => {
  database = await createMigratedTestDatabase();
  const urls = await serviceLoginUrls(database);
  for (const service of ['agent', 'gateway', 'mcp-executor'] as const)
    writers.push(createDb(urls[service], { max: 3 }));
  owner = new pg.Pool({ connectionString: database.url, max: 2 });
  dir = await mkdtemp(join(tmpdir(), 'munim-audit-'));
});

afterAll(async () => {
  await Promise.all(writers.map((w) => w.destroy()));
  await owner?.end();
  await database?.drop();
  await rm(dir, { recursive: true, force: true });
});

const ACTIONS: AuditAction[] = ['proposed', 'confirmed', 'approved', 'executed', 'failed', 'cancelled'];

/** Generated summaries: quotes, commas, Devanagari, control characters, amounts. */
function summary(i: number): string {
  const parts = [
    'Paid ₹1,25,000 to "Acme Corp"',
    'बिल #B-7 रद्द किया',
    'line\nbreak\ttab',
    'back\\slash',
    '\u0001odd',
    'Void INV-0042',
  ];
  return `${parts[i % parts.length]} (${i})`;
}

describe('the audit trail is one unbroken chain per org', () => {
  it('stays whole when three services append for two orgs and their entities at once', async () => {
    const tenants = [
      { entityId: 'e-1', orgId: `org-${randomUUID()}` },
      { entityId: 'e-2', orgId: `org-${randomUUID()}` },
    ];
    await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        appendAudit(writers[i % writers.length] as Kysely<Database>, {
          ...(tenants[i % 2] as (typeof tenants)[number]),
          // Two entities of one org share its chain.
          entityId: `e-${i % 3}`,
          actor: `user-${i % 5}`,
          action: ACTIONS[i % ACTIONS.length] as AuditAction,
          tool: i % 3 === 0 ? null : 'record_payment',
          argsHash: i % 3 === 0 ? null : `${i}`.padStart(64, 'a'),
          summary: summary(i),
        }),
      ),
    );
    for (const tenant of tenants) {
      const rows = await readAudit(writers[0] as Kysely<Database>, { orgId: tenant.orgId });
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 75 }, (_, i) => i + 1));
      expect(rows[0]?.prevHash).toBe(GENESIS_HASH);
      expect(verifyAuditChain(rows)).toEqual({ ok: true, rows: 75, withheld: 0 });
    }
  });

  it('refuses a row that does not continue the chain, whoever writes it', async () => {
    const tenant = { entityId: 'e', orgId: `org-${randomUUID()}` };
    const first = await appendAudit(writers[0] as Kysely<Database>, {
      ...tenant,
      actor: 'u',
      action: 'proposed',
      summary: 'one',
    });
    const forged = (seq: number, prevHash: string) => {
      const row = { ...first, seq, prevHash, summary: 'forged' };
      return [
        tenant.entityId,
        tenant.orgId,
        seq,
        row.at,
        'u',
        'executed',
        null,
        null,
        'forged',
        prevHash,
        auditHash(row),
      ];
    };
    const insert = `insert into audit_log (entity_id, org_id, seq, at, actor, action, tool, args_hash, summary, prev_hash, hash)
      values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;
    for (const values of [forged(3, first.hash), forged(2, GENESIS_HASH), forged(2, 'f'.repeat(64))]) {
      await expect(owner.query(insert, values)).rejects.toMatchObject({ code: '23514' });
    }
    // An org's chain starts at 1 from the genesis hash.
    const other = [
      `e-${randomUUID()}`,
      'org-2',
      1,
      first.at,
      'u',
      'proposed',
      null,
      null,
      's',
      'a'.repeat(64),
      'b'.repeat(64),
    ];
    await expect(owner.query(insert, other)).rejects.toMatchObject({ code: '23514' });
  });

  it('never changes or removes a row, not even for the schema’s owner', async () => {
    const tenant = { entityId: 'e', orgId: `org-${randomUUID()}` };
    await appendAudit(writers[1] as Kysely<Database>, {
      ...tenant,
      actor: 'u',
      action: 'executed',
      summary: 'Paid ₹10',
    });
    const where = [tenant.orgId];
    for (const statement of [
      "update audit_log set summary = 'Paid ₹1' where org_id = $1",
      "update audit_log set actor = 'someone else' where org_id = $1",
      'delete from audit_log where org_id = $1',
    ]) {
      await expect(owner.query(statement, where), statement).rejects.toMatchObject({ code: '42501' });
    }
    await expect(owner.query('truncate audit_log')).rejects.toMatchObject({ code: '42501' });
    const { rows } = await owner.query('select summary from audit_log where org_id = $1', where);
    expect(rows).toEqual([{ summary: 'Paid ₹10' }]);
  });
});

describe('verifying an export finds every change', () => {
  let rows: AuditRow[];
  beforeAll(async () => {
    const tenant = { entityId: 'e', orgId: `org-${randomUUID()}` };
    for (let i = 0; i < 8; i++)
      await appendAudit(writers[i % 3] as Kysely<Database>, {
        ...tenant,
        actor: `user-${i}`,
        action: ACTIONS[i % ACTIONS.length] as AuditAction,
        tool: 'void_invoice',
        argsHash: 'c'.repeat(64),
        summary: summary(i),
      });
    rows = await readAudit(writers[0] as Kysely<Database>, { orgId: tenant.orgId });
  });

  const verify = async (content: unknown) => {
    const file = join(dir, `${randomUUID()}.json`);
    await writeFile(file, JSON.stringify(content));
    return run(process.execPath, [VERIFY, file]).then(
      ({ stdout }) => ({ code: 0, out: stdout }),
      (error: { code: number; stderr: string }) => ({ code: error.code, out: error.stderr }),
    );
  };

  it('passes the export as it came', async () => {
    expect(await verify({ rows })).toEqual({
      code: 0,
      out: 'audit:verify: 8 rows verified: the chain is whole\n',
    });
  });

  it('names the row of any field changed, any row removed, and any row moved', async () => {
    const fields = ['at', 'actor', 'action', 'tool', 'argsHash', 'summary', 'entityId'] as const;
    for (const [i, field] of fields.entries()) {
      const seq = (i % rows.length) + 1;
      const changed = rows.map((r) =>
        r.seq === seq ? { ...r, [field]: field === 'at' ? new Date(0).toISOString() : `${r[field]}x` } : r,
      );
      const result = await verify({ rows: changed });
      expect(result.code, field).toBe(1);
      expect(result.out, field).toMatch(new RegExp(`row ${seq} `));
    }
    const removed = await verify({ rows: rows.filter((r) => r.seq !== 4) });
    expect(removed).toMatchObject({ code: 1 });
    expect(removed.out).toContain('row 4 is missing');
    // A window of the trail (rows 3 to 6) still verifies: its first row against itself.
    expect(await verify({ rows: rows.slice(2, 6) })).toMatchObject({ code: 0 });
    // A rewritten tail, every hash recomputed, still does not name the real row before it.
    const rewritten = rows.slice(0, 5);
    for (const r of rows.slice(5)) {
      const row = {
        ...r,
        summary: 'rewritten',
        prevHash: rewritten.length === 5 ? 'd'.repeat(64) : (rewritten.at(-1)?.hash as string),
      };
      rewritten.push({ ...row, hash: auditHash(row) });
    }
    expect((await verify({ rows: rewritten })).out).toContain('row 6 ');
    // Two rows swapped.
    const swapped = [...rows];
    [swapped[2], swapped[3]] = [swapped[3] as AuditRow, swapped[2] as AuditRow];
    const reordered = await verify({ rows: swapped });
    expect(reordered).toMatchObject({ code: 1 });
    expect(reordered.out).toMatch(/row 3 .*reordered/);
  });

  it('checks the table itself, and names a row changed behind the database’s back', async () => {
    const table = () =>
      run(process.execPath, [VERIFY, '--database'], {
        env: { ...process.env, DATABASE_URL: database.url },
      }).then(
        ({ stdout }) => ({ code: 0, out: stdout }),
        (error: { code: number; stderr: string }) => ({ code: error.code, out: error.stderr }),
      );
    expect(await table()).toMatchObject({
      code: 0,
      out: expect.stringMatching(/rows verified: the chain is whole/),
    });
    // Only a superuser who turns the guard off can change a row; the chain still shows it.
    const client = await owner.connect();
    try {
      await client.query('begin');
      await client.query('alter table audit_log disable trigger audit_log_frozen');
      await client.query(`update audit_log set summary = 'Paid ₹1' where org_id = $1 and seq = 5`, [
        rows[0]?.orgId,
      ]);
      await client.query('alter table audit_log enable trigger audit_log_frozen');
      await client.query('commit');
    } finally {
      client.release();
    }
    const found = await table();
    expect(found.code).toBe(1);
    expect(found.out).toBe(
      `audit:verify: row 5 of org ${rows[0]?.orgId} breaks the chain: its hash is not its own: it was changed\n`,
    );
  });
});

describe('canonical JSON', () => {
  it('sorts keys by code point and parses back to the row, for generated rows', () => {
    const alphabet = ['a', 'B', 'é', 'ह', '"', '\\', '\n', '\u0000', '😀', ',', ':', ' '];
    for (let n = 0; n < 300; n++) {
      const row: Record<string, string | number | null> = {};
      for (let k = 0; k < 1 + (n % 7); k++) {
        const key = Array.from(
          { length: 1 + ((n + k) % 4) },
          (_, j) => alphabet[(n * 7 + k * 3 + j) % alphabet.length],
        ).join('');
        row[key] =
          k % 3 === 0
            ? null
            : k % 3 === 1
              ? n * 1000 + k
              : alphabet.slice(0, (n + k) % alphabet.length).join('');
      }
      const text = canonicalJson(row);
      expect(JSON.parse(text)).toEqual(row);
      const keys = Object.keys(JSON.parse(text));
      expect(keys).toEqual([...keys].sort());
      // Nothing between the tokens: the compact form of the key-sorted row.
      expect(text).toBe(JSON.stringify(Object.fromEntries(keys.map((k) => [k, row[k]]))));
    }
  });
});

describe('the verify command', () => {
  it('says how it is used, and exits 2, when it is not given an export or a database', async () => {
    const usage = (...args: string[]) =>
      run(process.execPath, [VERIFY, ...args], { env: { ...process.env, DATABASE_URL: '' } }).then(
        () => ({ code: 0, out: '' }),
        (error: { code: number; stderr: string }) => ({ code: error.code, out: error.stderr }),
      );
    for (const args of [
      [],
      ['--org', 'x'],
      ['a.json', 'b.json'],
      ['--database'],
      ['--database', database.url, '--org'],
    ])
      expect(await usage(...args), args.join(' ')).toMatchObject({
        code: 2,
        out: expect.stringMatching(/^audit:verify: cannot verify: /),
      });
    expect(await usage(join(dir, 'nothing-here.json'))).toMatchObject({
      code: 2,
      out: expect.stringContaining('ENOENT'),
    });
  });
});

describe('reading an export', () => {
  const row = (seq: number, prevHash: string, fields: Partial<AuditRow> = {}): AuditRow => {
    const unhashed = {
      seq,
      at: new Date(Date.UTC(2026, 0, 1, 0, seq)).toISOString(),
      entityId: 'e-1',
      orgId: 'o-1',
      actor: 'u',
      action: 'executed' as AuditAction,
      tool: 'void_invoice',
      argsHash: null,
      summary: `Voided, "INV-${seq}"`,
      prevHash,
      ...fields,
    };
    return { ...unhashed, hash: auditHash(unhashed) };
  };
  const chain = (n: number) => {
    const rows: AuditRow[] = [];
    for (let seq = 1; seq <= n; seq++)
      rows.push(row(seq, rows.at(-1)?.hash ?? GENESIS_HASH, { tool: seq % 2 ? '' : null }));
    return rows;
  };
  const csv = (rows: readonly ExportedAuditRow[]) => {
    const field = (v: string | number | null) =>
      v === null ? '' : typeof v === 'number' ? String(v) : `"${v.replaceAll('"', '""')}"`;
    return [
      AUDIT_COLUMNS.join(','),
      ...rows.map((r) => AUDIT_COLUMNS.map((c) => field(r[c])).join(',')),
    ].join('\r\n');
  };

  it('reads CSV as JSON: an empty field is null, a quoted empty one the empty string', () => {
    const rows = chain(4);
    expect(parseAuditExport(csv(rows))).toEqual(rows);
    expect(parseAuditExport(JSON.stringify({ rows }))).toEqual(rows);
    expect(parseAuditExport(JSON.stringify(rows))).toEqual(rows);
    expect(verifyAuditExport(csv(rows))).toEqual({
      ok: true,
      message: '4 rows verified: the chain is whole',
    });
  });

  it('follows the chain through a withheld row, and names the row after one whose hash was changed', () => {
    const rows: ExportedAuditRow[] = chain(5).map((r) => (r.seq === 3 ? withhold(r) : r));
    expect(verifyAuditChain(rows)).toEqual({ ok: true, rows: 5, withheld: 1 });
    const changed = rows.map((r) => (r.seq === 3 ? { ...r, hash: 'f'.repeat(64) } : r));
    expect(verifyAuditExport(JSON.stringify({ rows: changed }))).toEqual({
      ok: false,
      message: "row 4 of org o-1 breaks the chain: it does not name row 3's hash",
    });
  });

  it('refuses what is not an export, naming the line or row at fault', () => {
    const rows = chain(3);
    const cases: [string, RegExp][] = [
      ['seq,at\n1,x', /CSV header is not seq,at,entityId/],
      [csv(rows).replace(/\r\n2,/, '\r\nx,'), /^line 3 \(seq x\): seq is not a whole number/],
      [
        JSON.stringify({ rows: rows.map((r) => (r.seq === 2 ? { ...r, seq: '2' } : r)) }),
        /^row 2 \(seq 2\): seq is not/,
      ],
      [
        JSON.stringify({
          rows: [withhold(rows[0] as AuditRow), { ...withhold(rows[1] as AuditRow), summary: 's' }],
        }),
        /^row 2 \(seq 2\): it is withheld but shows summary/,
      ],
      [
        JSON.stringify({ rows: rows.map((r) => (r.seq === 3 ? { ...r, actor: null } : r)) }),
        /^row 3 \(seq 3\): actor is not text/,
      ],
      ['{"rows": 5}', /holds no rows/],
      ['{"rows": [', /not JSON/],
    ];
    for (const [text, error] of cases) expect(() => parseAuditExport(text), text).toThrow(error);
  });
});
