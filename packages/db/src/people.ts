import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { USER_ROLES } from './migrations/0025_people.ts';
import type { Database, KeyKind, UserRole } from './schema.ts';

export { USER_ROLES };

/** A role a user holds for one entity of its org. */
export interface EntityRole {
  entityId: string;
  role: UserRole;
}

/** A person (or a program) of an org, as the admin API shows it. */
export interface Person {
  userId: string;
  orgId: string;
  name: string;
  email: string | null;
  phone: string | null;
  roles: EntityRole[];
  disabled: boolean;
  createdAt: string;
  createdBy: string;
}

/** Who a presented API key belongs to. */
export interface KeyHolder {
  keyId: string;
  /** A person's own key, or a program's. */
  kind: KeyKind;
  userId: string;
  orgId: string;
  name: string;
  roles: EntityRole[];
}

/** A request about people that cannot be done: `code` says why, the message names what. */
export class PeopleError extends Error {
  override name = 'PeopleError';
  readonly code: 'INVALID_INPUT' | 'NOT_FOUND' | 'CONFLICT';
  constructor(code: PeopleError['code'], message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

const E164 = /^\+[1-9][0-9]{6,14}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const KEY_PREFIX = 'munim_';

/** The SHA-256 (hex) an API key is kept as. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function check(input: {
  name?: string | undefined;
  email?: string | null | undefined;
  phone?: string | null | undefined;
}) {
  if (input.name !== undefined && input.name.trim() === '')
    throw new PeopleError('INVALID_INPUT', 'name: must not be empty');
  if (input.email && !EMAIL.test(input.email))
    throw new PeopleError('INVALID_INPUT', `email: ${JSON.stringify(input.email)} is not an email address`);
  if (input.phone && !E164.test(input.phone))
    throw new PeopleError(
      'INVALID_INPUT',
      `phone: ${JSON.stringify(input.phone)} is not an international number in E.164 form (e.g. +919812345678)`,
    );
}

function checkRoles(roles: readonly EntityRole[]) {
  for (const r of roles) {
    if (!USER_ROLES.includes(r.role))
      throw new PeopleError(
        'INVALID_INPUT',
        `roles: ${JSON.stringify(r.role)} is not one of ${USER_ROLES.join(', ')}`,
      );
    if (!r.entityId) throw new PeopleError('INVALID_INPUT', 'roles: each role names its entityId');
  }
}

const UNIQUE_VIOLATION = '23505';

async function grantRoles(
  trx: Kysely<Database>,
  orgId: string,
  userId: string,
  roles: readonly EntityRole[],
  by: string,
): Promise<void> {
  if (roles.length === 0) return;
  await trx
    .insertInto('user_roles')
    .values(
      roles.map((r) => ({
        user_id: userId,
        org_id: orgId,
        entity_id: r.entityId,
        role: r.role,
        granted_by: by,
      })),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** The people of each org: users, their roles per entity and their API keys (kept only as hashes). */
export class People {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Adds a user with its roles; `by` is who did it. */
  async create(
    orgId: string,
    input: {
      name: string;
      email?: string | null | undefined;
      phone?: string | null | undefined;
      roles: EntityRole[];
    },
    by: string,
  ): Promise<Person> {
    check(input);
    checkRoles(input.roles);
    const userId = randomUUID();
    try {
      await this.#db.transaction().execute(async (trx) => {
        await trx
          .insertInto('users')
          .values({
            id: userId,
            org_id: orgId,
            name: input.name.trim(),
            email: input.email ?? null,
            phone: input.phone ?? null,
            created_by: by,
          })
          .execute();
        await grantRoles(trx, orgId, userId, input.roles, by);
      });
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION)
        throw new PeopleError('CONFLICT', `email: ${input.email} already belongs to a user of this org`, {
          cause: error,
        });
      throw error;
    }
    return (await this.get(orgId, userId)) as Person;
  }

  /** One user of the org, or undefined. */
  async get(orgId: string, userId: string): Promise<Person | undefined> {
    return (await this.#read(orgId, userId))[0];
  }

  /** Every user of the org, by name. */
  list(orgId: string): Promise<Person[]> {
    return this.#read(orgId);
  }

  /** Replaces a user's roles. */
  async setRoles(orgId: string, userId: string, roles: EntityRole[], by: string): Promise<Person> {
    checkRoles(roles);
    await this.#exists(orgId, userId);
    await this.#db.transaction().execute(async (trx) => {
      await trx.deleteFrom('user_roles').where('user_id', '=', userId).where('org_id', '=', orgId).execute();
      await grantRoles(trx, orgId, userId, roles, by);
    });
    return (await this.get(orgId, userId)) as Person;
  }

  /** Disables a user: its keys stop working, its history stays. */
  async disable(orgId: string, userId: string): Promise<void> {
    await this.#exists(orgId, userId);
    await this.#db
      .updateTable('users')
      .set({ disabled_at: new Date() })
      .where('id', '=', userId)
      .where('org_id', '=', orgId)
      .where('disabled_at', 'is', null)
      .execute();
  }

  /** Makes an API key for a user: the key is in the answer only, never stored. */
  async issueKey(
    orgId: string,
    userId: string,
    opts: { label?: string | undefined; kind?: KeyKind | undefined; by: string },
  ): Promise<{ keyId: string; key: string; prefix: string; kind: KeyKind }> {
    await this.#exists(orgId, userId);
    const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
    const keyId = randomUUID();
    const prefix = key.slice(0, KEY_PREFIX.length + 6);
    await this.#db
      .insertInto('api_keys')
      .values({
        id: keyId,
        user_id: userId,
        org_id: orgId,
        key_hash: hashApiKey(key),
        shown_prefix: prefix,
        label: opts.label ?? null,
        kind: opts.kind ?? 'person',
        created_by: opts.by,
      })
      .execute();
    return { keyId, key, prefix, kind: opts.kind ?? 'person' };
  }

  /** A user's keys (never the keys themselves). */
  async keys(orgId: string, userId: string) {
    const rows = await this.#db
      .selectFrom('api_keys')
      .select(['id', 'shown_prefix', 'label', 'kind', 'created_at', 'revoked_at', 'last_used_at'])
      .where('org_id', '=', orgId)
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute();
    return rows.map((r) => ({
      keyId: r.id,
      prefix: r.shown_prefix,
      label: r.label,
      kind: r.kind,
      createdAt: new Date(r.created_at).toISOString(),
      revokedAt: r.revoked_at ? new Date(r.revoked_at).toISOString() : null,
      lastUsedAt: r.last_used_at ? new Date(r.last_used_at).toISOString() : null,
    }));
  }

  /** Revokes a key of the org; false when the org has no such key (or it was revoked already). */
  async revokeKey(orgId: string, keyId: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('api_keys')
      .set({ revoked_at: new Date() })
      .where('id', '=', keyId)
      .where('org_id', '=', orgId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Who a presented key belongs to: undefined for an unknown or revoked key, or a disabled user. */
  async authenticate(key: string): Promise<KeyHolder | undefined> {
    if (!key.startsWith(KEY_PREFIX)) return undefined;
    const row = await this.#db
      .selectFrom('api_keys as k')
      .innerJoin('users as u', (j) => j.onRef('u.id', '=', 'k.user_id').onRef('u.org_id', '=', 'k.org_id'))
      .select(['k.id as key_id', 'k.kind', 'k.user_id', 'k.org_id', 'u.name'])
      .where('k.key_hash', '=', hashApiKey(key))
      .where('k.revoked_at', 'is', null)
      .where('u.disabled_at', 'is', null)
      .executeTakeFirst();
    if (!row) return undefined;
    await this.#db
      .updateTable('api_keys')
      .set({ last_used_at: new Date() })
      .where('id', '=', row.key_id)
      .execute();
    const roles = await this.#db
      .selectFrom('user_roles')
      .select(['entity_id', 'role'])
      .where('user_id', '=', row.user_id)
      .where('org_id', '=', row.org_id)
      .orderBy('entity_id')
      .orderBy('role')
      .execute();
    return {
      keyId: row.key_id,
      kind: row.kind,
      userId: row.user_id,
      orgId: row.org_id,
      name: row.name,
      roles: roles.map((r) => ({ entityId: r.entity_id, role: r.role })),
    };
  }

  async #exists(orgId: string, userId: string): Promise<void> {
    const found = await this.#db
      .selectFrom('users')
      .select('id')
      .where('id', '=', userId)
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    if (!found) throw new PeopleError('NOT_FOUND', `user ${userId} is not a user of org ${orgId}`);
  }

  async #read(orgId: string, userId?: string): Promise<Person[]> {
    let query = this.#db.selectFrom('users').selectAll().where('org_id', '=', orgId);
    if (userId) query = query.where('id', '=', userId);
    const users = await query.orderBy('name').orderBy('id').execute();
    if (users.length === 0) return [];
    const roles = await this.#db
      .selectFrom('user_roles')
      .select(['user_id', 'entity_id', 'role'])
      .where('org_id', '=', orgId)
      .where(
        'user_id',
        'in',
        users.map((u) => u.id),
      )
      .orderBy('entity_id')
      .orderBy('role')
      .execute();
    return users.map((u) => ({
      userId: u.id,
      orgId: u.org_id,
      name: u.name,
      email: u.email,
      phone: u.phone,
      roles: roles.filter((r) => r.user_id === u.id).map((r) => ({ entityId: r.entity_id, role: r.role })),
      disabled: u.disabled_at !== null,
      createdAt: new Date(u.created_at).toISOString(),
      createdBy: u.created_by,
    }));
  }
}
