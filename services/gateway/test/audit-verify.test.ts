// The documented verify command (`npm run audit:verify`) on exports taken through GET /v1/audit,
// JSON and CSV alike, and on the table itself: a field changed, a row removed or two rows swapped
// is found and its row named, for fixed cases and for generated ones (a random row, a random
// field, a random new value); the export as it came passes. Real PostgreSQL; the table is changed
// by its owner with the guard turned off, as only someone going behind the database's back could.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { promisify } from 'node:util';
import { AUDIT_ACTIONS } from '@munim/contracts';
import {
  AUDIT_COLUMNS,
  type AuditAction,
  AuditExportError,
  appendAudit,
  createDb,
  type Database,
  type ExportedAuditRow,
  parseAuditExport,
  verifyAuditExport,
} from '@munim/db';
import { test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect } from 'vitest';
import { auditCsv } from '../src/audit/export.ts';
import { startGateway } from './helpers.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../../..');
const VERIFY = join(ROOT, 'packages/db/src/verify-audit-main.ts');
const KEY = 'audit-verify-owner-key-00000001';
const ROWS = 24;

let writer: Kysely<Database>;
let gatewayDb: Kysely<Database>;
let owner: pg.Pool;
let databaseUrl: string;
let url: string;
let stop: () => Promise<void>;
let dir: string;
/** The exports as the gateway gave them. */
let json: string;
let csv: string;
let rows: ExportedAuditRow[];

interface Verdict {
  code: number;
  out: string;
}

