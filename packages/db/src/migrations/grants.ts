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
  messaging: 'munim_messaging',
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

const ident = (name: string) => sql.id(name);

/**
 * Makes a service's login role if the server has none, refuses one that can do more than a
 * service may, and lets it connect, use the schema and read the migration table.
 */
export async function ensureServiceRole(db: MigrationDb, role: string): Promise<void> {
  // Roles belong to the whole server: several munim databases (or migrations running at once)
  // may make the same role; whoever comes second finds it.
  await sql`
    do $$ begin
      if not exists (select from pg_roles where rolname = ${sql.lit(role)}) then
        begin
          create role ${ident(role)} login;
        exception when duplicate_object or unique_violation then null;
        end;
      end if;
    end $$`.execute(db);
  const { rows } = await sql<{ power: string | null; member_of: string | null }>`
    select
      nullif(concat_ws(', ',
        case when r.rolsuper then 'superuser' end, case when r.rolcreaterole then 'createrole' end,
        case when r.rolcreatedb then 'createdb' end, case when r.rolbypassrls then 'bypassrls' end,
        case when r.rolreplication then 'replication' end), '') as power,
      (select string_agg(g.rolname, ', ') from pg_auth_members m join pg_roles g on g.oid = m.roleid
        where m.member = r.oid) as member_of
    from pg_roles r where r.rolname = ${role}`.execute(db);
  const found = rows[0];
  if (found?.power || found?.member_of) {
    throw new Error(
      `the database role ${role} exists with more than a service may have (${[found.power, found.member_of && `member of ${found.member_of}`].filter(Boolean).join('; ')}): ` +
        `remove it (e.g. ALTER ROLE ${role} NOSUPERUSER NOCREATEROLE NOCREATEDB NOBYPASSRLS NOREPLICATION; REVOKE … FROM ${role}) and migrate again`,
    );
  }
  // Usually PUBLIC may connect anyway; a migrator that does not own the database may not grant it.
  await sql`
    do $$ begin
      execute format('grant connect on database %I to %I', current_database(), ${sql.lit(role)});
    exception when insufficient_privilege then
      raise notice 'could not grant connect on this database to %', ${sql.lit(role)};
    end $$`.execute(db);
  await sql`grant usage on schema public to ${ident(role)}`.execute(db);
  // Services check that the schema is current; they never migrate it.
  await sql`grant select on kysely_migration to ${ident(role)}`.execute(db);
}
