/**
 * Verifies the audit trail: every org's rows follow one another and each row's hash is its own.
 * `npm run audit:verify -- audit.json` (or `audit.csv`) checks an export (`GET /v1/audit`);
 * `npm run audit:verify -- --database [url] [--org <orgId>]` checks the table (at DATABASE_URL
 * without a url). Exits 0 when the chain holds, 1 naming the first row that was changed, removed
 * or reordered, 2 on bad input.
 */
import { readFileSync } from 'node:fs';
import { type ExportedAuditRow, readAudit, verifyAuditChain } from './audit.ts';
import { parseAuditExport, verdictOf } from './audit-export.ts';
import { createDb } from './db.ts';

const USAGE =
  'give an export file (npm run audit:verify -- audit.json, or audit.csv) or --database [url] [--org <orgId>]';

/** What to verify, from the command line. */
function target(args: readonly string[]): { file: string } | { database: string; orgId?: string } {
  const at = args.indexOf('--database');
  if (at === -1) {
    const [file, ...rest] = args;
    if (!file || file.startsWith('--') || rest.length > 0) throw new Error(USAGE);
    return { file };
  }
  const rest = args.filter((_, i) => i !== at);
  const url = rest[0] && !rest[0].startsWith('--') ? rest.shift() : process.env.DATABASE_URL;
  if (!url) throw new Error('--database without a url reads DATABASE_URL, which is not set');
  if (rest.length === 0) return { database: url };
  const [flag, orgId, ...extra] = rest;
  if (flag !== '--org' || !orgId || extra.length > 0) throw new Error(USAGE);
  return { database: url, orgId };
}

async function rowsOf(source: ReturnType<typeof target>): Promise<ExportedAuditRow[]> {
  if ('file' in source) return parseAuditExport(readFileSync(source.file, 'utf8'));
  const db = createDb(source.database, { max: 1 });
  try {
    return await readAudit(db, source.orgId === undefined ? {} : { orgId: source.orgId });
  } finally {
    await db.destroy();
  }
}

let rows: ExportedAuditRow[];
try {
  rows = await rowsOf(target(process.argv.slice(2)));
} catch (error) {
  console.error(`audit:verify: cannot verify: ${(error as Error).message}`);
  process.exit(2);
}
const verdict = verdictOf(verifyAuditChain(rows));
if (verdict.ok) console.log(`audit:verify: ${verdict.message}`);
else {
  console.error(`audit:verify: ${verdict.message}`);
  process.exitCode = 1;
}