/** Runs the verifier on a file holding `content`, or with the given arguments. */
async function verify(content: string | { args: string[] }, ext = 'json'): Promise<Verdict> {
  let args: string[];
  if (typeof content === 'string') {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.${ext}`);
    await writeFile(file, content);
    args = [file];
  } else args = content.args;
  return run(process.execPath, [VERIFY, ...args]).then(
    ({ stdout }) => ({ code: 0, out: stdout }),
    (error: { code: number; stderr: string }) => ({ code: error.code, out: error.stderr }),
  );
}

const csvOf = (changed: readonly ExportedAuditRow[]) =>
  text(
    auditCsv(
      (async function* () {
        yield [...changed];
      })(),
    ),
  );
const jsonOf = (changed: readonly ExportedAuditRow[]) => JSON.stringify({ rows: changed });

test.beforeAll(async ({ nats, database, serviceLogins }) => {
  databaseUrl = database.url;
  writer = createDb(serviceLogins['mcp-executor'], { max: 2 });
  gatewayDb = createDb(serviceLogins.gateway, { max: 2 });
  owner = new pg.Pool({ connectionString: database.url, max: 1 });
  dir = await mkdtemp(join(tmpdir(), 'munim-audit-verify-'));
  for (let i = 0; i < ROWS; i++)
    await appendAudit(writer, {
      // Every fourth row is another entity's: withheld in ent-1's export. The last is ent-1's.
      entityId: i % 4 === 2 ? 'ent-2' : 'ent-1',
      orgId: 'org-a',
      actor: `user-${i % 3}`,
      action: AUDIT_ACTIONS[i % AUDIT_ACTIONS.length] as AuditAction,
      tool: i % 5 === 0 ? null : 'record_payment',
      argsHash: i % 5 === 0 ? null : `${i}`.padStart(64, 'b'),
      summary: i % 6 === 1 ? `Paid "Acme, Ltd"\nline ${i}` : `Voided INV-${1000 + i}`,
    });
  const started = await startGateway(nats, { GATEWAY_API_KEYS: `${KEY}:ent-1:org-a` }, gatewayDb);
  url = started.url;
  stop = () => started.gateway.stop();
  const exported = (format: string) =>
    fetch(`${url}/v1/audit?format=${format}`, { headers: { authorization: `Bearer ${KEY}` } }).then((r) =>
      r.text(),
    );
  json = await exported('json');
  csv = await exported('csv');
  rows = parseAuditExport(json);
});

afterAll(async () => {
  await stop?.();
  await gatewayDb?.destroy();
  await writer?.destroy();
  await owner?.end();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('npm run audit:verify on an export', () => {
  test('passes the JSON and the CSV export as they came', async () => {
    expect(rows.length).toBe(ROWS);
    const whole = `audit:verify: ${ROWS} rows verified (6 of them withheld, other entities' rows whose links alone are checked): the chain is whole\n`;
    expect(await verify(json)).toEqual({ code: 0, out: whole });
    expect(await verify(csv, 'csv')).toEqual({ code: 0, out: whole });
    // The documented command itself, as an operator runs it.
    const file = join(dir, 'as-exported.csv');
    await writeFile(file, csv);
    const npm = await run('npm', ['run', '--silent', 'audit:verify', '--', file], { cwd: ROOT });
    expect(npm.stdout).toBe(whole);
  });

  test('names the row of a field changed, a row removed and two rows swapped, in JSON', async () => {
    const changed = rows.map((r) =>
      r.seq === 6 ? ({ ...r, summary: `${r.summary}.` } as ExportedAuditRow) : r,
    );
    expect(await verify(jsonOf(changed))).toEqual({
      code: 1,
      out: 'audit:verify: row 6 of org org-a breaks the chain: its hash is not its own: it was changed\n',
    });
    expect(await verify(jsonOf(rows.filter((r) => r.seq !== 12)))).toEqual({
      code: 1,
      out: 'audit:verify: row 13 of org org-a breaks the chain: row 12 is missing\n',
    });
    const swapped = [...rows];
    [swapped[4], swapped[9]] = [swapped[9] as ExportedAuditRow, swapped[4] as ExportedAuditRow];
    expect(await verify(jsonOf(swapped))).toEqual({
      code: 1,
      out: 'audit:verify: row 5 of org org-a breaks the chain: it was moved out of its place: the rows were reordered\n',
    });
  });

  test('names the row of a field changed, a row removed and two rows swapped, in the CSV text', async () => {
    const lines = csv.split('\n');
    const lineOf = (seq: number) => lines.findIndex((line) => line.startsWith(`${seq},`));
    // Row 9's summary is "Voided INV-1008": one character changed in the file.
    expect(csv).toContain('Voided INV-1008');
    expect(await verify(csv.replace('Voided INV-1008', 'Voided INV-1009'), 'csv')).toEqual({
      code: 1,
      out: 'audit:verify: row 9 of org org-a breaks the chain: its hash is not its own: it was changed\n',
    });
    const removed = lines.filter((_, i) => i !== lineOf(10));
    expect(await verify(removed.join('\n'), 'csv')).toEqual({
      code: 1,
      out: 'audit:verify: row 11 of org org-a breaks the chain: row 10 is missing\n',
    });
    const swapped = [...lines];
    const [a, b] = [lineOf(15), lineOf(16)];
    [swapped[a], swapped[b]] = [swapped[b] as string, swapped[a] as string];
    expect(await verify(swapped.join('\n'), 'csv')).toEqual({
      code: 1,
      out: 'audit:verify: row 15 of org org-a breaks the chain: it was moved out of its place: the rows were reordered\n',
    });
    // A file that is not an export is bad input (2), not a verdict.
    expect(await verify('seq,at\n1,2\n', 'csv')).toMatchObject({ code: 2 });
  });
});

/** A seeded generator of numbers in [0, 1) (mulberry32), so a failing case can be run again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Another value for a field: another number for `seq`; for text, null, or one character changed. */
function otherValue(value: string | number | null, next: () => number): string | number | null {
  if (typeof value === 'number') {
    const other = 1 + Math.floor(next() * (ROWS + 5));
    return other === value ? value + 1 : other;
  }
  if (value === null) return `x${Math.floor(next() * 100)}`;
  if (next() < 0.25) return null;
  if (value === '') return 'x';
  const at = Math.floor(next() * value.length);
  const char = value[at] === 'a' ? 'b' : 'a';
  return value.slice(0, at) + char + value.slice(at + 1);
}

