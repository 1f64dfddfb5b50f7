import { sql } from 'kysely';
import type { MigrationDb } from './types.ts';

/**
 * Feedback closes the loop. `routing_outcomes` keeps, per request the router
 * learnt from, what it counted (the intent's fast-path outcome at its confidence bucket, the LLM-path
 * pattern) and the feedback score since applied to those counts: the logger turns a request's
 * feedback into a change of the counts once, whatever is delivered twice. `feedback_log.learned_at`
 * says which feedback has been applied; older feedback predates learning and counts as applied.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('routing_outcomes')
    .addColumn('request_id', 'text', (c) => c.primaryKey())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('intent_id', 'text')
    .addColumn('confidence_bucket', sql`numeric(3, 2)`)
    .addColumn('answered', 'boolean', (c) => c.notNull())
    .addColumn('pattern_hash', 'text')
    .addColumn('feedback_score', 'double precision')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      'routing_outcomes_bucket_with_intent',
      sql`(intent_id is null) = (confidence_bucket is null)`,
    )
    .execute();
  await db.schema
    .createIndex('routing_outcomes_intent_scored_idx')
    .on('routing_outcomes')
    .columns(['intent_id', 'confidence_bucket'])
    .where(sql.ref('feedback_score'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('routing_outcomes_pattern_scored_idx')
    .on('routing_outcomes')
    .column('pattern_hash')
    .where(sql.ref('feedback_score'), 'is not', null)
    .execute();

  await db.schema.alterTable('feedback_log').addColumn('learned_at', 'timestamptz').execute();
  await sql`update feedback_log set learned_at = created_at`.execute(db);
  await db.schema
    .createIndex('feedback_log_unlearned_idx')
    .on('feedback_log')
    .column('id')
    .where(sql.ref('learned_at'), 'is', null)
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropIndex('feedback_log_unlearned_idx').ifExists().execute();
  await db.schema.alterTable('feedback_log').dropColumn('learned_at').execute();
  await db.schema.dropTable('routing_outcomes').ifExists().execute();
}
