import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { SERVICE_GRANTS as ROLES_GRANTS, SERVICE_ROLES } from './migrations/0024_service_roles.ts';
import { PEOPLE_GRANTS } from './migrations/0025_people.ts';
import { ACTOR_GRANTS } from './migrations/0026_actor.ts';
import { APPROVAL_POLICY_GRANTS } from './migrations/0027_approval_policies.ts';
import { APPROVAL_GRANTS } from './migrations/0028_approval_flow.ts';
import { TAX_RULE_GRANTS } from './migrations/0029_tax_rules.ts';
import { LOCK_DATE_GRANTS } from './migrations/0030_lock_dates.ts';
import { MESSAGING_GRANTS } from './migrations/0032_messaging.ts';
import { ROUTER_BUSINESS_GRANTS } from './migrations/0033_router_business.ts';
import { MESSAGING_REPLY_GRANTS } from './migrations/0035_messaging_replies.ts';
import { CHAT_NUMBER_GRANTS } from './migrations/0037_chat_numbers.ts';
import type { Access, Grants } from './migrations/grants.ts';

export { SERVICE_ROLES };

/** Two grants on one table together: grants only add. */
function both(a: Access | undefined, b: Access | undefined): Access {
  const update =
    a?.update === true || b?.update === true
      ? true
      : [...new Set([...(a?.update || []), ...(b?.update || [])])];
  return {
    ...(a?.select || b?.select ? { select: true } : {}),
    ...(a?.insert || b?.insert ? { insert: true } : {}),
    ...(update === true || update.length > 0 ? { update } : {}),
    ...(a?.delete || b?.delete ? { delete: true } : {}),
  };
}

/** One service's grants of several migrations together, table by table. */
function merged(...all: (Grants | undefined)[]): Grants {
  const out: Record<string, Access> = {};
  for (const grants of all)
    for (const [table, access] of Object.entries(grants ?? {})) out[table] = both(out[table], access);
  return out;
}

/** What each service's role may do, table by table: every migration's grants together. */
export const SERVICE_GRANTS = Object.fromEntries(
  Object.entries(ROLES_GRANTS).map(([service, grants]) => {
    const s = service as keyof typeof SERVICE_ROLES;
    return [
      s,
      merged(
        grants,
        PEOPLE_GRANTS[s],
        ACTOR_GRANTS[s],
        APPROVAL_POLICY_GRANTS[s],
        APPROVAL_GRANTS[s],
        TAX_RULE_GRANTS[s],
        LOCK_DATE_GRANTS[s],
        MESSAGING_GRANTS[s],
        ROUTER_BUSINESS_GRANTS[s],
        MESSAGING_REPLY_GRANTS[s],
        CHAT_NUMBER_GRANTS[s],
      ),
    ];
  }),
) as Readonly<Record<keyof typeof SERVICE_ROLES, Grants>>;

/** A service that logs in to PostgreSQL (the validator does not). */
export type DbService = keyof typeof SERVICE_ROLES;

/** The services with a database role, in the order of `SERVICE_ROLES`. */
export const DB_SERVICES = Object.keys(SERVICE_ROLES) as DbService[];

/** `<SERVICE>_DB_PASSWORD`: where the migrate step finds a service role's password. */
export function passwordVariable(service: DbService): string {
  return `${service.toUpperCase().replaceAll('-', '_')}_DB_PASSWORD`;
}

/**
 * A SCRAM-SHA-256 verifier of `password`, as PostgreSQL stores it: setting a role's password this
 * way never sends the password itself, so it cannot land in the server's statement log.
 */
export function scramVerifier(password: string, salt = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest('base64');
  const serverKey = createHmac('sha256', salted).update('Server Key').digest('base64');
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey}:${serverKey}`;
}

// Roles belong to the server: other databases' migrations or launchers may alter the same role
// at the same moment ("tuple concurrently updated").
const CONCURRENT_UPDATE = /tuple concurrently (updated|deleted)/;

/** Sets the given service roles' passwords (as SCRAM verifiers). */
export async function setServicePasswords(
  // biome-ignore lint/suspicious/noExplicitAny: works on any schema, like a migration
  db: Kysely<any>,
  passwords: Partial<Record<DbService, string | undefined>>,
): Promise<void> {
  for (const [service, password] of Object.entries(passwords) as [DbService, string | undefined][]) {
    if (!password) continue;
    const role = SERVICE_ROLES[service];
    for (let attempt = 1; ; attempt++) {
      try {
        await sql`alter role ${sql.id(role)} password ${sql.lit(scramVerifier(password))}`.execute(db);
        break;
      } catch (error) {
        if (attempt >= 5 || !CONCURRENT_UPDATE.test(String((error as Error).message))) throw error;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }
}

/**
 * The password a local stack gives a service role: derived from the owner's own password, so the
 * launcher stores nothing more and each start gives the same one. Without an owner password (a
 * server trusting local connections) there is none.
 */
export function derivedPassword(ownerUrl: string, service: DbService): string | undefined {
  const secret = decodeURIComponent(new URL(ownerUrl).password);
  if (!secret) return undefined;
  return createHmac('sha256', secret).update(`munim database role ${SERVICE_ROLES[service]}`).digest('hex');
}

/** `url` with the service's role (and password, when given) in place of its user. */
export function serviceUrl(url: string, service: DbService, password?: string): string {
  const u = new URL(url);
  u.username = SERVICE_ROLES[service];
  u.password = password ? encodeURIComponent(password) : '';
  return u.toString();
}

/**
 * For a stack run here (the launcher, tests): each service's URL on the database of `ownerUrl`,
 * logging in as its own role, with its derived password set. The database must be migrated.
 */
export async function localServiceLogins(
  // biome-ignore lint/suspicious/noExplicitAny: works on any schema, like a migration
  ownerDb: Kysely<any>,
  ownerUrl: string,
): Promise<Record<DbService, string>> {
  const passwords = Object.fromEntries(DB_SERVICES.map((s) => [s, derivedPassword(ownerUrl, s)])) as Record<
    DbService,
    string | undefined
  >;
  await setServicePasswords(ownerDb, passwords);
  return Object.fromEntries(DB_SERVICES.map((s) => [s, serviceUrl(ownerUrl, s, passwords[s])])) as Record<
    DbService,
    string
  >;
}

/** A service's DATABASE_URL logs in with more power than a service may have. */
export class PrivilegedLoginError extends Error {
  override name = 'PrivilegedLoginError';
}

/**
 * Stops a service that logs in as a superuser, or a role that makes roles or databases or
 * bypasses row security: a service logs in as its own role (`SERVICE_ROLES`), whose grants are
 * all it may do.
 */
// biome-ignore lint/suspicious/noExplicitAny: works on any schema, like a migration
export async function assertServiceLogin(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ name: string; powers: string | null }>`
    select rolname as name, nullif(concat_ws(', ',
      case when rolsuper then 'superuser' end, case when rolcreaterole then 'createrole' end,
      case when rolcreatedb then 'createdb' end, case when rolbypassrls then 'bypassrls' end), '') as powers
    from pg_roles where rolname = current_user`.execute(db);
  const login = rows[0];
  if (login?.powers) {
    throw new PrivilegedLoginError(
      `DATABASE_URL logs in as ${login.name}, which has ${login.powers}: a service logs in as its own role ` +
        `(${Object.values(SERVICE_ROLES).join(', ')}), made by the migrations with only the grants it needs ` +
        '(npm start does this; elsewhere set <SERVICE>_DB_PASSWORD for the migrate step and use that role)',
    );
  }
}
