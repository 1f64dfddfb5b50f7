import { describe, expect, it } from 'vitest';
import { parseAmount, parseHindiNumbers } from '../src/hindi-numbers.ts';

describe('Hindi number parser', () => {
  it.each([
    ['das hazaar', 10_000],
    ['paanch lakh', 500_000],
    ['dedh crore', 15_000_000],
    ['dhai sau', 250],
    ['saade teen sau', 350],
    ['sava lakh', 125_000],
    ['ek lakh bees hazaar', 120_000],
    ['2.5 lakh', 250_000],
    ['5 hazaar 500', 5_500],
    ['5k', 5_000],
    ['do hazaar rupaye', 2_000],
    ['३ लाख', 300_000],
    ['₹१२,५००', 12_500],
  ])('%s → %d', (text, value) => expect(parseAmount(text)).toBe(value));

  it('does not read the verb "do" or a lone number word as an amount', () => {
    expect(parseHindiNumbers('haan kar do')).toEqual([]);
    expect(parseHindiNumbers('ek invoice dikhao')).toEqual([]);
  });

  it('reads several amounts in order', () => {
    expect(parseHindiNumbers('das hazaar aur paanch sau').map((n) => n.value)).toEqual([10_000, 500]);
  });
});
