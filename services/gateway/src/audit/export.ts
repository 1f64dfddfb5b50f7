import { Readable } from 'node:stream';
import {
  AUDIT_COLUMNS,
  auditSeqRange,
  type Database,
  type ExportedAuditRow,
  readAuditPlaces,
  withhold,
} from '@munim/db';
import { stringify } from 'csv-stringify';
import type { Kysely } from 'kysely';
import type { Tenant } from '../auth.ts';

/** Rows read from the database at a time: an export of any length is streamed in such pages. */
export const AUDIT_PAGE_ROWS = 500;

/** A window of the trail: rows at or after `from`, before `to`. */
export interface AuditWindow {
  from?: Date | undefined;
  to?: Date | undefined;
}

/**
 * The tenant's rows of its org's chain in the window, oldest first, a page at a time; the
 * org's other entities' rows withheld (their place in the chain only). The places are fixed when
 * the export starts: rows appended while it streams are for the next export.
 */
export async function* auditPages(
  db: Kysely<Database>,
  tenant: Tenant,
  window: AuditWindow,
): AsyncGenerator<ExportedAuditRow[]> {
  const range = await auditSeqRange(db, tenant.orgId, window);
  if (!range) return;
  for (let from = range.first; from <= range.last; from += AUDIT_PAGE_ROWS) {
    const rows = await readAuditPlaces(db, tenant.orgId, {
      from,
      through: Math.min(range.last, from + AUDIT_PAGE_ROWS - 1),
      limit: AUDIT_PAGE_ROWS,
    });
    yield rows.map((row) => (row.entityId === tenant.entityId ? row : withhold(row)));
  }
}

/** A row with its keys in the export's order. */
const ordered = (row: ExportedAuditRow) =>
  Object.fromEntries(AUDIT_COLUMNS.map((column) => [column, row[column]]));

/** The JSON export (`{ "rows": [...] }`) of the pages, as a stream of text. */
export function auditJson(pages: AsyncIterable<ExportedAuditRow[]>): Readable {
  return Readable.from(
    (async function* () {
      yield '{"rows":[';
      let first = true;
      for await (const page of pages) {
        for (const row of page) {
          yield `${first ? '' : ','}${JSON.stringify(ordered(row))}`;
          first = false;
        }
      }
      yield ']}\n';
    })(),
  );
}

/**
 * The CSV export of the pages (RFC 4180: a header row, fields quoted where they hold a comma,
 * quote or line break), as a stream of text. A null is an empty field, an empty string `""`.
 */
export function auditCsv(pages: AsyncIterable<ExportedAuditRow[]>): Readable {
  const rows = Readable.from(
    (async function* () {
      for await (const page of pages) yield* page.map(ordered);
    })(),
  );
  const csv = stringify({ header: true, columns: [...AUDIT_COLUMNS], quoted_match: /^$/, eof: true });
  rows.on('error', (error) => csv.destroy(error));
  return rows.pipe(csv);
}
