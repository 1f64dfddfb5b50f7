import { createDb, type Database } from '@munim/db';
import { test } from '@munim/testkit';
import { type Kysely, sql } from 'kysely';
import { pino } from 'pino';
import { beforeEach, describe, expect } from 'vitest';
import { learnFeedback, requestScore, type ScoredFeedback, startLearner } from '../src/learn.ts';

const at = (s: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, s));
const explicit = (id: number, score: number, s = id): ScoredFeedback => ({
  id,
  kind: 'explicit',
  score,
  created_at: at(s),
});
const implicit = (id: number, score: number | null): ScoredFeedback => ({
  id,
  kind: 'implicit',
  score,
  created_at: at(id),
});

describe('the feedback score of a request', () => {
  test('is the latest thumbs, whatever the behaviour around it', () => {
    expect(requestScore([explicit(1, -1), explicit(2, 1)])).toBe(1);
    expect(requestScore([explicit(2, 1), explicit(1, -1, 3)])).toBe(-1);
    // Stored in the same instant: the later row is the later word.
    expect(requestScore([explicit(5, 1, 9), explicit(4, -1, 9)])).toBe(1);
    expect(requestScore([implicit(1, -1), explicit(2, 1)])).toBe(1);
    expect(requestScore([explicit(1, -1), explicit(2, -1)])).toBe(-1);
  });

  test('is the lowest implicit signal without a thumbs, and null without feedback', () => {
    expect(requestScore([implicit(1, 1), implicit(2, -1), implicit(3, 2)])).toBe(-1);
    expect(requestScore([implicit(1, 2), implicit(2, 1)])).toBe(1);
    expect(requestScore([implicit(1, null)])).toBeNull();
    expect(requestScore([])).toBeNull();
  });
});

let db: Kysely<Database>;

test.beforeAll(({ db: fixture }) => {
  db = fixture;
});

const tenant = { entity_id: 'ent-1', org_id: 'org-1' };

/** The router's record of two requests of intent `i` at 0.95: one answered, one that failed. */
beforeEach(async () => {
  await db.deleteFrom('feedback_log').execute();
  await db.deleteFrom('routing_outcomes').execute();
  await db.deleteFrom('intent_routing_stats').execute();
  await db
    .insertInto('intent_routing_stats')
    .values({
      intent_id: 'i',
      confidence_bucket: 0.95,
      total_attempts: 10,
      successful_attempts: 9,
      failed_attempts: 1,
    })
    .execute();
  await db
    .insertInto('routing_outcomes')
    .values([
      {
        request_id: 'ok',
        ...tenant,
        intent_id: 'i',
        confidence_bucket: 0.95,
        answered: true,
        pattern_hash: null,
      },
      {
        request_id: 'failed',
        ...tenant,
        intent_id: 'i',
        confidence_bucket: 0.95,
        answered: false,
        pattern_hash: null,
      },
    ])
    .execute();
});

const feedback = (request_id: string | null, signal: string, score: number | null) =>
  db
    .insertInto('feedback_log')
    .values({ request_id, ...tenant, kind: 'explicit', signal, score })
    .execute();

const stats = () =>
  db
    .selectFrom('intent_routing_stats')
    .select(['total_attempts', 'successful_attempts', 'failed_attempts', 'avg_feedback_score'])
    .executeTakeFirstOrThrow();

const unlearnt = async () =>
  (await db.selectFrom('feedback_log').select('id').where('learned_at', 'is', null).execute()).length;

describe('learning feedback into the routing stats', () => {
  test('learns feedback about nothing it counted (no request, an unknown one, no score) without effect', async () => {
    await feedback(null, 'thumbs_down', -1);
    await feedback('unknown', 'thumbs_down', -1);
    await feedback('ok', 'thumbs_down', null);
    const pass = await learnFeedback(db);
    expect(pass).toMatchObject({ seen: 3, changed: 0, deferred: 0, busy: false });
    expect(await unlearnt()).toBe(0);
    expect(await stats()).toEqual({
      total_attempts: 10,
      successful_attempts: 9,
      failed_attempts: 1,
      avg_feedback_score: null,
    });
  });

  test('keeps a failed answer a failure whatever its feedback, and counts its score', async () => {
    await feedback('failed', 'thumbs_up', 1);
    expect(await learnFeedback(db)).toMatchObject({ changed: 1 });
    expect(await stats()).toEqual({
      total_attempts: 10,
      successful_attempts: 9,
      failed_attempts: 1,
      avg_feedback_score: 1,
    });
  });

  test('never moves more successes than the bucket holds (its counts reset since)', async () => {
    await db
      .updateTable('intent_routing_stats')
      .set({ total_attempts: 0, successful_attempts: 0, failed_attempts: 0 })
      .execute();
    await feedback('ok', 'thumbs_down', -1);
    await learnFeedback(db);
    expect(await stats()).toEqual({
      total_attempts: 0,
      successful_attempts: 0,
      failed_attempts: 0,
      avg_feedback_score: -1,
    });
  });

  test('leaves feedback about a request still running for later', async () => {
    await db
      .insertInto('router_routes')
      .values({
        request_id: 'running',
        ...tenant,
        query_normalized: 'show all invoices',
        path: 'fast',
        category: 'unified',
        strategy: 'intent_pipeline',
        cacheable: true,
        intent_id: 'i',
        confidence: 0.95,
      })
      .execute();
    await feedback('running', 'thumbs_down', -1);
    await feedback('ok', 'thumbs_down', -1);
    expect(await learnFeedback(db)).toMatchObject({ seen: 2, changed: 1, deferred: 1 });
    expect(await unlearnt()).toBe(1);
    await db.deleteFrom('router_routes').execute();
    expect(await learnFeedback(db)).toMatchObject({ seen: 1, deferred: 0 });
    expect(await unlearnt()).toBe(0);
  });

  test('stands aside while another instance learns', async () => {
    await feedback('ok', 'thumbs_down', -1);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const locked = new Promise<void>((resolve) => {
      void db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(4242020::bigint)`.execute(trx);
        resolve();
        await held;
      });
    });
    await locked;
    expect(await learnFeedback(db)).toMatchObject({ busy: true, seen: 0 });
    expect(await unlearnt()).toBe(1);
    release();
    await expect.poll(async () => (await learnFeedback(db)).busy).toBe(false);
    expect(await stats()).toMatchObject({ successful_attempts: 8, failed_attempts: 2 });
  });

  test('keeps trying, with a warning, while the database cannot be reached', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const unreachable = createDb('postgres://munim@127.0.0.1:1/none', { max: 1 });
    const learner = startLearner(unreachable, log, 50);
    await expect.poll(() => lines.length).toBeGreaterThanOrEqual(2);
    await learner.stop();
    await unreachable.destroy();
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 40,
      msg: 'feedback not learnt; trying again later',
    });
  });
});
