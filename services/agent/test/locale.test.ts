// Business context in what users read: money, dates and the financial year as the
// tenant's business writes them, in prompts and confirmations as in reports; India by default.
import { type BusinessContext, DEFAULT_BUSINESS_CONTEXT } from '@munim/db';
import { describe, expect, it } from 'vitest';
import { confirmationCard } from '../src/confirmation/card.ts';
import { fastPathPrompt, unifiedPrompt } from '../src/model/prompts.ts';
import { formatsFor } from '../src/render/locale.ts';

const persona = { name: 'Munim', product: 'Books' };
const us: BusinessContext = {
  ...DEFAULT_BUSINESS_CONTEXT,
  companyName: 'Acme Inc',
  countryCode: 'US',
  countryName: 'United States',
  currency: 'USD',
  currencySymbol: '$',
  locale: 'en-US',
  numberSystem: 'international',
  dateFormat: 'MM/DD/YYYY',
  fyStartMonth: 1,
  taxName: 'Sales tax',
  timezone: 'America/New_York',
  industry: 'retail',
  configured: true,
};

describe('formats of a business', () => {
  it('are Indian by default: ₹, lakh/crore grouping and words, DD/MM/YYYY, April–March year', () => {
    const f = formatsFor();
    expect(f.money(1234567.5)).toBe('₹12,34,567.50');
    expect(f.large(25_000_000)).toBe('₹2,50,00,000 (2.50 crore)');
    expect(f.date('2026-11-07')).toBe('07/11/2026');
    expect(f.financialYear('2026-03-31')).toBe('FY 2025-26');
    expect(f.financialYear('2026-04-01')).toBe('FY 2026-27');
    expect(f.period('2025-04-01', '2026-03-31')).toBe('FY 2025-26 (1 Apr 2025 to 31 Mar 2026)');
    expect(f.period('2026-04-01', '2026-11-24')).toBe('FY 2026-27 to date (1 Apr 2026 to 24 Nov 2026)');
    expect(f.period('2025-12-01', '2026-11-24')).toBe('1 Dec 2025 to 24 Nov 2026');
  });

  it('follow the business: dollars in millions, US dates, a calendar financial year', () => {
    const f = formatsFor(us);
    expect(f.money(1234567.5)).toBe('$1,234,567.50');
    expect(f.large(2_500_000)).toBe('$2,500,000 (2.50 million)');
    expect(f.large(250_000)).toBe('$250,000');
    expect(f.date('2026-11-07')).toBe('11/07/2026');
    expect(f.financialYear('2026-03-31')).toBe('FY 2026');
    expect(f.period('2026-01-01', '2026-12-31')).toBe('FY 2026 (Jan 1, 2026 to Dec 31, 2026)');
    // A record in another currency keeps its own.
    expect(f.money(10, 'EUR')).toBe('€10.00');
  });

  it('a July financial year (Australia) and the Indian system in an international locale', () => {
    const au = formatsFor({
      ...DEFAULT_BUSINESS_CONTEXT,
      currency: 'AUD',
      locale: 'en-AU',
      numberSystem: 'international',
      fyStartMonth: 7,
    });
    expect(au.financialYear('2026-06-30')).toBe('FY 2025-26');
    expect(au.financialYear('2026-07-01')).toBe('FY 2026-27');
    const lakhs = formatsFor({ ...DEFAULT_BUSINESS_CONTEXT, locale: 'en-GB', numberSystem: 'indian' });
    expect(lakhs.money(1234567)).toBe('₹12,34,567.00');
  });
});

describe('prompts in the business’s formats', () => {
  it('say rupees, lakhs and crores, DD/MM/YYYY and April–March when nothing is configured', () => {
    for (const prompt of [unifiedPrompt(persona), fastPathPrompt(persona)]) {
      expect(prompt).toContain('INR (₹)');
      expect(prompt).toContain('₹12,34,567.50');
      expect(prompt).toContain('lakhs and crores');
      expect(prompt).toContain('dates as DD/MM/YYYY');
      expect(prompt).toContain('April to March');
    }
    expect(unifiedPrompt(persona)).toContain('tax: 18% GST; currency: INR');
  });

  it('say the business’s own currency, dates, year and tax for a configured business', () => {
    const prompt = unifiedPrompt(persona, us);
    expect(prompt).toContain('USD ($)');
    expect(prompt).toContain('$1,234,567.50');
    expect(prompt).toContain('dates as MM/DD/YYYY');
    expect(prompt).toContain('January to December');
    expect(prompt).toContain('tax: the standard Sales tax rate; currency: USD');
    expect(prompt).toContain('The books are those of Acme Inc, a retail business in United States.');
    expect(prompt).not.toMatch(/lakh|crore|₹|DD\/MM/);
    expect(fastPathPrompt(persona, us)).toContain('$1,234,567.50');
  });
});

describe('confirmations in the business’s formats', () => {
  it('show the amount and date of a write as the business writes them', () => {
    const args = { ContactId: 'c-1', Amount: 5000, Date: '2026-05-20' };
    const lookups = new Map([['c-1', { record: { Name: 'Acme Corp' } }]]);
    expect(confirmationCard('create_payment', args, 1, { lookups }).question).toBe(
      'Confirm: create the payment of ₹5,000.00 for Acme Corp, dated 20/05/2026?',
    );
    expect(confirmationCard('create_payment', args, 1, { lookups, formats: formatsFor(us) }).question).toBe(
      'Confirm: create the payment of $5,000.00 for Acme Corp, dated 05/20/2026?',
    );
  });
});
