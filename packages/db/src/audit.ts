import { createHash } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { AuditAction, Database } from './schema.ts';

/** What the row before an org's first row hashes to. */
export const GENESIS_HASH = '0'.repeat(64);

/** One row of the audit trail, as exported (`GET /v1/audit`). */
export interface AuditRow {
  seq: number;
  /** ISO 8601, UTC, milliseconds. */
  at: string;
  entityId: string;
  orgId: string;
  actor: string;
  action: AuditAction;
  tool: string | null;
  argsHash: string | null;
  summary: string;
  prevHash: string;
  hash: string;
}

/** What a service records; the chain supplies the rest. */
export interface AuditEntry {
  entityId: string;
  orgId: string;
  /** Who did it: a user id, or `program:<key id>`. */
  actor: string;
  action: AuditAction;
  tool?: string | null;
  argsHash?: string | null;
  /** In words, for a finance person: what was done to what. */
  summary: string;
}

/**
 * The canonical JSON of a flat row (RFC 8785 for what audit rows hold: strings, integers and
 * null): keys in code-point order, no whitespace, strings escaped as `JSON.stringify` does.
 */
export function canonicalJson(row: Readonly<Record<string, string | number | null>>): string {
  const keys = Object.keys(row).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(row[k])}`).join(',')}}`;
}

/** The SHA-256 (hex) of `prevHash` and the row's canonical JSON without `hash`. */
export function auditHash(row: Omit<AuditRow, 'hash'>): string {
  const { seq, at, entityId, orgId, actor, action, tool, argsHash, summary, prevHash } = row;
  const body = canonicalJson({ seq, at, entityId, orgId, actor, action, tool, argsHash, summary, prevHash });
  return createHash('sha256').update(prevHash).update(body).digest('hex');
}

/**
 * A row of another entity of the org in an entity's export: only its place in the chain (`seq`,
 * `orgId`, `prevHash`, `hash`), so the chain can be followed through it without showing another
 * entity's business. Its own hash cannot be checked; the links on either side can.
 */
export interface WithheldAuditRow {
  seq: number;
  at: null;
  entityId: null;
  orgId: string;
  actor: null;
  action: null;
  tool: null;
  argsHash: null;
  summary: null;
  prevHash: string;
  hash: string;
}

/** A row of an export: whole, or withheld (another entity's). */
export type ExportedAuditRow = AuditRow | WithheldAuditRow;

/** Whether an exported row is withheld: every row the trail records has an action. */
export const isWithheld = (row: ExportedAuditRow): row is WithheldAuditRow => row.action === null;

/** A row as an export of another entity shows it. */
export function withhold(row: ExportedAuditRow): WithheldAuditRow {
  const { seq, orgId, prevHash, hash } = row;
  const hidden = { entityId: null, actor: null, action: null, tool: null, argsHash: null, summary: null };
  return { seq, at: null, ...hidden, orgId, prevHash, hash };
}

/** Where an audit chain breaks, in words. */
export interface ChainBreak {
  seq: number;
  orgId: string;
  reason: string;
}

/**
 * Checks an export: within each org, rows follow one another (seq + 1, each naming the hash of
 * the one before; an org's first row names the genesis hash) and each whole row's hash is its own
 * (a withheld row's links are checked, its content is not there to check).
 * An export of a window may start after row 1: its first row is checked against itself only.
 */
export function verifyAuditChain(
  rows: readonly ExportedAuditRow[],
): { ok: true; rows: number; withheld: number } | ({ ok: false } & ChainBreak) {
  const byOrg = new Map<string, ExportedAuditRow[]>();
  for (const row of rows) byOrg.set(row.orgId, [...(byOrg.get(row.orgId) ?? []), row]);
  for (const chain of byOrg.values()) {
    // In the order given: a reordered export is a break, as is a removed row.
    const seqs = new Set(chain.map((r) => r.seq));
    let previous: ExportedAuditRow | undefined;
    for (const row of chain) {
      const at = { seq: row.seq, orgId: row.orgId };
      if (row.seq === 1 && row.prevHash !== GENESIS_HASH)
        return { ok: false, ...at, reason: 'the first row does not start the chain' };
      if (previous && row.seq <= previous.seq)
        return { ok: false, ...at, reason: `it comes after row ${previous.seq}: the rows were reordered` };
      if (previous && row.seq !== previous.seq + 1) {
        const next = previous.seq + 1;
        if (seqs.has(next))
          return {
            ok: false,
            seq: next,
            orgId: row.orgId,
            reason: 'it was moved out of its place: the rows were reordered',
          };
        return { ok: false, ...at, reason: `row ${next} is missing` };
      }
      if (previous && row.prevHash !== previous.hash)
        return { ok: false, ...at, reason: `it does not name row ${previous.seq}'s hash` };
      if (!isWithheld(row) && auditHash(row) !== row.hash)
        return { ok: false, ...at, reason: 'its hash is not its own: it was changed' };
      previous = row;
    }
  }
  return { ok: true, rows: rows.length, withheld: rows.filter(isWithheld).length };
}

