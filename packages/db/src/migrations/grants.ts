import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

/** A service's access to one table: the statements it may run, or for UPDATE the columns. */
export interface Access {
  select?: true;
  insert?: true;
  /** `true` for every column, or the only columns it may set. */
  update?: true | readonly string[];
  delete?: true;
}

/** A service's access, table by table. */
export type Grants = Readonly<Record<string, Access>>;

/** The database role of each service that has one (the validator has none). */
export const SERVICE_ROLES = {
  gateway: 'munim_gateway',
  agent: 'munim_agent',
  router: 'munim_router',
  logger: 'munim_logger',
  'mcp-executor': 'munim_executor',
} as const;

export type RoleService = keyof typeof SERVICE_ROLES;

/** Grants each service's role what `grants` says, with the sequences its inserts need. */
export async function applyGrants(
  db: MigrationDb,
  grants: Partial<Record<RoleService, Grants>>,
): Promise<void> {
  for (const [service, tables] of Object.entries(grants) as [RoleService, Grants][]) {
    const roleName = SERVICE_ROLES[service];
    const role = sql.id(roleName);
    for (const [table, access] of Object.entries(tables)) {
      const t = sql.id(table);
      const whole = [
        access.select && 'select',
        access.insert && 'insert',
        access.update === true && 'update',
        access.delete && 'delete',
      ].filter((p): p is string => typeof p === 'string');
      if (whole.length > 0) await sql`grant ${sql.raw(whole.join(', '))} on ${t} to ${role}`.execute(db);
      if (Array.isArray(access.update)) {
        await sql`grant update (${sql.join(access.update.map((c) => sql.id(c)))}) on ${t} to ${role}`.execute(
          db,
        );
      }
      if (access.insert) {
        // The sequences behind the table's serial columns.
        await sql`
          do $$ declare s text; begin
            for s in select c.oid::regclass::text from pg_class c join pg_depend d on d.objid = c.oid
              where c.relkind = 'S' and d.refobjid = ${sql.lit(table)}::regclass loop
              execute format('grant usage on sequence %s to %I', s, ${sql.lit(roleName)});
            end loop;
          end $$`.execute(db);
      }
    }
  }
}
