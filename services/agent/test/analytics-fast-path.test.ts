// The fast path with an analytic: the pipeline's reads (every page of a list), then the figure
// computed by code — in its own words without a model, or given to the model as facts.
import type { AnalyticRequest, QueryRouted, ToolDefinition } from '@munim/contracts';
import { createDemoBooks, runTool, toolList } from '@munim/demo-books';
import { describe, expect, it } from 'vitest';
import type { Llm } from '../src/model/llm.ts';
import { runFastPath } from '../src/turn/fast-path.ts';
import { fakeAgent } from './fake-agent.ts';

const TODAY = '2026-11-20';
const books = createDemoBooks({ asOf: new Date(`${TODAY}T00:00:00Z`) }).store;
const tools: ToolDefinition[] = toolList().map((t) => ({
  name: t.name,
  inputSchema: t.inputSchema as ToolDefinition['inputSchema'],
  isWrite: t.annotations?.readOnlyHint !== true,
}));
const read = (tool: string, args: Record<string, unknown>) => runTool(books, tool, args).structuredContent;

function routedAnalytic(
  query: string,
  request: Omit<AnalyticRequest, 'today'>,
  calls: string[],
): QueryRouted {
  return {
    query,
    route: {
      path: 'fast',
      category: 'unified',
      confidence: 0.95,
      tier: 'cheap',
      intent: null,
      extractedEntities: { analytic: { ...request, today: TODAY } },
      strategy: 'keywords',
      toolGroups: [],
      tools: calls,
      pipeline: calls.map((tool) => ({ tool, args: {}, description: `Fetch ${tool}`, purpose: 'a test' })),
      reasoning: 'a test',
    },
  } as QueryRouted;
}

const inr = (n: number) =>
  new Intl.NumberFormat('en-IN', { style: 'currency', currency: 'INR', minimumFractionDigits: 2 }).format(n);
const owedInAll = () => {
  const list = read('get_all_invoices', { Page: 1, PageSize: 200 }) as {
    Invoices: { Status: string; AmountDue: number }[];
  };
  return (
    Math.round(
      list.Invoices.filter((i) => i.Status === 'AUTHORISED').reduce((s, i) => s + i.AmountDue * 100, 0),
    ) / 100
  );
};

/** The fake agent with held events sent as the bus would: in order, as one batch. */
function agentOf(opts: Parameters<typeof fakeAgent>[0]) {
  const agent = fakeAgent(opts);
  Object.assign(agent.run.ctx.bus, {
    emitAll: async (_scope: unknown, events: (typeof agent.events)[number][]) =>
      void agent.events.push(...events),
  });
  return agent;
}

const responseOf = (events: { type: string; payload: unknown }[]) =>
  (events.find((e) => e.type === 'complete')?.payload as { response?: string } | undefined)?.response ?? '';

describe('the fast path answers an analytic by code', () => {
  it('without a model: every page of the invoice list read, the figure in words, the usual events', async () => {
    const agent = agentOf({ tools, books: read });
    const data = routedAnalytic(
      'how much do customers owe me?',
      { measure: 'receivables.total', inputs: [{ role: 'invoices' }] },
      ['get_all_invoices'],
    );
    await runFastPath(agent.run, data);
    const pages = agent.requests
      .filter((r) => r.subject === 'toolExecute')
      .map((r) => (r.args as { Page?: number }).Page);
    expect(pages).toEqual([1, 2]);
    const types = agent.events.map((e) => e.type);
    expect(types.filter((t) => t === 'pipeline_planned')).toHaveLength(1);
    expect(types.filter((t) => t === 'pipeline_executing')).toHaveLength(1);
    expect(responseOf(agent.events)).toContain(`**Customers owe you ${inr(owedInAll())}**`);
  });

  it('a party not found: the decline, not everyone’s figure', async () => {
    const agent = agentOf({ tools, books: read });
    await runFastPath(
      agent.run,
      routedAnalytic(
        'show overdue invoices for Acme Corpp',
        {
          measure: 'receivables.overdue',
          party: 'Acme Corpp',
          inputs: [{ role: 'aged_receivables', asOf: TODAY }],
        },
        ['get_aged_receivables_report'],
      ),
    );
    const response = responseOf(agent.events);
    expect(response).toContain('Did you mean Acme Corp?');
    expect(response).not.toContain('₹');
  });

  it('with a model: it is given the computed facts and its figures are checked against them', async () => {
    const seen: string[] = [];
    const total = owedInAll();
    const llm: Llm = {
      label: 'test/model',
      model: 'model',
      async turn(input) {
        seen.push(input.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n'));
        const content = `Your customers owe you ${inr(total)} in all. They also owe ₹12,34,567.00 more.`;
        await input.onText?.(content);
        return { content, toolCalls: [], usage: { promptTokens: 1, completionTokens: 1 } } as never;
      },
    };
    const agent = agentOf({ tools, books: read, llm });
    await runFastPath(
      agent.run,
      routedAnalytic(
        'how much do customers owe me?',
        { measure: 'receivables.total', inputs: [{ role: 'invoices' }] },
        ['get_all_invoices'],
      ),
    );
    expect(seen[0]).toContain('Computed facts:');
    expect(seen[0]).toContain(`**Customers owe you ${inr(total)}**`);
    const response = responseOf(agent.events);
    expect(response).toContain(inr(total));
    // A figure the facts do not back is flagged by the grounding guard.
    expect(agent.run.guardrails.has('numbers_unverified')).toBe(true);
  });

  it('with a model, a filtered question: everyone’s total from the raw report is not backed', async () => {
    const aging = read('get_aged_receivables_report', { AsOfDate: TODAY }) as { Totals: { Total: number } };
    const llm: Llm = {
      label: 'test/model',
      model: 'model',
      async turn(input) {
        const content = `Acme Corp is part of the ${inr(aging.Totals.Total)} your customers owe.`;
        await input.onText?.(content);
        return { content, toolCalls: [], usage: { promptTokens: 1, completionTokens: 1 } } as never;
      },
    };
    const agent = agentOf({ tools, books: read, llm });
    await runFastPath(
      agent.run,
      routedAnalytic(
        'how much does Acme Corp owe me?',
        {
          measure: 'receivables.total',
          party: 'Acme Corp',
          inputs: [{ role: 'aged_receivables', asOf: TODAY }],
        },
        ['get_aged_receivables_report'],
      ),
    );
    expect(agent.run.guardrails.has('numbers_unverified')).toBe(true);
  });
});
