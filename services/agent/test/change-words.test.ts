import { describe, expect, it } from 'vitest';
import { readChange } from '../src/confirmation/change-words.ts';
import { PLAIN_YES } from '../src/confirmation/plain-yes.ts';

// A "yes" that changes the proposal: read without a model, in English, Hindi and Hinglish.
const today = new Date('2026-11-28T10:00:00Z');
const read = (text: string, reference?: string) =>
  readChange(text, { today, ...(reference ? { reference: new Date(reference) } : {}) });

describe('a yes that changes the date or the amount', () => {
  const changes: [string, Record<string, unknown>][] = [
    ['yes but make it ₹4,500', { amount: 4500, currency: 'INR' }],
    ['yes, but make it Rs. 4500/-', { amount: 4500, currency: 'INR' }],
    ['ok, make it 4500 rupees', { amount: 4500, currency: 'INR' }],
    ['yes make it 4.5k', { amount: 4500 }],
    ['yes, make it 1.2 lakh', { amount: 120000 }],
    ['haan, amount 1,20,000 kar do', { amount: 120000 }],
    ['haan 2 lakh rakho', { amount: 200000 }],
    ['हाँ, राशि 4500 कर दो', { amount: 4500 }],
    ['हाँ, राशि ४५०० कर दो', { amount: 4500 }],
    ['हां, 4 हज़ार कर दो', { amount: 4000 }],
    ['ji haan, rs 4500 karo', { amount: 4500, currency: 'INR' }],
    ['yes, change the amount to 4500.50', { amount: 4500.5 }],
    ['sure, set the total to INR 12,000', { amount: 12000, currency: 'INR' }],
    ['ok, and date it 1st December', { date: '2026-12-01' }],
    ['haan, 1 December ki date daal do', { date: '2026-12-01' }],
    ['yes, date it December 1', { date: '2026-12-01' }],
    ['yes but date it 01/12/2026', { date: '2026-12-01' }],
    ['yes, dated 2026-12-01', { date: '2026-12-01' }],
    ['yes, make the date 1-Dec-2026', { date: '2026-12-01' }],
    ['हाँ, तारीख 1 दिसंबर कर दो', { date: '2026-12-01' }],
    ['haan, tarikh 15 nov rakho', { date: '2026-11-15' }],
    ['yes, date it today', { date: '2026-11-28' }],
    ['ok but date it yesterday', { date: '2026-11-27' }],
    ['yes, due date 31 December', { due: '2026-12-31' }],
    ['yes, make it ₹4,500 and date it 1st December', { amount: 4500, currency: 'INR', date: '2026-12-01' }],
    ['haan 1 dec ki date aur 5000 amount kar do', { amount: 5000, date: '2026-12-01' }],
    ['make it ₹4,500', { amount: 4500, currency: 'INR' }],
    ['date it 3rd of January', { date: '2027-01-03' }],
    ['yes, 4500 not 5000', { amount: 4500 }],
    ['yes but not 5000, make it 4500', { amount: 4500 }],
    ['ok, make it 4500 instead of 5000', { amount: 4500 }],
    ['haan, 5000 nahi 4500 karo', { amount: 4500 }],
    ['haan 5000 ki jagah 4500 kar do', { amount: 4500 }],
    ['हाँ, 5000 नहीं 4500 कर दो', { amount: 4500 }],
    ['yes, date it 1 December, not 30 November', { date: '2026-12-01' }],
  ];
  it.each(changes)('%s', (text, change) => {
    expect(read(text)).toEqual({ kind: 'change', change });
  });

  it('puts a day without a year nearest to the date the call has', () => {
    expect(read('yes, date it 1 April', '2025-03-15')).toEqual({
      kind: 'change',
      change: { date: '2025-04-01' },
    });
    expect(read('yes, date it 28 December', '2027-01-05')).toEqual({
      kind: 'change',
      change: { date: '2026-12-28' },
    });
  });

  it('reads any amount in any form it is written, generated', () => {
    for (let i = 0; i < 60; i += 1) {
      const amount = 100 + ((i * 7919) % 900_000);
      const grouped = amount.toLocaleString('en-IN');
      const forms = [`₹${grouped}`, `Rs ${amount}`, `${grouped} rupees`, `INR ${amount}`, `${amount}`];
      const said = forms[i % forms.length] as string;
      const lead = ['yes but make it', 'haan,', 'ok, change it to', 'हाँ,'][i % 4] as string;
      const tail = lead === 'haan,' || lead === 'हाँ,' ? (i % 2 ? ' kar do' : ' कर दो') : '';
      const got = read(`${lead} ${said}${tail}`);
      expect(got.kind, `${lead} ${said}${tail}`).toBe('change');
      if (got.kind === 'change') expect(got.change.amount).toBe(amount);
    }
  });

  it('reads every day of the year in words and numbers, generated', () => {
    const names = [
      'January',
      'February',
      'March',
      'April',
      'May',
      'June',
      'July',
      'August',
      'September',
      'October',
      'November',
      'December',
    ];
    for (let day = 0; day < 365; day += 5) {
      const date = new Date(Date.UTC(2027, 0, 1 + day));
      const [d, m] = [date.getUTCDate(), date.getUTCMonth()];
      const isoDay = date.toISOString().slice(0, 10);
      const forms = [
        `yes, date it ${d} ${names[m]} 2027`,
        `ok, date it ${names[m]} ${d}, 2027`,
        `haan, ${d}/${m + 1}/2027 ki date daal do`,
        `yes, dated ${isoDay}`,
        `yes but date it ${d} ${names[m]?.slice(0, 3)} 2027`,
      ];
      const text = forms[day % forms.length] as string;
      expect(read(text), text).toEqual({ kind: 'change', change: { date: isoDay } });
    }
  });
});

