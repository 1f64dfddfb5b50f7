import { sql } from 'kysely';
import { type Migration, type MigrationResult, Migrator } from 'kysely/migration';
import * as initial from './migrations/0001_initial.ts';
import * as starterIntents from './migrations/0002_starter_intents.ts';
import * as moreIntents from './migrations/0003_more_intents.ts';
import * as toolIdempotency from './migrations/0004_tool_idempotency.ts';
import * as pendingActions from './migrations/0006_pending_actions.ts';
import * as routerRoutes from './migrations/0008_router_routes.ts';
import * as conversationSummary from './migrations/0009_conversation_summary.ts';
import * as loggerIndexes from './migrations/0010_logger_indexes.ts';
import * as quickSuggestions from './migrations/0011_quick_suggestions.ts';
import * as llmConfigs from './migrations/0012_llm_configs.ts';
import * as attachments from './migrations/0013_attachments.ts';
import * as feedbackLookupIndex from './migrations/0014_feedback_lookup_index.ts';
import * as toolAccess from './migrations/0015_tool_access.ts';
import * as writeApprovals from './migrations/0016_write_approvals.ts';
import * as orgTenantKeys from './migrations/0017_org_tenant_keys.ts';
import * as tenantUsage from './migrations/0018_tenant_usage.ts';
import * as businessContext from './migrations/0019_business_context.ts';
import * as feedbackLearning from './migrations/0020_feedback_learning.ts';
import * as toolPins from './migrations/0021_tool_pins.ts';
import * as approvalBinding from './migrations/0022_approval_binding.ts';
import { resealLlmKeys } from './migrations/0023_reseal_llm_keys.ts';
import * as serviceRoles from './migrations/0024_service_roles.ts';
import * as people from './migrations/0025_people.ts';
import * as actor from './migrations/0026_actor.ts';
import * as approvalPolicies from './migrations/0027_approval_policies.ts';
import * as approvalFlow from './migrations/0028_approval_flow.ts';
import * as taxRules from './migrations/0029_tax_rules.ts';
import * as lockDates from './migrations/0030_lock_dates.ts';
import * as keyKind from './migrations/0031_key_kind.ts';
import * as messaging from './migrations/0032_messaging.ts';
import * as routerBusiness from './migrations/0033_router_business.ts';
import * as grantAudit from './migrations/0034_grant_audit.ts';
import * as messagingReplies from './migrations/0035_messaging_replies.ts';
import * as llmFallbacks from './migrations/0036_llm_fallbacks.ts';
import * as chatNumbers from './migrations/0037_chat_numbers.ts';
import type { MigrationDb } from './migrations/types.ts';

/** Advisory lock key held while migrating (any constant unique to munim). */
const MIGRATION_LOCK_ID = 4_242_001;

/** What some migrations need from the environment. */
export interface MigrateOptions {
  /** `LLM_CONFIG_KEY` as written (hex or base64): 0023 seals legacy model API keys with it. */
  llmConfigKey?: string | undefined;
}

