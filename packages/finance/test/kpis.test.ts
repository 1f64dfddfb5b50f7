import { describe, expect, it } from 'vitest';
import { cashBurn, currentRatio, dpo, dso, grossMargin, netMargin, runway } from '../src/kpis.ts';
import { daysIn, monthPeriod } from '../src/periods.ts';

describe('margins', () => {
  it('gross and net margin by hand, with their working', () => {
    const g = grossMargin({ income: 290000.5, costOfSales: 150000.25 });
    expect(g.inputs.grossProfit).toBe(140000.25);
    expect(g.value).toBeCloseTo(48.27587, 4);
    expect(g.formula).toContain('income');
    expect(netMargin({ income: 200000, netProfit: 5000 }).value).toBe(2.5);
    expect(netMargin({ income: 200000, netProfit: -10000 }).value).toBe(-5);
  });

  it('are null without income, never Infinity or NaN', () => {
    expect(grossMargin({ income: 0, costOfSales: 100 }).value).toBeNull();
    expect(netMargin({ income: 0, netProfit: 0 }).value).toBeNull();
  });
});

describe('days outstanding', () => {
  it('DSO over the leap February 2024: 58000 owed on 87000 of credit sales × 29 days = 19.33 days', () => {
    const days = daysIn(monthPeriod(2024, 2));
    expect(days).toBe(29);
    const k = dso({ receivables: 58000, creditSales: 87000, days });
    expect(k.value).toBeCloseTo(19.3333, 4);
    expect(k.inputs).toEqual({ receivables: 58000, creditSales: 87000, days: 29 });
  });

  it('DPO over a quarter: 45000 owed on 135000 of purchases × 91 days = 30.33 days; null without purchases', () => {
    expect(dpo({ payables: 45000, purchases: 135000, days: 91 }).value).toBeCloseTo(30.3333, 4);
    expect(dpo({ payables: 45000, purchases: 0, days: 91 }).value).toBeNull();
    expect(dso({ receivables: 1, creditSales: 0, days: 30 }).value).toBeNull();
  });
});

describe('current ratio', () => {
  it('is assets over liabilities, null without liabilities', () => {
    expect(currentRatio({ currentAssets: 450000, currentLiabilities: 300000 }).value).toBe(1.5);
    expect(currentRatio({ currentAssets: 450000, currentLiabilities: 0 }).value).toBeNull();
  });
});

describe('cash burn and runway', () => {
  it('averages net outflow per month and gives the months cash lasts', () => {
    const burn = cashBurn({
      months: [
        { label: 'Sep 2026', inflow: 100000, outflow: 160000 },
        { label: 'Oct 2026', inflow: 120000, outflow: 150000.3 },
        { label: 'Nov 2026', inflow: 90000, outflow: 150000 },
      ],
    });
    // (60000 + 30000.30 + 60000) ÷ 3 = 50000.10
    expect(burn.value).toBe(50000.1);
    expect(burn.burning).toBe(true);
    expect(burn.inputs.netOutflow).toBe(150000.3);
    expect(burn.inputs.monthCount).toBe(3);
    const r = runway({ cash: 125000.25, monthlyBurn: burn.value! });
    expect(r.value).toBe(2.5);
    expect(r.inputs).toEqual({ cash: 125000.25, monthlyBurn: 50000.1 });
  });

  it('a business taking in more than it spends is not burning and has no runway figure', () => {
    const burn = cashBurn({ months: [{ label: 'Nov 2026', inflow: 200000, outflow: 150000 }] });
    expect(burn.value).toBe(-50000);
    expect(burn.burning).toBe(false);
    expect(runway({ cash: 100000, monthlyBurn: burn.value! }).value).toBeNull();
    expect(runway({ cash: 100000, monthlyBurn: 0 }).value).toBeNull();
    expect(cashBurn({ months: [] }).value).toBeNull();
    expect(runway({ cash: -5000, monthlyBurn: 1000 }).value).toBe(0);
  });
});
