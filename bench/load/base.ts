/**
 * The "A" of an A/B load run: another commit of this repository checked out beside this one (a
 * detached git worktree under the system's temp folder), its workspace installed from the local
 * pnpm store, so the same run can measure the system as it was and as it is.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface BaseCheckout {
  /** The worktree's folder: where its services start from. */
  root: string;
  /** The commit, abbreviated, as the report names it. */
  label: string;
}

/** Checks `ref` out (once per commit: a later run reuses it) and installs its workspace. */
export async function checkoutBase(ref: string): Promise<BaseCheckout> {
  const { stdout } = await run('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: ROOT }).catch(
    (error: unknown) => {
      throw new Error(`BENCH_LOAD_BASE: "${ref}" is not a commit of this repository`, { cause: error });
    },
  );
  const sha = stdout.trim();
  const root = join(tmpdir(), `munim-bench-base-${sha.slice(0, 12)}`);
  if (!existsSync(join(root, '.git'))) {
    await run('git', ['worktree', 'prune'], { cwd: ROOT });
    await run('git', ['worktree', 'add', '--detach', '--force', root, sha], { cwd: ROOT });
  }
  // The lockfile's packages are in the store already (this checkout installed them or their like).
  await run('pnpm', ['install', '--frozen-lockfile', '--prefer-offline', '--reporter=silent'], {
    cwd: root,
    env: { ...process.env, CI: 'true' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return { root, label: sha.slice(0, 7) };
}

/** Migrates a database with the base's own migrations (its services check the schema is theirs). */
export async function migrateWithBase(root: string, databaseUrl: string): Promise<void> {
  const script = `
    const { createDb, migrateToLatest } = await import('./packages/db/src/index.ts');
    const db = createDb(process.env.BENCH_DATABASE_URL, { max: 1 });
    try { await migrateToLatest(db); } finally { await db.destroy(); }`;
  await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    env: { ...process.env, BENCH_DATABASE_URL: databaseUrl },
  });
}
