import { describe, expect, it } from 'vitest';
import { demoRegistry, seededIntents } from '../eval/evaluate.ts';
import { IntentMatcher } from '../src/intents.ts';
import { type RouteInput, routeQuery } from '../src/route.ts';
import { groupsOfTool, selectTools } from '../src/tool-groups.ts';

const matcher = new IntentMatcher();
matcher.replace(seededIntents());
const registry = demoRegistry();
const route = (query: string, extra: Partial<RouteInput> = {}) =>
  routeQuery({ query, matcher, registry, thresholdFor: () => 0.85, strategy: 'dynamic', ...extra }).decision;

describe('routeQuery over the seeded catalog and the demo books tools', () => {
  it('takes the fast path with filled arguments for a detail lookup by document number', () => {
    const d = route('show invoice inv-0042');
    expect(d.path).toBe('fast');
    expect(d.pipeline).toEqual([
      expect.objectContaining({ tool: 'get_invoice', args: { InvoiceNumber: 'INV-0042' } }),
    ]);
  });

  it('sends a query with attached files to the model with tools, never the fast path', () => {
    expect(route('show all invoices').path).toBe('fast');
    const d = route('show all invoices', { attachments: true });
    expect(d).toMatchObject({ path: 'llm', category: 'unified', tier: 'capable', pipeline: [] });
    expect(d.reasoning).toBe('attached files: the model reads them');
    expect(d.tools).toContain('get_all_invoices');
    const chat = route('what does this show?', { attachments: true });
    expect(chat).toMatchObject({ path: 'llm', category: 'unified' });
  });

  it('uses the status filter of an intent and keeps unrelated or filtered queries off the fast path', () => {
    expect(route('unpaid invoices dikhao').pipeline[0]).toMatchObject({
      tool: 'get_all_invoices',
      args: { Status: 'UNPAID' },
    });
    for (const q of [
      'show invoices for Acme Corp',
      'create an invoice',
      'what is the weather',
      'bills and invoices',
    ])
      expect(route(q).path, q).toBe('llm');
  });

  it('offers both list tools for a bulk multi-entity list and the aging tools for overdue', () => {
    expect(route('show all bills and invoices').tools).toEqual(
      expect.arrayContaining(['get_all_invoices', 'get_bills']),
    );
    expect(route('overdue invoices of Acme').tools).toContain('get_aged_receivables_report');
  });

  it('reuses the previous groups for follow-ups and pagination, and degrades without history', () => {
    const conversation = { previousGroups: ['bills'], pendingAction: false, turns: 2 };
    expect(route('aur dikhao', { conversation })).toMatchObject({
      strategy: 'pagination',
      toolGroups: ['bills'],
    });
    expect(route('filter by Sharma', { conversation }).extractedEntities).toMatchObject({ page: 1 });
    expect(route('aur dikhao').strategy).not.toBe('pagination');
  });

  it('recognises a confirmation only when an action is pending', () => {
    const pending = { previousGroups: ['invoices'], pendingAction: true, turns: 2 };
    expect(route('haan kar do', { conversation: pending })).toMatchObject({
      strategy: 'confirmation',
      category: 'unified',
    });
    expect(route('haan kar do').category).toBe('general_chat');
  });

  it('honours TOOL_STRATEGY and places a tool by its description when its name names no group', () => {
    expect(route('show invoices for Acme', { strategy: 'direct_llm_all_mcp_tools' }).tools).toHaveLength(
      registry.length,
    );
    expect(groupsOfTool('fetch_ledger_entries', 'Lists the day book of manual journal entries')).toContain(
      'journal',
    );
    const odd = [
      ...registry,
      {
        name: 'fetch_ledger_entries',
        description: 'Lists journal entries (day book)',
        inputSchema: {},
        isWrite: false,
      },
    ];
    expect(selectTools('show the day book for march', 'unified', odd).tools).toContain(
      'fetch_ledger_entries',
    );
  });
});

describe('intents hold reads only', () => {
  it('skips an intent whose flow holds a write, however it got into the table: the model decides, nothing runs unasked', () => {
    const rogue = new IntentMatcher();
    rogue.replace([
      ...seededIntents(),
      {
        id: 'onboard_walkin',
        name: 'onboard_walkin',
        moduleId: null,
        description: null,
        trainingPhrases: ['onboard walkin customer mallory'],
        resolutionFlow: [
          { tool: 'create_customer', args: { Name: 'Mallory' }, description: 'Create', purpose: '' },
        ],
      },
    ]);
    const via = (query: string) =>
      routeQuery({ query, matcher: rogue, registry, thresholdFor: () => 0.85, strategy: 'dynamic' });
    const onboard = via('onboard walkin customer mallory');
    expect(onboard.match).toBeNull();
    expect(onboard.decision).toMatchObject({ path: 'llm', pipeline: [] });
    // A read intent of the same table still takes the fast path.
    expect(via('show all invoices').decision.path).toBe('fast');
    // With the same flow as a read (a registry that knows create_customer as a read), it would match.
    const lenient = registry.map((t) => (t.name === 'create_customer' ? { ...t, isWrite: false } : t));
    expect(
      routeQuery({
        query: 'onboard walkin customer mallory',
        matcher: rogue,
        registry: lenient,
        thresholdFor: () => 0.85,
        strategy: 'dynamic',
      }).decision.path,
    ).toBe('fast');
  });
});