/** Every migration, by name, as run without options; names sort in the order they run. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_initial': initial,
  '0002_starter_intents': starterIntents,
  '0003_more_intents': moreIntents,
  '0004_tool_idempotency': toolIdempotency,
  '0006_pending_actions': pendingActions,
  '0009_conversation_summary': conversationSummary,
  '0008_router_routes': routerRoutes,
  '0010_logger_indexes': loggerIndexes,
  '0011_quick_suggestions': quickSuggestions,
  '0012_llm_configs': llmConfigs,
  '0013_attachments': attachments,
  '0014_feedback_lookup_index': feedbackLookupIndex,
  '0015_tool_access': toolAccess,
  '0016_write_approvals': writeApprovals,
  '0017_org_tenant_keys': orgTenantKeys,
  '0018_tenant_usage': tenantUsage,
  '0019_business_context': businessContext,
  '0020_feedback_learning': feedbackLearning,
  '0021_tool_pins': toolPins,
  '0022_approval_binding': approvalBinding,
  '0023_reseal_llm_keys': resealLlmKeys(undefined),
  '0024_service_roles': serviceRoles,
  '0025_people': people,
  '0026_actor': actor,
  '0027_approval_policies': approvalPolicies,
  '0028_approval_flow': approvalFlow,
  '0029_tax_rules': taxRules,
  '0030_lock_dates': lockDates,
  '0031_key_kind': keyKind,
  '0032_messaging': messaging,
  '0033_router_business': routerBusiness,
  '0034_grant_audit': grantAudit,
  '0035_messaging_replies': messagingReplies,
  '0036_llm_fallbacks': llmFallbacks,
  '0037_chat_numbers': chatNumbers,
};

/** Migrating the database failed; `cause` is the database's error, `results` what ran. */
export class MigrationError extends Error {
  override name = 'MigrationError';
  readonly results: readonly MigrationResult[];
  constructor(message: string, results: readonly MigrationResult[], options?: ErrorOptions) {
    super(message, options);
    this.results = results;
  }
}

/**
 * Brings the database to the latest migration. Idempotent, and safe when several services
 * start at once: a session-level advisory lock serialises them (kysely's own lock is taken
 * only after it creates its bookkeeping tables, and concurrent `create table if not exists`
 * can fail in PostgreSQL), so the others wait and then find nothing left to do. `options` gives
 * what some migrations need (0023 fails without `llmConfigKey` while legacy model keys are stored).
 */
export async function migrateToLatest(db: MigrationDb, options: MigrateOptions = {}): Promise<void> {
  const withOptions = { ...MIGRATIONS, '0023_reseal_llm_keys': resealLlmKeys(options.llmConfigKey) };
  let outcome: Awaited<ReturnType<Migrator['migrateToLatest']>>;
  try {
    outcome = await db.connection().execute(async (conn) => {
      await sql`select pg_advisory_lock(${MIGRATION_LOCK_ID})`.execute(conn);
      try {
        const migrator = new Migrator({
          db: conn,
          provider: { getMigrations: async () => withOptions },
          // Numbers are allotted per feature, so a database may have run a later one first.
          allowUnorderedMigrations: true,
        });
        return await migrator.migrateToLatest();
      } finally {
        await sql`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`.execute(conn);
      }
    });
  } catch (error) {
    throw new MigrationError(`database migration failed: ${describe(error)}`, [], { cause: error });
  }
  const results = outcome.results ?? [];
  if (outcome.error !== undefined) {
    const failed = results.find((r) => r.status === 'Error')?.migrationName;
    const which = failed ? ` ${failed}` : '';
    throw new MigrationError(`database migration${which} failed: ${describe(outcome.error)}`, results, {
      cause: outcome.error,
    });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The database's schema is not the one this code was written for; the message says what to do. */
export class SchemaNotCurrentError extends Error {
  override name = 'SchemaNotCurrentError';
}

/**
 * Checks, without changing anything, that every migration of this code has run: services start
 * on a migrated database (the launcher, or a deployment's migrate step, runs `npm run migrate`
 * once before them) instead of migrating it concurrently themselves.
 */
export async function assertSchemaCurrent(db: MigrationDb): Promise<void> {
  let applied: Set<string>;
  try {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => ({ ...MIGRATIONS }) } });
    applied = new Set(
      (await migrator.getMigrations()).filter((m) => m.executedAt !== undefined).map((m) => m.name),
    );
  } catch (error) {
    throw new SchemaNotCurrentError(`the database schema cannot be read: ${describe(error)}`, {
      cause: error,
    });
  }
  const pending = Object.keys(MIGRATIONS).filter((name) => !applied.has(name));
  if (pending.length > 0) {
    throw new SchemaNotCurrentError(
      `the database schema is not current: ${pending.length} migration(s) have not run (${pending.join(', ')}); ` +
        'run `npm run migrate` with this DATABASE_URL (or the deployment’s migrate step) first',
    );
  }
}
