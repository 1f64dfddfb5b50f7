import type { PersonRole } from '@munim/contracts';
import type { Database } from '@munim/db';
import type { Kysely } from 'kysely';
import { CHANNEL, type NoSender, type Sender } from './store-types.ts';

/** What the messaging service reads of the people of an org: who a number names, and who approves. */
export class MessagingPeople {
  protected readonly db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /**
   * The person a number names: exactly one active user with that phone and some role. The entity is
   * the one this phone last wrote about, if the user still has a role there; else the first.
   */
  async sender(phone: string): Promise<Sender | NoSender> {
    const users = await this.db
      .selectFrom('users')
      .select(['id', 'org_id', 'name'])
      .where('phone', '=', phone)
      .where('disabled_at', 'is', null)
      .execute();
    if (users.length === 0) return { reason: 'unknown' };
    if (users.length > 1) return { reason: 'ambiguous' };
    const user = users[0]!;
    const roles = await this.db
      .selectFrom('user_roles')
      .select(['entity_id', 'role'])
      .where('user_id', '=', user.id)
      .where('org_id', '=', user.org_id)
      .orderBy('entity_id')
      .execute();
    if (roles.length === 0) return { reason: 'no_roles' };
    const last = await this.db
      .selectFrom('messaging_conversations')
      .select('entity_id')
      .where('channel', '=', CHANNEL)
      .where('phone', '=', phone)
      .where('org_id', '=', user.org_id)
      .orderBy('last_inbound_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    const entityId =
      last && roles.some((r) => r.entity_id === last.entity_id) ? last.entity_id : roles[0]!.entity_id;
    return {
      userId: user.id,
      name: user.name,
      orgId: user.org_id,
      entityId,
      roles: roles.filter((r) => r.entity_id === entityId).map((r) => r.role as PersonRole),
    };
  }

  /** People of the tenant holding one of `roles`, with a phone, other than `except`. */
  async phonesOf(
    tenant: { entityId: string; orgId: string },
    roles: readonly PersonRole[],
    except: string | null,
  ): Promise<{ userId: string; phone: string; roles: PersonRole[] }[]> {
    if (roles.length === 0) return [];
    const rows = await this.db
      .selectFrom('users as u')
      .innerJoin('user_roles as r', (j) =>
        j.onRef('r.user_id', '=', 'u.id').onRef('r.org_id', '=', 'u.org_id'),
      )
      .select(['u.id', 'u.phone', 'r.role'])
      .where('u.org_id', '=', tenant.orgId)
      .where('r.entity_id', '=', tenant.entityId)
      .where('u.disabled_at', 'is', null)
      .where('u.phone', 'is not', null)
      .execute();
    const byUser = new Map<string, { userId: string; phone: string; roles: PersonRole[] }>();
    for (const row of rows) {
      if (row.id === except || row.phone === null) continue;
      const entry = byUser.get(row.id) ?? { userId: row.id, phone: row.phone, roles: [] };
      entry.roles.push(row.role as PersonRole);
      byUser.set(row.id, entry);
    }
    return [...byUser.values()].filter((p) => p.roles.some((r) => roles.includes(r)));
  }

  /** A user's name, for a card that says who asked. */
  async nameOf(userId: string | null, orgId: string): Promise<string | undefined> {
    if (userId === null) return undefined;
    const row = await this.db
      .selectFrom('users')
      .select('name')
      .where('id', '=', userId)
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    return row?.name;
  }

  /** The business's time zone (India's when it has none set). */
  async timeZoneOf(tenant: { entityId: string; orgId: string }): Promise<string> {
    const row = await this.db
      .selectFrom('business_contexts')
      .select('timezone')
      .where('entity_id', '=', tenant.entityId)
      .where('org_id', '=', tenant.orgId)
      .executeTakeFirst();
    return row?.timezone ?? 'Asia/Kolkata';
  }

  /** A user's roles for the entity of a card (a card may be of another entity than the sender's current one). */
  async rolesFor(userId: string, tenant: { entityId: string; orgId: string }): Promise<PersonRole[]> {
    const rows = await this.db
      .selectFrom('user_roles')
      .select('role')
      .where('user_id', '=', userId)
      .where('org_id', '=', tenant.orgId)
      .where('entity_id', '=', tenant.entityId)
      .execute();
    return rows.map((r) => r.role as PersonRole);
  }
}
