// Grounded figures end to end: after a tool call, a model that invents a figure has its answer
// carry a warning naming it and `complete` the guardrail `numbers_unverified`; a model whose
// figures all come from the tool result (rounded, in lakh, as a share) is left as it answered.
import { randomUUID } from 'node:crypto';
import type { ChatRequest } from '@munim/scripted-llm';
import { test } from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { ask, type SseEvent } from '../support/sse.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

let sys: TestSystem;
const tenant = { entityId: 'ent-grounding', orgId: 'org-grounding' };

test.beforeAll(async ({ database, nats }) => {
  sys = await startSystem({ database, nats });
});

afterAll(async () => {
  await sys?.stop();
});

const only = (events: SseEvent[], type: string) => events.filter((e) => e.event === type);

/** The answer as a client that applies `response_replace` shows it when the stream ends. */
function shown(events: SseEvent[]): string {
  let text = '';
  for (const e of events) {
    if (e.event === 'response_chunk') text += String(e.data.text);
    if (e.event === 'response_replace') text = String(e.data.text);
  }
  return text;
}

/** The JSON the last call of `tool` returned, as the model was given it. */
function toolOutput(req: ChatRequest, tool: string): unknown {
  const calls = req.messages.flatMap((m) =>
    m.role === 'assistant' && Array.isArray(m.tool_calls) ? m.tool_calls : [],
  );
  const call = calls.filter((c) => c.function.name === tool).at(-1);
  const message = req.messages.find((m) => m.role === 'tool' && m.tool_call_id === call?.id);
  return JSON.parse(String(message?.content));
}

const rupees = (n: number) =>
  `₹${n.toLocaleString('en-IN', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** Asks about receivables; the model reads the invoices, then answers with what `say` makes of them. */
interface Due {
  total: number;
  count: number;
  largest: number;
  overdue: { total: number; count: number };
  /** The customer who owes most, and how much. */
  top: { name: string; owes: number };
}

async function askReceivables(say: (due: Due) => string) {
  const query = `what do my unpaid invoices add up to right now ${randomUUID().slice(0, 8)}`;
  sys.llm?.script({
    match: query,
    turns: [
      { toolCalls: [{ name: 'get_all_invoices', arguments: {} }] },
      (req) => {
        const list = toolOutput(req, 'get_all_invoices') as {
          Invoices: { AmountDue: number; IsOverdue: boolean; ContactName: string }[];
        };
        const due = list.Invoices.map((i) => i.AmountDue).filter((a) => a > 0);
        const overdue = list.Invoices.filter((i) => i.IsOverdue);
        const owed = new Map<string, number>();
        for (const i of list.Invoices) owed.set(i.ContactName, (owed.get(i.ContactName) ?? 0) + i.AmountDue);
        const [name, owes] = [...owed.entries()].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
        return {
          content: say({
            total: due.reduce((s, a) => s + a, 0),
            count: due.length,
            largest: Math.max(...due),
            overdue: { total: overdue.reduce((s, i) => s + i.AmountDue, 0), count: overdue.length },
            top: { name, owes },
          }),
        };
      },
    ],
  });
  const { events } = await ask(sys.gatewayUrl, { query, ...tenant });
  const complete = events.at(-1);
  expect(complete, JSON.stringify(events.map((e) => [e.event, e.data]).slice(-4))).toMatchObject({
    event: 'complete',
  });
  expect(only(events, 'route_classified')[0]?.data).toMatchObject({ path: 'llm' });
  expect(sys.llm?.requestsFor(query)).toHaveLength(2);
  return { events, complete: complete?.data as { response: string; guardrails?: string[] } };
}

describe('figures in a model answer are checked against the turn’s tool results', () => {
  test('an invented figure is named in a warning and the answer logs numbers_unverified', async () => {
    const invented = `₹${(9_87_65_432).toLocaleString('en-IN')}`;
    const { events, complete } = await askReceivables(
      ({ total, count }) =>
        `Customers owe you ${rupees(total)} across ${count} invoices. Acme Corp alone owes ${invented}.`,
    );
    expect(complete.guardrails).toContain('numbers_unverified');
    expect(invented).toBe('₹9,87,65,432');
    expect(
      complete.response.endsWith(`\n\n⚠️ I could not verify these figures against your books: ${invented}.`),
    ).toBe(true);
    // The answer itself is unchanged: the model's words, then the warning.
    expect(complete.response).toMatch(
      /^Customers owe you ₹[\d,]+\.\d\d across \d+ invoices\. Acme Corp alone owes ₹9,87,65,432\./,
    );
    expect(shown(events)).toBe(complete.response);
    // Logged with the request, where the pipeline debugger looks for guardrails.
    await expect
      .poll(async () => {
        const r = await sys.db.query(
          'select guardrails_triggered from query_routing_logs where request_id = $1',
          [events[0]?.data.requestId],
        );
        return r.rows[0]?.guardrails_triggered;
      })
      .toContain('numbers_unverified');
  });

  test('a true answer (exact, rounded to lakh, totals of a group, shares) has no warning and no guardrail', async () => {
    let said = '';
    const { events, complete } = await askReceivables(({ total, count, largest, overdue, top }) => {
      said =
        `Customers owe you ${rupees(total)} (about ₹${(total / 1e5).toFixed(1)} lakh) across ${count} invoices. ` +
        `The largest is ${rupees(largest)}, ${((largest / total) * 100).toFixed(1)}% of the total.\n` +
        `- ${overdue.count} invoices are overdue: ${rupees(overdue.total)} (${((overdue.total / total) * 100).toFixed(1)}%).\n` +
        `- ${top.name} owes the most: ₹${(top.owes / 1e5).toFixed(2)} lakh, ${Math.round((top.owes / total) * 100)}% of it.`;
      return said;
    });
    expect(complete.guardrails ?? []).not.toContain('numbers_unverified');
    expect(complete.response).toBe(said);
    expect(shown(events)).toBe(said);
  });

  test('on the fast path too, the model’s words on the fetched data are checked', async () => {
    sys.llm?.script({
      match: 'show all invoices',
      turns: [{ content: 'Here are all your invoices: they add up to ₹7,77,77,777.' }],
    });
    const { events } = await ask(sys.gatewayUrl, { query: 'show all invoices', ...tenant });
    expect(only(events, 'route_classified')[0]?.data).toMatchObject({ path: 'fast' });
    const complete = events.at(-1)?.data as { response: string; guardrails?: string[] };
    expect(complete.guardrails).toContain('numbers_unverified');
    expect(complete.response).toBe(
      'Here are all your invoices: they add up to ₹7,77,77,777.\n\n⚠️ I could not verify these figures against your books: ₹7,77,77,777.',
    );
    expect(shown(events)).toBe(complete.response);
  });
});