/** First key of the advisory locks that order each org's appends (any constant unique to the trail). */
const AUDIT_LOCK = 0x61756474;

/**
 * Appends an entry to its org's chain. Appends of one org take turns — a transaction-scoped
 * advisory lock on the org, held until the row is committed — so each continues the chain its
 * predecessor left, however many services append at once, with no retries to run out of; the
 * database still refuses a row that does not continue the chain. Inside a caller's transaction the
 * lock is held to its end, so the row and the change it records commit together.
 */
export async function appendAudit(
  db: Kysely<Database>,
  entry: AuditEntry,
  now = new Date(),
): Promise<AuditRow> {
  if (db.isTransaction) return appendInTurn(db, entry, now);
  return db.transaction().execute((trx) => appendInTurn(trx, entry, now));
}

async function appendInTurn(db: Kysely<Database>, entry: AuditEntry, now: Date): Promise<AuditRow> {
  await sql`select pg_advisory_xact_lock(${AUDIT_LOCK}, hashtext(${entry.orgId}))`.execute(db);
  const last = await db
    .selectFrom('audit_log')
    .select(['seq', 'hash'])
    .where('org_id', '=', entry.orgId)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  const unhashed: Omit<AuditRow, 'hash'> = {
    seq: (last?.seq ?? 0) + 1,
    at: now.toISOString(),
    entityId: entry.entityId,
    orgId: entry.orgId,
    actor: entry.actor,
    action: entry.action,
    tool: entry.tool ?? null,
    argsHash: entry.argsHash ?? null,
    summary: entry.summary,
    prevHash: last?.hash ?? GENESIS_HASH,
  };
  const row = { ...unhashed, hash: auditHash(unhashed) };
  await db
    .insertInto('audit_log')
    .values({
      entity_id: row.entityId,
      org_id: row.orgId,
      seq: row.seq,
      at: row.at,
      actor: row.actor,
      action: row.action,
      tool: row.tool,
      args_hash: row.argsHash,
      summary: row.summary,
      prev_hash: row.prevHash,
      hash: row.hash,
    })
    .execute();
  return row;
}

type AuditLogRow = Selectable<Database['audit_log']>;

/** A row of the table as exported. */
const exported = (r: AuditLogRow): AuditRow => ({
  seq: Number(r.seq),
  at: new Date(r.at).toISOString(),
  entityId: r.entity_id,
  orgId: r.org_id,
  actor: r.actor,
  action: r.action,
  tool: r.tool,
  argsHash: r.args_hash,
  summary: r.summary,
  prevHash: r.prev_hash,
  hash: r.hash,
});

/** An org's rows in a window (every org's, without one), oldest first, as exported. */
export async function readAudit(
  db: Kysely<Database>,
  scope: { orgId?: string } = {},
  window: { from?: Date; to?: Date } = {},
): Promise<AuditRow[]> {
  let query = db.selectFrom('audit_log').selectAll();
  if (scope.orgId !== undefined) query = query.where('org_id', '=', scope.orgId);
  if (window.from) query = query.where('at', '>=', window.from);
  if (window.to) query = query.where('at', '<', window.to);
  const rows = await query.orderBy('org_id').orderBy('seq').execute();
  return rows.map(exported);
}

/**
 * The places of an org's chain that a window of time covers: from the first row at or after
 * `from` to the last row before `to`, so an export of it is one unbroken piece of the chain (rows
 * written at nearly the same time by two services may take their places out of time order).
 * Null when no row is in the window.
 */
export async function auditSeqRange(
  db: Kysely<Database>,
  orgId: string,
  window: { from?: Date | undefined; to?: Date | undefined } = {},
): Promise<{ first: number; last: number } | null> {
  let query = db
    .selectFrom('audit_log')
    .select((eb) => [eb.fn.min('seq').as('first'), eb.fn.max('seq').as('last')])
    .where('org_id', '=', orgId);
  if (window.from) query = query.where('at', '>=', window.from);
  if (window.to) query = query.where('at', '<', window.to);
  const range = await query.executeTakeFirst();
  if (range?.first == null || range.last == null) return null;
  return { first: Number(range.first), last: Number(range.last) };
}

/** Up to `limit` rows of an org's chain from place `from` through place `through`, in order. */
export async function readAuditPlaces(
  db: Kysely<Database>,
  orgId: string,
  places: { from: number; through: number; limit: number },
): Promise<AuditRow[]> {
  const rows = await db
    .selectFrom('audit_log')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('seq', '>=', places.from)
    .where('seq', '<=', places.through)
    .orderBy('seq')
    .limit(places.limit)
    .execute();
  return rows.map(exported);
}
