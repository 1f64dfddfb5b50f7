import { sql } from 'kysely';
import { type Access, applyGrants, ensureServiceRole, type Grants, SERVICE_ROLES } from './grants.ts';
import type { MigrationDb } from './types.ts';

/**
 * Least privilege: each service logs in as its own role, which may run only the statements that
 * service needs. The roles are made here, without passwords (whoever deploys sets them: the
 * launcher, the migrate step with `<SERVICE>_DB_PASSWORD`, or an operator), and they may do nothing
 * else: no superuser, no role or database creation, no DDL, no membership of other roles.
 *
 * Rules the grants keep:
 * - only the agent proposes pending actions (INSERT), only the executor records that it used an
 *   approval (the `executed_*` columns), and a pending action settles as a success only after that;
 * - no service deletes or rewrites an event, usage or audit row: the logger may only move an
 *   event earlier in its request (a redelivered copy found first), and old events leave only
 *   through `munim_delete_old_events`, which deletes by age alone.
 */

const ALL: Access = { select: true, insert: true, update: true, delete: true };
const READ: Access = { select: true };

/** What each role may do, table by table, as this migration granted it. */
export const SERVICE_GRANTS: Readonly<Record<keyof typeof SERVICE_ROLES, Grants>> = {
  // Made later (0032), with its tables.
  messaging: {},
  gateway: {
    request_events: READ,
    query_routing_logs: READ,
    intents: { select: true, insert: true, update: true },
    tool_registry: READ,
    tool_pins: { select: true, update: true },
    unified_conversations: { select: true, update: ['is_deleted', 'updated_at'] },
    feedback_log: { select: true, insert: true },
    suggested_intents: { select: true, update: true },
    quick_suggestions: ALL,
    llm_configs: { select: true, insert: true, update: true },
    attachments: ALL,
    tenant_usage: ALL,
  },
  agent: {
    pending_actions: {
      select: true,
      insert: true,
      update: ['status', 'decided_at', 'approved_at', 'approved_by_request', 'result'],
    },
    unified_conversations: { select: true, insert: true, update: true },
    llm_usage_logs: { insert: true },
    llm_configs: { select: true, update: ['total_input_tokens', 'total_output_tokens', 'total_requests'] },
    attachments: READ,
    tenant_usage: ALL,
    business_contexts: READ,
    country_configs: READ,
    intents: READ,
    quick_suggestions: READ,
  },
  router: {
    pending_actions: READ,
    intents: READ,
    unified_conversations: READ,
    response_cache: ALL,
    intent_routing_stats: { select: true, insert: true, update: true },
    llm_path_patterns: { select: true, insert: true, update: true },
    suggested_intents: { select: true, insert: true },
    router_routes: ALL,
    routing_outcomes: { select: true, insert: true },
  },
  logger: {
    request_events: { select: true, insert: true, update: ['seq'] },
    query_routing_logs: { select: true, insert: true, update: true },
    feedback_log: { select: true, insert: true, update: ['learned_at'] },
    intent_routing_stats: { select: true, update: true },
    llm_path_patterns: { select: true, update: true },
    router_routes: READ,
    routing_outcomes: { select: true, update: ['feedback_score'] },
  },
  'mcp-executor': {
    pending_actions: {
      select: true,
      update: ['executed_call_id', 'executed_request_id', 'executed_at'],
    },
    tool_registry: { select: true, insert: true, update: true },
    tool_pins: { select: true, insert: true, update: true },
    tool_idempotency: ALL,
  },
};

const ident = (name: string) => sql.id(name);

export { SERVICE_ROLES };

export async function up(db: MigrationDb): Promise<void> {
  for (const role of Object.values(SERVICE_ROLES)) await ensureServiceRole(db, role);

  // Before PostgreSQL 15 every role could create tables in `public`; no service may.
  await sql`
    do $$ begin
      if pg_has_role((select nspowner from pg_namespace where nspname = 'public'), 'usage')
        or (select rolsuper from pg_roles where rolname = current_user) then
        revoke create on schema public from public;
      end if;
    end $$`.execute(db);

  await applyGrants(db, SERVICE_GRANTS);

  // A pending action settles as a success only after the executor used its approval.
  await sql`
    create or replace function munim_pending_action_guard() returns trigger language plpgsql as $$
    begin
      if new.status = 'executed' and old.status is distinct from 'executed'
        and new.executed_at is null and coalesce(new.result->>'success', 'false') = 'true' then
        raise exception 'pending action % is marked executed successfully, but the executor never used its approval', new.action_id
          using errcode = 'check_violation';
      end if;
      return new;
    end $$`.execute(db);
  await sql`drop trigger if exists pending_action_guard on pending_actions`.execute(db);
  await sql`create trigger pending_action_guard before update on pending_actions
    for each row execute function munim_pending_action_guard()`.execute(db);

  // An event row never changes, except that a copy found earlier in the stream moves it earlier.
  await sql`
    create or replace function munim_request_event_guard() returns trigger language plpgsql as $$
    begin
      if (new.id, new.request_id, new.type, new.service, new.conversation_id, new.entity_id, new.org_id,
          new.payload, new.ts)
        is distinct from (old.id, old.request_id, old.type, old.service, old.conversation_id, old.entity_id,
          old.org_id, old.payload, old.ts)
        or new.seq > old.seq then
        raise exception 'request event % is stored for good: only its position may move earlier', old.id
          using errcode = 'insufficient_privilege';
      end if;
      return new;
    end $$`.execute(db);
  await sql`drop trigger if exists request_event_guard on request_events`.execute(db);
  await sql`create trigger request_event_guard before update on request_events
    for each row execute function munim_request_event_guard()`.execute(db);

  // Retention: the logger deletes events by age, through this function, and no other way.
  await sql`
    create or replace function munim_delete_old_events(cutoff timestamptz, chunk integer)
    returns integer language sql security definer set search_path = public, pg_temp as $$
      with gone as (
        delete from request_events
        where id in (select id from request_events where ts < cutoff limit least(greatest(chunk, 1), 50000))
        returning 1)
      select count(*)::integer from gone
    $$`.execute(db);
  await sql`revoke all on function munim_delete_old_events(timestamptz, integer) from public`.execute(db);
  await sql`grant execute on function munim_delete_old_events(timestamptz, integer) to ${ident(SERVICE_ROLES.logger)}`.execute(
    db,
  );
  for (const fn of ['munim_pending_action_guard()', 'munim_request_event_guard()']) {
    await sql`revoke all on function ${sql.raw(fn)} from public`.execute(db);
  }
}

export async function down(db: MigrationDb): Promise<void> {
  await sql`drop trigger if exists pending_action_guard on pending_actions`.execute(db);
  await sql`drop trigger if exists request_event_guard on request_events`.execute(db);
  await sql`drop function if exists munim_pending_action_guard()`.execute(db);
  await sql`drop function if exists munim_request_event_guard()`.execute(db);
  await sql`drop function if exists munim_delete_old_events(timestamptz, integer)`.execute(db);
  // The roles belong to the server and may serve other databases: only this database's grants go.
  for (const role of Object.values(SERVICE_ROLES)) {
    await sql`revoke all on all tables in schema public from ${ident(role)}`.execute(db);
    await sql`revoke all on all sequences in schema public from ${ident(role)}`.execute(db);
    await sql`revoke all on schema public from ${ident(role)}`.execute(db);
  }
}
