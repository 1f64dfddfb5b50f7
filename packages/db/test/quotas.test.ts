// Per-tenant usage per window in PostgreSQL: every instance counts in the same
// rows with one atomic upsert, so a limit holds under concurrency across instances; tenants are
// entity + org; windows roll over by the clock.
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Database, migrateToLatest, TenantUsage } from '../src/index.ts';
import { createTestDatabase, type TestDatabase } from '../src/testing.ts';

const HOUR = 3_600_000;
/** 10:15 on some day: a quarter into an hour window. */
const START = Date.UTC(2026, 4, 1, 10, 15);
let database: TestDatabase;
let first: Kysely<Database>;
let second: Kysely<Database>;

beforeAll(async () => {
  database = await createTestDatabase();
  first = createDb(database.url, { max: 10 });
  second = createDb(database.url, { max: 10 });
  await migrateToLatest(first);
});

afterAll(async () => {
  await first?.destroy();
  await second?.destroy();
  await database?.drop();
});

/** Two instances' views of the usage, on their own pools, reading one clock. */
function instances(now: () => number) {
  return [new TenantUsage(first, { windowMs: HOUR, now }), new TenantUsage(second, { windowMs: HOUR, now })];
}

describe('tenant usage per window', () => {
  it('lets exactly `limit` of many concurrent takes through, across instances', async () => {
    const [a, b] = instances(() => START);
    const tenant = { entityId: 'ent-q', orgId: 'org-concurrent' };
    const takes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => ((i % 2 ? a : b) as TenantUsage).take(tenant, 'queries', 1, 15)),
    );
    expect(takes.filter((t) => t.taken)).toHaveLength(15);
    expect(
      takes
        .filter((t) => t.taken)
        .map((t) => t.count)
        .sort((x, y) => x - y),
    ).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect(await a?.count(tenant, 'queries')).toBe(15);
    const refused = takes.find((t) => !t.taken);
    expect(refused).toMatchObject({
      taken: false,
      count: 15,
      window: { start: Date.UTC(2026, 4, 1, 10), end: Date.UTC(2026, 4, 1, 11) },
    });
    expect(a?.secondsUntilEnd()).toBe(45 * 60);
  });

  it('keeps tenants apart by entity and org', async () => {
    const [usage] = instances(() => START) as [TenantUsage];
    const orgA = { entityId: 'ent-shared', orgId: 'org-a' };
    const orgB = { entityId: 'ent-shared', orgId: 'org-b' };
    expect(await usage.take(orgA, 'queries', 2, 2)).toMatchObject({ taken: true, count: 2 });
    expect(await usage.take(orgA, 'queries', 1, 2)).toMatchObject({ taken: false });
    expect(await usage.take(orgB, 'queries', 1, 2)).toMatchObject({ taken: true, count: 1 });
    expect(await usage.count(orgA, 'tokens')).toBe(0);
  });

  it('adds spent tokens past the limit, and refuses a take larger than the limit without counting it', async () => {
    const [usage] = instances(() => START) as [TenantUsage];
    const tenant = { entityId: 'ent-q', orgId: 'org-tokens' };
    expect(await usage.add(tenant, 'tokens', 700)).toBe(700);
    expect(await usage.add(tenant, 'tokens', 700)).toBe(1400);
    expect(await usage.take(tenant, 'tokens', 50, 1000)).toMatchObject({ taken: false, count: 1400 });
    expect(await usage.take({ ...tenant, orgId: 'org-big' }, 'tokens', 5000, 1000)).toMatchObject({
      taken: false,
      count: 0,
    });
    expect(await usage.count({ ...tenant, orgId: 'org-big' }, 'tokens')).toBe(0);
  });

  it('starts every tenant afresh when the window rolls over, and prunes windows long gone', async () => {
    let now = START;
    const [usage] = instances(() => now) as [TenantUsage];
    const tenant = { entityId: 'ent-q', orgId: 'org-rollover' };
    expect(await usage.take(tenant, 'queries', 1, 1)).toMatchObject({ taken: true });
    expect(await usage.take(tenant, 'queries', 1, 1)).toMatchObject({ taken: false });
    now = Date.UTC(2026, 4, 1, 11, 0, 0, 1);
    expect(await usage.take(tenant, 'queries', 1, 1)).toMatchObject({ taken: true, count: 1 });
    expect(usage.secondsUntilEnd()).toBe(3600);

    const windows = async () =>
      (
        await first
          .selectFrom('tenant_usage')
          .select('window_start')
          .where('org_id', '=', tenant.orgId)
          .orderBy('window_start')
          .execute()
      ).map((r) => r.window_start.toISOString());
    expect(await windows()).toEqual(['2026-05-01T10:00:00.000Z', '2026-05-01T11:00:00.000Z']);
    now = Date.UTC(2026, 4, 2, 12, 30);
    expect(await usage.prune()).toBeGreaterThan(0);
    expect(await windows()).toEqual(['2026-05-01T11:00:00.000Z']);
  });
});
