import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MORE_INTENTS, STARTER_INTENTS } from '@munim/db';
import { test } from '@munim/testkit';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { ask } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

let sys: TestSystem;
const tenant = { entityId: 'ent-2', orgId: 'org-2' };

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({ database, nats, llm: false, scale: { validator: 2 } });
});

afterAll(async () => {
  await sys?.stop();
});

describe('without a model configured', () => {
  test('still answers a fast-path query, as a markdown table without internal ids', async () => {
    const { events } = await ask(sys.gatewayUrl, { query: 'show all customers', ...tenant });
    expect(events.find((e) => e.event === 'route_classified')?.data).toMatchObject({ path: 'fast' });
    const complete = events.at(-1);
    expect(complete?.event).toBe('complete');
    const response = String(complete?.data.response);
    expect(response).toContain('Acme Corp');
    expect(response).toMatch(/^\|.*\|$/m);
    expect(response).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i);
    expect(complete?.data.llmModel).toBe('');
  });

  test('enriches results by code: totals in lakhs, ranking and overdue alerts', async () => {
    const { events } = await ask(sys.gatewayUrl, { query: 'show all invoices', ...tenant });
    const planned = events.find((e) => e.event === 'enrichments_planned')?.data.enrichments as {
      type: string;
    }[];
    expect(planned.map((e) => e.type)).toEqual(expect.arrayContaining(['currency', 'ranking', 'alert']));
    const order = events.map((e) => e.event);
    expect(order.indexOf('enrichments_planned')).toBeLessThan(order.indexOf('enrichments_applying'));
    expect(order.indexOf('enrichments_applying')).toBeLessThan(order.indexOf('complete'));
    const complete = events.at(-1)?.data;
    // One page of the invoices: the alert counts the overdue invoices on it and says so.
    expect(String(complete?.response)).toMatch(
      /\*\*Highlights\*\*[\s\S]*⚠️ \d+ of the 50 invoices on page 1 of \d+ \(\d+ in all\) are overdue/,
    );
    expect(complete?.enrichments).toEqual(planned.map((e) => expect.objectContaining({ type: e.type })));
  });

  test('ends an LLM-path query with an error that says no model is configured', async () => {
    const { events } = await ask(sys.gatewayUrl, { query: 'compare revenue trend this quarter', ...tenant });
    expect(events[0]?.event).toBe('connected');
    expect(events.find((e) => e.event === 'route_classified')?.data).toMatchObject({ path: 'llm' });
    const last = events.at(-1);
    expect(last?.event).toBe('error');
    expect(last?.data.code).toBe('NO_MODEL_CONFIGURED');
    expect(String(last?.data.message)).toMatch(/no language model is configured/i);
    await expect
      .poll(async () => {
        const r = await sys.db.query(
          'select status, error_code from query_routing_logs where request_id = $1',
          [events[0]?.data.requestId],
        );
        return r.rows[0];
      })
      .toEqual({ status: 'error', error_code: 'NO_MODEL_CONFIGURED' });
  });

  test('replays a finished request from the start and after a Last-Event-ID', async () => {
    const first = await ask(sys.gatewayUrl, { query: 'show all vendors', ...tenant });
    const requestId = String(first.events[0]?.data.requestId);
    const replay = await fetch(`${sys.gatewayUrl}/v1/requests/${requestId}/events`);
    const { readSse } = await import('../support/sse.ts');
    const all = await readSse(replay);
    expect(all.events.map((e) => e.id)).toEqual(first.events.map((e) => e.id));
    const cut = first.events[3]?.id ?? '';
    const resumed = await readSse(
      await fetch(`${sys.gatewayUrl}/v1/requests/${requestId}/events`, { headers: { 'last-event-id': cut } }),
    );
    expect(resumed.events.map((e) => e.id)).toEqual(first.events.slice(4).map((e) => e.id));
  });
});

describe('without a model, the first questions a newcomer asks', () => {
  test.each([
    'hi',
    'hello',
    'namaste',
    'नमस्ते',
    'help',
    'what can you do',
    'aap kya kar sakte ho',
    'thanks',
    'shukriya',
    'bye',
  ])('answers "%s" by itself, naming what to ask', async (query) => {
    const { events } = await ask(sys.gatewayUrl, { query, ...tenant });
    expect(events.find((e) => e.event === 'route_classified')?.data).toMatchObject({
      category: 'general_chat',
    });
    const last = events.at(-1);
    expect(last).toMatchObject({ event: 'complete', data: { status: 'answered', llmModel: '' } });
    const response = String(last?.data.response);
    if (/bye/.test(query)) expect(response).toMatch(/goodbye/i);
    else expect(response).toMatch(/You can ask, for example:\n- \w/);
  });

  test.each([...STARTER_INTENTS, ...MORE_INTENTS].map((i) => [i.name, i.trainingPhrases[0] ?? i.name]))(
    'answers the seeded intent %s ("%s") on the fast path',
    async (name, phrase) => {
      // A tenant of its own: no cached answer of an earlier test stands in for the fast path.
      const { events } = await ask(sys.gatewayUrl, {
        query: phrase,
        entityId: `ent-${name}`,
        orgId: tenant.orgId,
      });
      expect(events.find((e) => e.event === 'route_classified')?.data, phrase).toMatchObject({
        path: 'fast',
      });
      expect(events.at(-1), phrase).toMatchObject({ event: 'complete', data: { status: 'answered' } });
    },
  );
});

