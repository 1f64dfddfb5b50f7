import { parse } from 'csv-parse/sync';
import { type ExportedAuditRow, verifyAuditChain } from './audit.ts';

/** The columns of an export, in order: the CSV's header row, the keys of each JSON row. */
export const AUDIT_COLUMNS = [
  'seq',
  'at',
  'entityId',
  'orgId',
  'actor',
  'action',
  'tool',
  'argsHash',
  'summary',
  'prevHash',
  'hash',
] as const;

type Column = (typeof AUDIT_COLUMNS)[number];
const ALWAYS: readonly Column[] = ['orgId', 'prevHash', 'hash'];
const CONTENT: readonly Column[] = ['at', 'entityId', 'actor', 'action', 'summary'];
const OPTIONAL: readonly Column[] = ['tool', 'argsHash'];

/** An export that cannot be read as one: not JSON or CSV, or a row of the wrong shape. */
export class AuditExportError extends Error {
  override name = 'AuditExportError';
}

/**
 * The rows of an export (`GET /v1/audit`), JSON (`{ rows: [...] }` or an array) or CSV (a header
 * row naming the columns; an empty unquoted field is null, `""` the empty string), told apart by
 * their first character. Throws {@link AuditExportError} naming the first row that is not a row.
 */
export function parseAuditExport(text: string): ExportedAuditRow[] {
  const body = text.replace(/^\uFEFF/, '');
  const json = /^\s*[[{]/.test(body);
  const records = json ? jsonRecords(body) : csvRecords(body);
  return records.map((record, index) =>
    auditRowOf(
      record,
      json
        ? { where: `row ${index + 1}`, seqAsText: false }
        : { where: `line ${index + 2}`, seqAsText: true },
    ),
  );
}

function jsonRecords(text: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new AuditExportError(`it is not JSON: ${(error as Error).message}`);
  }
  const rows = Array.isArray(parsed) ? parsed : (parsed as { rows?: unknown }).rows;
  if (!Array.isArray(rows)) throw new AuditExportError('its JSON holds no rows');
  return rows;
}

function csvRecords(text: string): unknown[] {
  let records: string[][];
  try {
    // Every field as written; `quoting` tells an empty string ("") from an empty (null) field.
    records = parse(text, {
      cast: (value, context) => (context.quoting || value !== '' ? value : (null as unknown as string)),
    }) as string[][];
  } catch (error) {
    throw new AuditExportError(`it is neither JSON nor CSV: ${(error as Error).message}`);
  }
  const [header, ...lines] = records;
  if (!header || header.join(',') !== AUDIT_COLUMNS.join(','))
    throw new AuditExportError(`its CSV header is not ${AUDIT_COLUMNS.join(',')}`);
  return lines.map((fields) => Object.fromEntries(AUDIT_COLUMNS.map((c, i) => [c, fields[i]])));
}

/**
 * A record as an exported row, or the error naming where (`row N`/`line N`) and what is wrong.
 * CSV holds text alone: its `seq` is read as a number; JSON's must be one.
 */
function auditRowOf(
  record: unknown,
  { where, seqAsText }: { where: string; seqAsText: boolean },
): ExportedAuditRow {
  if (typeof record !== 'object' || record === null || Array.isArray(record))
    throw new AuditExportError(`${where} is not a row`);
  const fields = record as Record<string, unknown>;
  const bad = (what: string): never => {
    const seq =
      typeof fields.seq === 'number' || typeof fields.seq === 'string' ? ` (seq ${fields.seq})` : '';
    throw new AuditExportError(`${where}${seq}: ${what}`);
  };
  const seq =
    seqAsText && typeof fields.seq === 'string' && /^[1-9][0-9]{0,15}$/.test(fields.seq)
      ? Number(fields.seq)
      : fields.seq;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1)
    bad('seq is not a whole number from 1');
  for (const column of ALWAYS) if (typeof fields[column] !== 'string') bad(`${column} is not text`);
  const withheld = fields.action === null;
  for (const column of [...CONTENT, ...OPTIONAL]) {
    const value = fields[column];
    if (
      withheld
        ? value !== null
        : !(typeof value === 'string' || (value === null && OPTIONAL.includes(column)))
    )
      bad(withheld ? `it is withheld but shows ${column}` : `${column} is not text`);
  }
  const row = Object.fromEntries(AUDIT_COLUMNS.map((column) => [column, fields[column]]));
  return { ...row, seq } as ExportedAuditRow;
}

/** What the verifier says of an export's text: whether its chain holds, in words. */
export function verifyAuditExport(text: string): { ok: boolean; message: string } {
  return verdictOf(verifyAuditChain(parseAuditExport(text)));
}

/** A chain check's verdict in words: rows verified (and withheld), or the first row that breaks it. */
export function verdictOf(verdict: ReturnType<typeof verifyAuditChain>): { ok: boolean; message: string } {
  if (!verdict.ok)
    return {
      ok: false,
      message: `row ${verdict.seq} of org ${verdict.orgId} breaks the chain: ${verdict.reason}`,
    };
  const withheld =
    verdict.withheld > 0
      ? ` (${verdict.withheld} of them withheld, other entities' rows whose links alone are checked)`
      : '';
  return { ok: true, message: `${verdict.rows} rows verified${withheld}: the chain is whole` };
}
