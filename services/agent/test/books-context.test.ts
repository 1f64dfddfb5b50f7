// The books the agent sends with each validation: the business's country, state and GSTIN, today
// where it is, and its country's tax rules — read as the agent's own database role from the
// migrated database (business_contexts, country_configs, tax_rules).
import { BooksContextSchema } from '@munim/contracts';
import { createDb, todayIn } from '@munim/db';
import { test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect, vi } from 'vitest';
import type { AgentContext } from '../src/run/context.ts';
import { Run } from '../src/run/run.ts';
import { AgentStore } from '../src/run/store.ts';
import { booksContext, validationBooks } from '../src/tool-step/books-context.ts';

// biome-ignore lint/suspicious/noExplicitAny: the agent's login on the same schema
let agentDb: Kysely<any>;
// biome-ignore lint/suspicious/noExplicitAny: the owner's login, to set a lock date between validations
let ownerDb: Kysely<any>;
const warn = vi.fn();

test.beforeAll(async ({ db, serviceLogins }) => {
  agentDb = createDb(serviceLogins.agent, { max: 2 });
  ownerDb = db;
  await db
    .insertInto('business_contexts')
    .values([
      {
        entity_id: 'e-mh',
        org_id: 'o-tax',
        country_code: 'IN',
        state: 'Maharashtra',
        gstin: '27AAKCS4821M1ZW',
      },
      {
        entity_id: 'e-long',
        org_id: 'o-tax',
        country_code: 'IN',
        state: 'M'.repeat(200),
        gstin: '27AAKCS4821M1ZW',
      },
      { entity_id: 'e-ae', org_id: 'o-tax', country_code: 'AE' },
    ])
    .execute();
  await db
    .insertInto('tax_rules')
    .values([
      {
        country_code: 'AE',
        kind: 'rate',
        key: '5',
        effective_from: '2018-01-01',
        rule: JSON.stringify({ rate: 5 }),
      },
      {
        country_code: 'AE',
        kind: 'rate',
        key: 'x',
        effective_from: '2018-01-01',
        rule: JSON.stringify({ rate: 'five' }),
      },
    ])
    .execute();
});

afterAll(async () => {
  await agentDb?.destroy();
});

function runOf(entityId: string, db: Kysely<unknown> = agentDb): Run {
  const ctx = {
    store: new AgentStore(db as never),
    log: { warn, info: vi.fn(), error: vi.fn() },
  } as unknown as AgentContext;
  return new Run(
    ctx,
    { requestId: `r-${entityId}`, conversationId: 'c', entityId, orgId: 'o-tax' },
    undefined,
  );
}

describe('the books context of a validation', () => {
  test('an Indian business: its state, GSTIN, today in India and every GST rule with its dates', async () => {
    const run = runOf('e-mh');
    const books = await booksContext(run);
    expect(BooksContextSchema.parse(books)).toEqual(books);
    expect(books).toMatchObject({
      country: 'IN',
      region: 'Maharashtra',
      taxId: '27AAKCS4821M1ZW',
      today: todayIn('Asia/Kolkata'),
      taxName: 'GST',
      currency: 'INR',
    });
    const rates = books?.rules.filter((r) => r.kind === 'rate') ?? [];
    expect(rates.find((r) => r.rate === 40)).toMatchObject({ from: '2025-09-22' });
    expect(rates.find((r) => r.rate === 12)).toMatchObject({ from: '2017-07-01', to: '2025-09-22' });
    expect(booksContext(run)).toBe(booksContext(run));
  });

  test('another country’s rows are its rules; a row in the wrong shape is left out and said', async () => {
    warn.mockClear();
    const books = await booksContext(runOf('e-ae'));
    expect(books).toMatchObject({
      country: 'AE',
      taxName: 'VAT',
      currency: 'AED',
      rules: [{ kind: 'rate', rate: 5 }],
    });
    expect(books?.rules).toHaveLength(1);
    expect(books).not.toHaveProperty('region');
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ rule: expect.objectContaining({ rate: 'five' }) }),
      expect.any(String),
    );
  });

  test('a stored state the validator cannot take is left out, not the whole check', async () => {
    const books = await booksContext(runOf('e-long'));
    expect(books).toMatchObject({ country: 'IN' });
    expect(books).not.toHaveProperty('region');
    expect(books?.rules.length).toBeGreaterThan(40);
  });

  test('a tenant with no business context is an Indian business with no state or GSTIN', async () => {
    const books = await booksContext(runOf('e-none'));
    expect(books).toMatchObject({ country: 'IN', taxName: 'GST' });
    expect(books).not.toHaveProperty('taxId');
  });

  test('today is the date where the business is', () => {
    const evening = new Date('2025-09-21T20:00:00Z');
    expect(todayIn('Asia/Kolkata', evening)).toBe('2025-09-22');
    expect(todayIn('America/New_York', evening)).toBe('2025-09-21');
  });

  test('each validation carries the lock date as it is then: the first read with the books, later ones alone', async () => {
    const run = runOf('e-mh');
    const first = await validationBooks(run);
    expect(first.books).toMatchObject({ country: 'IN', region: 'Maharashtra' });
    expect(first.closed).toBeUndefined();
    await ownerDb
      .insertInto('lock_dates')
      .values({ entity_id: 'e-mh', org_id: 'o-tax', lock_date: '2026-03-31', updated_by: 'test' })
      .execute();
    const second = await validationBooks(run);
    expect(second.books).toBe(first.books);
    expect(second.closed).toMatchObject({ date: '2026-03-31', today: todayIn('Asia/Kolkata') });
    // A new request reads the lock with its books.
    expect((await validationBooks(runOf('e-mh'))).closed).toMatchObject({ date: '2026-03-31' });
    await ownerDb.deleteFrom('lock_dates').where('entity_id', '=', 'e-mh').execute();
    expect((await validationBooks(run)).closed).toBeUndefined();
  });

  test('a request that read its business before its first validation reads the lock again for it', async () => {
    const run = runOf('e-ae');
    // Read at the start of the request (formatting an answer, a model call in between)…
    expect((await run.business()).countryCode).toBe('AE');
    await ownerDb
      .insertInto('lock_dates')
      .values({ entity_id: 'e-ae', org_id: 'o-tax', lock_date: '2026-06-30', updated_by: 'test' })
      .execute();
    try {
      // …the lock set since then holds for the first validation.
      const first = await validationBooks(run);
      expect(first.books).toMatchObject({ country: 'AE' });
      expect(first.closed).toMatchObject({ date: '2026-06-30' });
    } finally {
      await ownerDb.deleteFrom('lock_dates').where('entity_id', '=', 'e-ae').execute();
    }
  });

  test('a lock date that cannot be read fails the validation, though the books may go without', async () => {
    const unreachable = createDb('postgres://nobody@127.0.0.1:1/none', { max: 1, connectionTimeoutMs: 500 });
    try {
      warn.mockClear();
      await expect(validationBooks(runOf('e-mh', unreachable as Kysely<unknown>))).rejects.toThrow();
      expect(warn).toHaveBeenCalledWith(expect.anything(), expect.stringMatching(/tax rules not read/));
    } finally {
      await unreachable.destroy();
    }
  });
});