describe('without a model, reports keep what they exist to show', () => {
  interface Account {
    Type: string;
    SubType: string;
    Balance: number;
  }
  interface Invoice {
    InvoiceNumber: string;
    Status: string;
    IsOverdue: boolean;
    AmountDue: number;
  }
  let accounts: Account[];
  let invoices: Invoice[];
  const inr = (n: number, locale = 'en-IN') =>
    new Intl.NumberFormat(locale, { style: 'currency', currency: 'INR', minimumFractionDigits: 2 }).format(n);
  const round = (n: number) => Math.round(n * 100) / 100;
  const total = (keep: (a: Account) => boolean) =>
    round(accounts.filter(keep).reduce((s, a) => s + a.Balance, 0));
  const answer = async (query: string, entityId: string, orgId = tenant.orgId) => {
    const { events } = await ask(sys.gatewayUrl, { query, entityId, orgId });
    expect(events.find((e) => e.event === 'route_classified')?.data).toMatchObject({ path: 'fast' });
    expect(events.at(-1)?.event).toBe('complete');
    return String(events.at(-1)?.data.response);
  };

  beforeAll(async () => {
    // The same books the system reads, through a server of their own: the expected figures.
    const server = await sys.books.listen(0, '127.0.0.1');
    const client = new Client({ name: 'no-model-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const call = async (name: string, args = {}) =>
      (await client.callTool({ name, arguments: args })).structuredContent as Record<string, unknown>;
    accounts = (await call('get_charts_of_accounts')).Accounts as Account[];
    invoices = (await call('get_all_invoices', { PageSize: 200 })).Invoices as Invoice[];
    await client.close();
    await server.close();
  });

  test('"profit and loss" shows income, cost of sales, gross and net profit, not expense rows alone', async () => {
    const response = await answer('profit and loss', 'ent-pnl');
    const income = total((a) => a.Type === 'REVENUE');
    const cogs = total((a) => a.SubType === 'COST_OF_SALES');
    const opex = total((a) => a.Type === 'EXPENSE' && a.SubType !== 'COST_OF_SALES');
    expect(response).toMatch(/^### Profit and loss/);
    expect(response).toContain(`| **Total income** | **${inr(income)}** |`);
    expect(response).toContain(`| **Gross profit** | **${inr(round(income - cogs))}** |`);
    expect(response).toContain(`| **Net profit** | **${inr(round(income - cogs - opex))}** |`);
    expect(response).not.toMatch(/Fetch the|record\(s\)/);
  });

  test('"balance sheet" shows assets, liabilities and equity with their totals and that they balance', async () => {
    const response = await answer('balance sheet', 'ent-bs');
    const assets = total((a) => a.Type === 'ASSET');
    expect(response).toContain(`| **Total assets** | **${inr(assets)}** |`);
    expect(response).toContain(
      `| **Total liabilities** | **${inr(total((a) => a.Type === 'LIABILITY'))}** |`,
    );
    expect(response).toContain('| **Total liabilities and equity** |');
    expect(response).toContain(
      `✓ Balanced: total assets equal total liabilities and equity (${inr(assets)}).`,
    );
  });

  test('"show overdue invoices" lists the overdue ones only, with the aging buckets', async () => {
    const response = await answer('show overdue invoices', 'ent-overdue');
    const open = invoices.filter((i) => i.AmountDue > 0 && !['DRAFT', 'VOIDED'].includes(i.Status));
    expect(response).toMatch(/^### Overdue invoices/);
    expect(response).not.toMatch(/Fetch the aged receivables report/);
    for (const i of open) {
      if (i.IsOverdue) expect(response).toContain(`| ${i.InvoiceNumber} |`);
      else expect(response).not.toContain(i.InvoiceNumber);
    }
    expect(response).toContain('| Current | 1–30 days | 31–60 days | 61–90 days | Over 90 days | Total |');
    const overdue = round(open.filter((i) => i.IsOverdue).reduce((s, i) => s + i.AmountDue, 0));
    expect(response).toContain(`**${inr(overdue)}**`);
  });

  test('writes a tenant’s answers in the locale of its business context, read from the database', async () => {
    const entityId = 'ent-us-locale';
    await sys.db.query(
      "insert into business_contexts (entity_id, org_id, country_code, timezone) values ($1, $2, 'US', 'UTC')",
      [entityId, tenant.orgId],
    );
    const response = await answer('balance sheet', entityId);
    // The books keep rupees; the business writes them with international grouping and US dates.
    expect(response).toContain(
      `| **Total assets** | **${inr(
        total((a) => a.Type === 'ASSET'),
        'en-US',
      )}** |`,
    );
    expect(response).toMatch(/as of [A-Z][a-z]{2} \d{1,2}, \d{4}/);
    // The same entity id in another org is another tenant, not that business.
    const other = await answer('balance sheet', entityId, 'org-elsewhere');
    expect(other).toContain(`| **Total assets** | **${inr(total((a) => a.Type === 'ASSET'))}** |`);
  });
});