interface Tampering {
  rows: ExportedAuditRow[];
  /** The rows the verifier may name for it: the changed row by its old or new place, or the two swapped. */
  names: number[];
  what: string;
}

/**
 * One random tampering: a random field of a random row changed, a row removed, or two rows
 * swapped. A removed first or last row is no break in the chain (an export may be a window), so
 * the row removed is one in between.
 */
function tamper(exported: readonly ExportedAuditRow[], next: () => number): Tampering {
  const pick = (n: number) => Math.floor(next() * n);
  const kind = pick(5);
  if (kind === 0) {
    const i = 1 + pick(exported.length - 2);
    const seq = (exported[i] as ExportedAuditRow).seq;
    return { rows: exported.filter((_, j) => j !== i), names: [seq], what: `row ${seq} removed` };
  }
  if (kind === 1) {
    const i = pick(exported.length);
    const j = (i + 1 + pick(exported.length - 1)) % exported.length;
    const swapped = [...exported];
    [swapped[i], swapped[j]] = [exported[j] as ExportedAuditRow, exported[i] as ExportedAuditRow];
    const names = [i, j].map((k) => (exported[k] as ExportedAuditRow).seq);
    return { rows: swapped, names, what: `rows ${names.join(' and ')} swapped` };
  }
  const i = pick(exported.length);
  const row = exported[i] as ExportedAuditRow;
  const field = AUDIT_COLUMNS[pick(AUDIT_COLUMNS.length)] as (typeof AUDIT_COLUMNS)[number];
  const value = otherValue(row[field], next);
  expect(value).not.toBe(row[field]);
  const changed = { ...row, [field]: value } as ExportedAuditRow;
  const names = field === 'seq' ? [row.seq, value as number] : [row.seq];
  return {
    rows: exported.map((r, j) => (j === i ? changed : r)),
    names,
    what: `row ${row.seq}'s ${field} changed from ${JSON.stringify(row[field])} to ${JSON.stringify(value)}`,
  };
}

/** What the verifier says of an export's text; a file it cannot read as rows names the row too. */
function verdictOn(text: string): { ok: boolean; message: string } {
  try {
    return verifyAuditExport(text);
  } catch (error) {
    if (error instanceof AuditExportError) return { ok: false, message: error.message };
    throw error;
  }
}

describe('generated tamperings', () => {
  test.each([
    ['JSON', 1],
    ['CSV', 2],
  ] as const)('are found in the %s export, and the row named (seed %i)', async (format, seed) => {
    const next = random(seed);
    const counts = { found: 0, cases: 0 };
    for (let n = 0; n < 150; n++) {
      const tampering = tamper(rows, next);
      const file = format === 'JSON' ? jsonOf(tampering.rows) : await csvOf(tampering.rows);
      const verdict = verdictOn(file);
      const named = new RegExp(`\\b(row|seq) (${tampering.names.join('|')})\\b`);
      expect({ case: tampering.what, ok: verdict.ok }).toEqual({ case: tampering.what, ok: false });
      expect(verdict.message, tampering.what).toMatch(named);
      counts.cases++;
      if (!verdict.ok) counts.found++;
    }
    expect(counts).toEqual({ found: 150, cases: 150 });
    // The generator leaves the export alone when it changes nothing: the same rows verify.
    expect(verdictOn(format === 'JSON' ? jsonOf(rows) : await csvOf(rows)).ok).toBe(true);
  });
});

