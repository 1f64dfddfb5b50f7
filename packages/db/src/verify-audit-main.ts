/**
 * Verifies the audit trail: every org's rows follow one another and each row's hash is its own.
 * `npm run audit:verify -- export.json` checks an export (`GET /v1/audit?format=json`);
 * `npm run audit:verify -- --database` checks the table at DATABASE_URL. Exits 0 when the chain
 * holds, 1 naming the first row that was changed, removed or reordered, 2 on bad input.
 */
import { readFileSync } from 'node:fs';
import { type AuditRow, readAudit, verifyAuditChain } from './audit.ts';
import { createDb } from './db.ts';

const target = process.argv[2];
if (!target) {
  console.error('audit:verify: give an export file (npm run audit:verify -- audit.json) or --database');
  process.exit(2);
}

async function rowsOf(source: string): Promise<AuditRow[]> {
  if (source === '--database') {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error('--database reads DATABASE_URL, which is not set');
    const db = createDb(url, { max: 1 });
    try {
      return await readAudit(db);
    } finally {
      await db.destroy();
    }
  }
  const parsed = JSON.parse(readFileSync(source, 'utf8')) as { rows?: unknown } | unknown[];
  const rows = Array.isArray(parsed) ? parsed : parsed.rows;
  if (!Array.isArray(rows)) throw new Error('it holds no rows');
  return rows as AuditRow[];
}

let rows: AuditRow[];
try {
  rows = await rowsOf(target);
} catch (error) {
  console.error(`audit:verify: cannot read ${target}: ${(error as Error).message}`);
  process.exit(2);
}
const verdict = verifyAuditChain(rows);
if (verdict.ok) {
  console.log(`audit:verify: ${verdict.rows} rows verified: the chain is whole`);
} else {
  console.error(
    `audit:verify: row ${verdict.seq} of org ${verdict.orgId} breaks the chain: ${verdict.reason}`,
  );
  process.exitCode = 1;
}
