/**
 * Verifies an audit trail export (`GET /v1/audit?format=json`): every tenant's rows follow one
 * another and each row's hash is its own. `node packages/db/src/verify-audit-main.ts export.json`
 * (or `npm run audit:verify -- export.json`); exits 0 when it holds, 1 naming the first broken row.
 */
import { readFileSync } from 'node:fs';
import { type AuditRow, verifyAuditChain } from './audit.ts';

const file = process.argv[2];
if (!file) {
  console.error('audit:verify: give the export file, e.g. npm run audit:verify -- audit.json');
  process.exit(2);
}
let rows: AuditRow[];
try {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { rows?: AuditRow[] } | AuditRow[];
  rows = Array.isArray(parsed) ? parsed : (parsed.rows ?? []);
  if (!Array.isArray(rows)) throw new Error('no rows');
} catch (error) {
  console.error(`audit:verify: ${file} is not an audit export (${(error as Error).message})`);
  process.exit(2);
}
const verdict = verifyAuditChain(rows);
if (verdict.ok) {
  console.log(`audit:verify: ${verdict.rows} rows verified: the chain is whole`);
} else {
  console.error(
    `audit:verify: row ${verdict.seq} of entity ${verdict.entityId}, org ${verdict.orgId} breaks the chain: ${verdict.reason}`,
  );
  process.exitCode = 1;
}