describe('not a change', () => {
  const none = [
    'yes',
    'yes please',
    'ok',
    'haan',
    'yes and also show bills',
    'yes, and show me bills over 5000',
    'yes, what is my balance on 1 December?',
    'show invoices for 1 December',
    'how much is due from Acme?',
    'ok thanks',
    'yes, 2 invoices',
    'no',
    'cancel',
    'pay 4500 to Acme',
    'yes and also send it to Acme',
  ];
  it.each(none)('%s', (text) => {
    expect(read(text)).toEqual({ kind: 'none' });
  });

  it('a plain yes is the plain-yes reader’s, never a change', () => {
    for (const text of ['yes', 'ok', 'haan ji', 'हाँ', 'theek hai', 'go ahead'])
      expect({ text, plain: PLAIN_YES.test(text), change: read(text).kind }).toEqual({
        text,
        plain: true,
        change: 'none',
      });
  });
});

describe('other words: a field of the call not understood, anything else a new question', () => {
  // The words of a demo-books payment's fields.
  const fields = new Set([
    'account',
    'amount',
    'application',
    'date',
    'reference',
    'contact',
    'payment',
    'mode',
  ]);
  const withFields = (text: string) => readChange(text, { today, fields }).kind;
  it.each([
    ['yes but change the customer to Beta Traders', 'unclear'],
    ['yes, make the reference UTR991', 'unclear'],
    ['haan, account HDFC kar do', 'unclear'],
    ['ok, make a new invoice for Bolt', 'none'],
    ['haan, Bolt ko 2000 pay kar do', 'none'],
    ['yes, make it 4500 and send it to him', 'none'],
    ['yes but make it four thousand five hundred', 'unclear'],
    ['haan, agle monday ki date daal do', 'unclear'],
    ['yes but make it ₹4,500', 'change'],
  ])('%s: %s', (text, kind) => {
    expect(withFields(text)).toBe(kind);
  });
});

describe('a change that cannot be understood', () => {
  const unclear = [
    'yes but change the customer to Beta Traders',
    'yes, make it 4500 and send it to him',
    'haan, kal ki date daal do',
    'yes but date it 31 February',
    'yes, make it 4500 or 5000',
    'yes, change the amount',
    'yes, make it -4500',
    'yes but make it four thousand',
    'yes, make it 10%',
    'haan, 18 percent kar do',
  ];
  it.each(unclear)('%s', (text) => {
    expect(read(text).kind).toBe('unclear');
  });
});
