import type { Database } from '@munim/db';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Logger } from 'pino';

/** One feedback row, as far as its request's score needs it. */
export interface ScoredFeedback {
  id: number;
  kind: 'explicit' | 'implicit';
  score: number | null;
  created_at: Date;
}

/**
 * The feedback score of one request, or null without any: the user's latest thumbs, if any (what
 * they said beats what their behaviour suggests, and a retried thumbs changes nothing), else the
 * lowest implicit signal (a rephrase or a correction, −1, outweighs a follow-up).
 */
export function requestScore(feedback: readonly ScoredFeedback[]): number | null {
  let latest: ScoredFeedback | undefined;
  let lowest: number | null = null;
  for (const f of feedback) {
    if (f.score === null) continue;
    if (f.kind === 'implicit') {
      lowest = lowest === null ? f.score : Math.min(lowest, f.score);
    } else if (
      !latest ||
      f.created_at > latest.created_at ||
      (f.created_at.getTime() === latest.created_at.getTime() && f.id > latest.id)
    ) {
      latest = f;
    }
  }
  return latest ? latest.score : lowest;
}

/** An answer whose feedback is negative counts as a failure of its intent. */
const disappointed = (score: number | null): boolean => score !== null && score < 0;

/** The only key of the learner's lock: one learner at a time, over every logger instance. */
const LEARN_LOCK = 4_242_020;
/** Feedback rows one pass looks at. */
const PAGE = 500;

/** What one pass did. */
export interface LearnPass {
  /** Feedback rows looked at (a full page means more may be waiting). */
  seen: number;
  /** The last feedback id looked at: the next page starts after it. */
  lastId: number;
  /** Requests whose feedback score changed what the stats count. */
  changed: number;
  /** Rows left for later: their request is still running, so its outcome is not counted yet. */
  deferred: number;
  /** Another instance was learning; nothing was done. */
  busy: boolean;
}

interface Change {
  intentId: string | null;
  bucket: number | null;
  patternHash: string | null;
  /** +1: a success became a failure; −1: back; 0: only the score moved. */
  flip: number;
}

/**
 * Applies the feedback not applied yet (after `afterId`, at most `limit` rows) to the stats of the
 * requests it is about, in one transaction: each request's score is worked out again from all its
 * feedback of its own tenant (entity and org) and compared with the score already applied, so
 * feedback delivered twice — a redelivered event, a retried thumbs — changes nothing the second
 * time. A disappointing answer counts as a failure of its intent instead of a success;
 * `avg_feedback_score` of the intent's bucket and of the LLM-path pattern is the mean score of
 * their requests with feedback. Feedback about a request still running waits for its outcome.
 */
export async function learnFeedback(db: Kysely<Database>, afterId = 0, limit = PAGE): Promise<LearnPass> {
  return db.transaction().execute(async (trx) => {
    const pass: LearnPass = { seen: 0, lastId: afterId, changed: 0, deferred: 0, busy: false };
    const { rows } = await sql<{
      locked: boolean;
    }>`select pg_try_advisory_xact_lock(${LEARN_LOCK}::bigint) as locked`.execute(trx);
    if (!rows[0]?.locked) return { ...pass, busy: true };

    const pending = await trx
      .selectFrom('feedback_log')
      .select(['id', 'request_id'])
      .where('learned_at', 'is', null)
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(limit)
      .execute();
    if (pending.length === 0) return pass;
    pass.seen = pending.length;
    pass.lastId = Number(pending.at(-1)!.id);

    const requestIds = [...new Set(pending.flatMap((p) => (p.request_id === null ? [] : [p.request_id])))];
    // Shared locks: a route being settled now is waited for, and one still open stays open until
    // this commits, so its outcome is counted after this, never half-way.
    const open = new Set(
      requestIds.length === 0
        ? []
        : (
            await trx
              .selectFrom('router_routes')
              .select('request_id')
              .where('request_id', 'in', requestIds)
              .forShare()
              .execute()
          ).map((r) => r.request_id),
    );
    const ready = requestIds.filter((id) => !open.has(id));
    const changes = await rescore(trx, ready);
    pass.changed = changes.length;
    await applyChanges(trx, changes);

    const learned = pending.filter((p) => p.request_id === null || !open.has(p.request_id)).map((p) => p.id);
    pass.deferred = pending.length - learned.length;
    if (learned.length > 0) {
      await trx
        .updateTable('feedback_log')
        .set({ learned_at: new Date() })
        .where('id', 'in', learned)
        .execute();
    }
    return pass;
  });
}