describe('npm run audit:verify -- --database', () => {
  /** Changes the table as its owner with the guards off, runs `work`, and puts it back. */
  async function behindTheBack(statements: string[], undo: string[], work: () => Promise<void>) {
    const change = async (list: string[]) => {
      const client = await owner.connect();
      try {
        await client.query('begin');
        await client.query('alter table audit_log disable trigger user');
        for (const statement of list) await client.query(statement);
        await client.query('alter table audit_log enable trigger user');
        await client.query('commit');
      } finally {
        client.release();
      }
    };
    await change(statements);
    try {
      await work();
    } finally {
      await change(undo);
    }
  }
  /** A row of the table as it is now, as SQL that yields it again. */
  async function saved(where: string): Promise<string> {
    const { rows: found } = await owner.query(
      `select row_to_json(a)::text as json from audit_log a where ${where}`,
    );
    expect(found).toHaveLength(1);
    return `json_populate_record(null::audit_log, ${pg.escapeLiteral(found[0].json)})`;
  }
  const table = (...extra: string[]) => verify({ args: ['--database', databaseUrl, ...extra] });
  const whole = (n: number) => ({ code: 0, out: `audit:verify: ${n} rows verified: the chain is whole\n` });

  test('names the row changed, removed or moved in the table itself; --org checks one org', async () => {
    await appendAudit(writer, {
      entityId: 'ent-9',
      orgId: 'org-b',
      actor: 'u',
      action: 'proposed',
      summary: 'b',
    });
    expect(await table()).toEqual(whole(ROWS + 1));
    const where = "org_id = 'org-a'";
    await behindTheBack(
      [`update audit_log set summary = 'Voided INV-9999' where ${where} and seq = 9`],
      [`update audit_log set summary = 'Voided INV-1008' where ${where} and seq = 9`],
      async () => {
        expect(await table()).toEqual({
          code: 1,
          out: 'audit:verify: row 9 of org org-a breaks the chain: its hash is not its own: it was changed\n',
        });
        expect(await table('--org', 'org-b')).toEqual(whole(1));
      },
    );
    expect(await table('--org', 'org-a')).toEqual(whole(ROWS));
    await behindTheBack(
      [`delete from audit_log where ${where} and seq = 20`],
      [`insert into audit_log select * from ${await saved(`${where} and seq = 20`)}`],
      async () => {
        expect(await table('--org', 'org-a')).toEqual({
          code: 1,
          out: 'audit:verify: row 21 of org org-a breaks the chain: row 20 is missing\n',
        });
      },
    );
    // Two rows trade places: each now sits where its hash says it does not.
    const swap = [
      `update audit_log set seq = 1000 where ${where} and seq = 4`,
      `update audit_log set seq = 4 where ${where} and seq = 5`,
      `update audit_log set seq = 5 where ${where} and seq = 1000`,
    ];
    await behindTheBack(swap, swap, async () => {
      expect(await table()).toEqual({
        code: 1,
        out: "audit:verify: row 4 of org org-a breaks the chain: it does not name row 3's hash\n",
      });
    });
    expect(await table()).toEqual(whole(ROWS + 1));
  });

  test('finds generated changes to random rows and columns of the table', async () => {
    const next = random(3);
    const columns = [
      'at',
      'entity_id',
      'actor',
      'action',
      'tool',
      'args_hash',
      'summary',
      'prev_hash',
      'hash',
    ];
    for (let n = 0; n < 8; n++) {
      const seq = 1 + Math.floor(next() * ROWS);
      const column = columns[Math.floor(next() * columns.length)] as string;
      const value =
        column === 'at'
          ? "at + interval '1 millisecond'"
          : column === 'action'
            ? "case when action = 'failed' then 'executed' else 'failed' end"
            : column.endsWith('hash')
              ? `case when ${column} = repeat('e', 64) then repeat('f', 64) else repeat('e', 64) end`
              : `coalesce(${column}, '') || 'x'`;
      const place = `org_id = 'org-a' and seq = ${seq}`;
      await behindTheBack(
        [`update audit_log set ${column} = ${value} where ${place}`],
        [
          `update audit_log a set ${column} = r.${column} from ${await saved(place)} r where a.org_id = 'org-a' and a.seq = ${seq}`,
        ],
        async () => {
          const verdict = await table('--org', 'org-a');
          const what = `row ${seq}'s ${column} changed`;
          expect({ what, code: verdict.code }).toEqual({ what, code: 1 });
          expect(verdict.out, what).toMatch(new RegExp(`row ${seq}\\b`));
        },
      );
    }
    expect(await table('--org', 'org-a')).toEqual(whole(ROWS));
  });
});
