import { AnalyticRequestSchema } from '@munim/contracts';
import { todayIn } from '@munim/db';
import { describe, expect, it } from 'vitest';
import { demoRegistry, seededIntents } from '../eval/evaluate.ts';
import { IntentMatcher } from '../src/intents.ts';
import { routeQuery } from '../src/route.ts';

const matcher = new IntentMatcher();
matcher.replace(seededIntents());
const registry = demoRegistry();
const calendar = { today: '2026-11-28', fyStartMonth: 4 };
const route = (query: string, withCalendar = true) =>
  routeQuery({
    query,
    matcher,
    registry,
    thresholdFor: () => 0.85,
    strategy: 'dynamic',
    ...(withCalendar ? { calendar } : {}),
  }).decision;

describe('finance questions routed', () => {
  it('goes the fast path with the analytic and the calls its figures need', () => {
    const d = route('what is my profit this year?');
    expect(d).toMatchObject({
      path: 'fast',
      category: 'unified',
      intent: { name: 'analytics.profit', confidence: 1 },
    });
    expect(d.pipeline).toEqual([
      expect.objectContaining({
        tool: 'get_profit_loss',
        args: { FromDate: '2026-04-01', ToDate: '2026-11-28' },
      }),
    ]);
    const analytic = AnalyticRequestSchema.parse(d.extractedEntities.analytic);
    expect(analytic).toMatchObject({
      measure: 'profit',
      today: '2026-11-28',
      inputs: [{ role: 'profit_and_loss' }],
    });
    expect(d.reasoning).toMatch(/computed by code: profit/);
  });

  it('takes the filtered question the filter applies to, never a list intent’s unfiltered answer', () => {
    const d = route('show overdue invoices for Acme Corp');
    expect(d.path).toBe('fast');
    expect(d.extractedEntities.analytic).toMatchObject({
      measure: 'receivables.overdue',
      party: 'Acme Corp',
    });
  });

  it('leaves reports asked by name to their intent, and reasons, orders and chat to the model', () => {
    expect(route('show profit and loss').intent?.name).not.toMatch(/^analytics\./);
    expect(route('aged receivables report').intent?.name).not.toMatch(/^analytics\./);
    for (const q of ['why did my profit fall this quarter', 'pay Acme Corp ₹5,000', 'hello']) {
      const d = route(q);
      expect(d.intent?.name ?? '', q).not.toMatch(/^analytics\./);
      expect(d.extractedEntities.analytic, q).toBeUndefined();
    }
  });

  it('without the business’s calendar, routes as before', () => {
    expect(route('what is my profit this year?', false).extractedEntities.analytic).toBeUndefined();
  });

  it('knows today in the business’s time zone', () => {
    const late = new Date('2026-11-28T20:00:00Z');
    expect(todayIn('Asia/Kolkata', late)).toBe('2026-11-29');
    expect(todayIn('America/New_York', late)).toBe('2026-11-28');
    expect(todayIn('Not/AZone', late)).toBe('2026-11-28');
  });
});