/** Scores the requests again from all their feedback; stores and returns the scores that changed. */
async function rescore(trx: Transaction<Database>, requestIds: string[]): Promise<Change[]> {
  if (requestIds.length === 0) return [];
  const outcomes = await trx
    .selectFrom('routing_outcomes')
    .selectAll()
    .where('request_id', 'in', requestIds)
    .execute();
  if (outcomes.length === 0) return [];
  const feedback = await trx
    .selectFrom('feedback_log')
    .select(['id', 'request_id', 'entity_id', 'org_id', 'kind', 'score', 'created_at'])
    .where(
      'request_id',
      'in',
      outcomes.map((o) => o.request_id),
    )
    .execute();

  const changes: Change[] = [];
  const rescored: { id: string; score: number | null }[] = [];
  for (const o of outcomes) {
    // Feedback given in another tenant's name is not about this tenant's answer.
    const own = feedback.filter(
      (f) => f.request_id === o.request_id && f.entity_id === o.entity_id && f.org_id === o.org_id,
    );
    const score = requestScore(own.map((f) => ({ ...f, id: Number(f.id) })));
    if (score === o.feedback_score) continue;
    rescored.push({ id: o.request_id, score });
    const flip = o.answered ? Number(disappointed(score)) - Number(disappointed(o.feedback_score)) : 0;
    changes.push({ intentId: o.intent_id, bucket: o.confidence_bucket, patternHash: o.pattern_hash, flip });
  }
  if (rescored.length > 0) {
    await sql`
      update routing_outcomes o set feedback_score = u.score
      from unnest(${rescored.map((r) => r.id)}::text[], ${rescored.map((r) => r.score)}::float8[])
        as u(request_id, score)
      where o.request_id = u.request_id`.execute(trx);
  }
  return changes;
}

/** Moves each touched intent bucket's successes to failures (or back) and recomputes the mean scores. */
async function applyChanges(trx: Transaction<Database>, changes: Change[]): Promise<void> {
  const flips = new Map<string, { intentId: string; bucket: number; flip: number }>();
  for (const c of changes) {
    if (c.intentId === null || c.bucket === null) continue;
    const key = JSON.stringify([c.intentId, c.bucket]);
    const held = flips.get(key) ?? { intentId: c.intentId, bucket: c.bucket, flip: 0 };
    held.flip += c.flip;
    flips.set(key, held);
  }
  if (flips.size > 0) {
    const buckets = [...flips.values()];
    // Never more than the bucket holds: its counts may have been reset since the request was counted.
    const shift = sql`case when u.flip > 0 then least(u.flip, s.successful_attempts)
      else greatest(u.flip, -s.failed_attempts) end`;
    await sql`
      update intent_routing_stats s set
        successful_attempts = s.successful_attempts - ${shift},
        failed_attempts = s.failed_attempts + ${shift},
        avg_feedback_score = (
          select avg(o.feedback_score) from routing_outcomes o
          where o.intent_id = s.intent_id and o.confidence_bucket = s.confidence_bucket
            and o.feedback_score is not null),
        updated_at = now()
      from unnest(${buckets.map((b) => b.intentId)}::text[], ${buckets.map((b) => b.bucket)}::numeric[],
        ${buckets.map((b) => b.flip)}::int[]) as u(intent_id, bucket, flip)
      where s.intent_id = u.intent_id and s.confidence_bucket = u.bucket`.execute(trx);
  }
  const patterns = [...new Set(changes.flatMap((c) => (c.patternHash === null ? [] : [c.patternHash])))];
  if (patterns.length > 0) {
    await sql`
      update llm_path_patterns p set avg_feedback_score = (
        select avg(o.feedback_score) from routing_outcomes o
        where o.pattern_hash = p.query_hash and o.feedback_score is not null)
      where p.query_hash = any(${patterns}::text[])`.execute(trx);
  }
}

/** The learner of one logger instance: a pass now and then, and soon after new feedback. */
export interface Learner {
  /** Asks for a pass soon (new implicit feedback was recorded). */
  kick(): void;
  /** Stops the timer and waits for a pass under way. */
  stop(): Promise<void>;
}

/** Learns from feedback every `intervalMs` (explicit feedback arrives in the table, not on the bus) and on {@link Learner.kick}. */
export function startLearner(db: Kysely<Database>, log: Logger, intervalMs: number): Learner {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const drain = async () => {
    let afterId = 0;
    for (;;) {
      const pass = await learnFeedback(db, afterId);
      if (pass.changed > 0 || pass.deferred > 0) {
        log.debug({ changed: pass.changed, deferred: pass.deferred }, 'feedback learnt');
      }
      if (pass.busy || pass.seen < PAGE || stopped) return;
      afterId = pass.lastId;
    }
  };

  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain()
      .catch((error: unknown) => log.warn({ err: error }, 'feedback not learnt; trying again later'))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          run();
        }
      });
  };

  const timer = setInterval(run, intervalMs);
  timer.unref();
  run();
  return {
    kick: run,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
