import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readPeriod } from '../src/period-words.ts';
import {
  addMonths,
  calendarYear,
  daysIn,
  financialYearOf,
  fyPeriod,
  fyQuarter,
  monthPeriod,
  nextPeriod,
  type Period,
  previousPeriod,
  quarterOf,
  samePeriodLastYear,
  weekOf,
} from '../src/periods.ts';

const TODAY = '2026-11-28';
const read = (text: string, today = TODAY, fsm = 4) => readPeriod(text, today, fsm);
const dates = (text: string, today = TODAY, fsm = 4) => {
  const r = read(text, today, fsm);
  return r ? `${r.period.from}..${r.period.to}` : undefined;
};

describe('readPeriod: a table of real questions (today 28 Nov 2026, April year)', () => {
  it.each([
    ['What was revenue this month?', '2026-11-01..2026-11-30'],
    ['pichle mahine ka profit kitna tha', '2026-10-01..2026-10-31'],
    ['पिछले महीने की बिक्री', '2026-10-01..2026-10-31'],
    ['इस महीने का खर्च', '2026-11-01..2026-11-30'],
    ['is mahine kitna becha', '2026-11-01..2026-11-30'],
    ['expenses last quarter', '2026-07-01..2026-09-30'],
    ['this quarter so far', '2026-10-01..2026-11-28'],
    ['Q2 sales', '2026-07-01..2026-09-30'],
    ['Q4 profit', '2026-01-01..2026-03-31'],
    ['Q2 FY25', '2024-07-01..2024-09-30'],
    ['Q2 2025-26 margin', '2025-07-01..2025-09-30'],
    ['Q4 FY 2025-26', '2026-01-01..2026-03-31'],
    ['second quarter', '2026-07-01..2026-09-30'],
    ['dusri timahi ka munafa', '2026-07-01..2026-09-30'],
    ['दूसरी तिमाही', '2026-07-01..2026-09-30'],
    ['Q3 of last year', '2025-10-01..2025-12-31'],
    ['last FY', '2025-04-01..2026-03-31'],
    ['previous financial year', '2025-04-01..2026-03-31'],
    ['last Q', '2026-07-01..2026-09-30'],
    ['What is Q2 revenue', '2026-07-01..2026-09-30'],
    ['is Q1 better than Q2?', '2026-07-01..2026-09-30'],
    ['this qtr', '2026-10-01..2026-12-31'],
    ['पिछले वित्त वर्ष का लाभ', '2025-04-01..2026-03-31'],
    ['FY 2024-25', '2024-04-01..2025-03-31'],
    ['FY25', '2024-04-01..2025-03-31'],
    ['fy2024-25 revenue', '2024-04-01..2025-03-31'],
    ['profit in 2024-25', '2024-04-01..2025-03-31'],
    ['this year', '2026-04-01..2027-03-31'],
    ['is saal', '2026-04-01..2027-03-31'],
    ['pichle saal ki sales', '2025-04-01..2026-03-31'],
    ['calendar year 2025', '2025-01-01..2025-12-31'],
    ['March 2026', '2026-03-01..2026-03-31'],
    ["sales in Mar '25", '2025-03-01..2025-03-31'],
    ['नवंबर की बिक्री', '2026-11-01..2026-11-30'],
    ['farvari 2024 ka kharcha', '2024-02-01..2024-02-29'],
    ['December sales', '2025-12-01..2025-12-31'],
    ['last November', '2025-11-01..2025-11-30'],
    ['since April', '2026-04-01..2026-11-28'],
    ['April se', '2026-04-01..2026-11-28'],
    ['अप्रैल से अब तक', '2026-04-01..2026-11-28'],
    ['last 3 months', '2026-08-01..2026-10-31'],
    ['pichle teen mahine', '2026-08-01..2026-10-31'],
    ['पिछले 3 महीनों में', '2026-08-01..2026-10-31'],
    ['last 90 days', '2026-08-31..2026-11-28'],
    ['YTD revenue', '2026-04-01..2026-11-28'],
    ['year to date', '2026-04-01..2026-11-28'],
    ['month to date', '2026-11-01..2026-11-28'],
    ['is mahine ab tak', '2026-11-01..2026-11-28'],
    ['today', '2026-11-28..2026-11-28'],
    ['aaj ki sales', '2026-11-28..2026-11-28'],
    ['आज', '2026-11-28..2026-11-28'],
    ['yesterday', '2026-11-27..2026-11-27'],
    ['this week', '2026-11-23..2026-11-29'],
    ['pichle hafte', '2026-11-16..2026-11-22'],
    ['इस हफ्ते', '2026-11-23..2026-11-29'],
    ['next week', '2026-11-30..2026-12-06'],
    ['April to June', '2026-04-01..2026-06-30'],
    ['अप्रैल से जून तक', '2026-04-01..2026-06-30'],
    ['November to January', '2025-11-01..2026-01-31'],
    ['from 1 April 2026 to 15 June 2026', '2026-04-01..2026-06-15'],
    ['sales on 2026-10-05', '2026-10-05..2026-10-05'],
    ['3 mahine pehle', '2026-08-01..2026-08-31'],
  ])('%s → %s', (text, expected) => {
    expect(dates(text)).toBe(expected);
  });

  it('labels what it read for a finance person', () => {
    expect(read('since April')?.period.label).toBe('1 Apr – 28 Nov 2026');
    expect(read('Q2')?.period.label).toBe('Q2 FY 2026-27 (Jul–Sep 2026)');
    expect(read('month to date')?.period.label).toBe('November 2026 to date (1–28 Nov 2026)');
    expect(read('what was profit last month?')?.matched).toBe('last month');
    expect(read('पिछले महीने की बिक्री')?.matched).toBe('पिछले महीने');
  });

  it('returns nothing when no period is named', () => {
    for (const text of [
      'how much cash do we have',
      'profit',
      'who owes us the most?',
      'May I see the sales?',
      '',
    ]) {
      expect(read(text)).toBeUndefined();
    }
  });
});

describe('readPeriod: more ways of saying a period', () => {
  it.each([
    ['this month last year', '2025-11-01..2025-11-30'],
    ['pichle saal is mahine', '2025-11-01..2025-11-30'],
    ['March last year', '2025-03-01..2025-03-31'],
    ['prior year', '2025-04-01..2026-03-31'],
    ['trailing 12 months', '2025-11-01..2026-10-31'],
    ['this fiscal', '2026-04-01..2027-03-31'],
    ['a month ago', '2026-10-01..2026-10-31'],
    ['since the start of the year', '2026-04-01..2026-11-28'],
    ['saal ki shuruaat se', '2026-04-01..2026-11-28'],
    ['beginning of this month', '2026-11-01..2026-11-28'],
    ['FY 2026-27 to date', '2026-04-01..2026-11-28'],
    ['Q3 so far', '2026-10-01..2026-11-28'],
    ['between April and June', '2026-04-01..2026-06-30'],
    ['H1 FY26', '2025-04-01..2025-09-30'],
    ['first half', '2026-04-01..2026-09-30'],
    ['dusri chhamahi', '2026-10-01..2027-03-31'],
    ['sales on 5/10/2026', '2026-10-05..2026-10-05'],
    ['from 01.04.2026 to 30.06.2026', '2026-04-01..2026-06-30'],
    ['Jan-Mar 2026', '2026-01-01..2026-03-31'],
    ['Apr–Jun 2025', '2025-04-01..2025-06-30'],
    ['LAST MONTH', '2026-10-01..2026-10-31'],
    ['pichla mahina', '2026-10-01..2026-10-31'],
    ['pichli timahi', '2026-07-01..2026-09-30'],
    ['इस वित्त वर्ष', '2026-04-01..2027-03-31'],
    ['इस साल', '2026-04-01..2027-03-31'],
    ['पिछले ७ दिन', '2026-11-22..2026-11-28'],
    ['Q3 FY 26', '2025-10-01..2025-12-31'],
    ['FY26 Q2', '2025-07-01..2025-09-30'],
    ['first quarter of this year', '2026-04-01..2026-06-30'],
    ['in 2025', '2025-01-01..2025-12-31'],
    ['quarter ended 30 Sep 2025', '2025-07-01..2025-09-30'],
    ['the year ended 31 March 2025', '2024-04-01..2025-03-31'],
    ['year ending December 2025', '2025-01-01..2025-12-31'],
    ['calendar year', '2026-01-01..2026-12-31'],
    ['last calendar year', '2025-01-01..2025-12-31'],
    ['2025 mein kitna', '2025-01-01..2025-12-31'],
    ['from 2024 to 2025', '2024-01-01..2025-12-31'],
    ['Q1 to Q3', '2026-04-01..2026-12-31'],
    ['the month of April', '2026-04-01..2026-04-30'],
    ['april mahine ka kharcha', '2026-04-01..2026-04-30'],
    ['जनवरी से मार्च तक', '2026-01-01..2026-03-31'],
    ['1st April 2025', '2025-04-01..2025-04-01'],
    ['April 15', '2026-04-15..2026-04-15'],
  ])('%s → %s', (text, expected) => {
    expect(dates(text)).toBe(expected);
  });

  it('labels halves and quarters cut at today', () => {
    expect(read('H1 FY26')?.period.label).toBe('H1 FY 2025-26 (Apr–Sep 2025)');
    expect(read('Q3 so far')?.period.label).toBe('Q3 FY 2026-27 to date (1 Oct – 28 Nov 2026)');
  });
});

describe('may and march: months only where a month belongs', () => {
  it.each([
    ['Sales may rise next quarter', '2027-01-01..2027-03-31'],
    ['May I see expenses for April?', '2026-04-01..2026-04-30'],
    ['We may need a loan', undefined],
    ['The army will march on', undefined],
    ['sales in May', '2026-05-01..2026-05-31'],
    ['May 2025 sales', '2025-05-01..2025-05-31'],
    ['march ka revenue', '2026-03-01..2026-03-31'],
    ['how was March?', '2026-03-01..2026-03-31'],
    ['March', '2026-03-01..2026-03-31'],
    ['What is March revenue', '2026-03-01..2026-03-31'],
    ['mai kya karu', undefined],
    ['since march', '2026-03-01..2026-11-28'],
  ])('%s → %s', (text, expected) => {
    expect(dates(text)).toBe(expected);
  });
});

describe('comparisons', () => {
  it.each([
    ['last month vs this month', '2026-11-01..2026-11-30', 'previous'],
    ['this month versus last month', '2026-11-01..2026-11-30', 'previous'],
    ['sales vs last month', '2026-11-01..2026-11-30', 'previous'],
    ['pichle mahine se zyada kamaya?', '2026-11-01..2026-11-30', 'previous'],
    ['is mahine ki pichle mahine se tulna', '2026-11-01..2026-11-30', 'previous'],
    ['this month vs same month last year', '2026-11-01..2026-11-30', 'last_year'],
    ['pichle saal isi mahine', '2026-11-01..2026-11-30', 'last_year'],
    ['पिछले साल इसी महीने से तुलना', '2026-11-01..2026-11-30', 'last_year'],
    ['this quarter compared with last year', '2026-10-01..2026-12-31', 'last_year'],
    ['Q3 vs Q3 last year', '2026-10-01..2026-12-31', 'last_year'],
    ['compare Q2 with Q1', '2026-07-01..2026-09-30', 'previous'],
    ['March vs April', '2026-04-01..2026-04-30', 'previous'],
    ['compare March to April', '2026-04-01..2026-04-30', 'previous'],
    ['FY 2025-26 vs FY 2024-25', '2025-04-01..2026-03-31', 'previous'],
    ['yoy growth this quarter', '2026-10-01..2026-12-31', 'last_year'],
    ['month on month revenue this month', '2026-11-01..2026-11-30', 'previous'],
    ['y-o-y sales this month', '2026-11-01..2026-11-30', 'last_year'],
    ['growth is year on year for this quarter', '2026-10-01..2026-12-31', 'last_year'],
    ['this month vs last year', '2026-11-01..2026-11-30', 'last_year'],
    ['this quarter vs the corresponding quarter last year', '2026-10-01..2026-12-31', 'last_year'],
    ['November 2026 vs November 2025', '2026-11-01..2026-11-30', 'last_year'],
    ['FY26 vs FY25', '2025-04-01..2026-03-31', 'previous'],
    ['इस महीने बनाम पिछले महीने', '2026-11-01..2026-11-30', 'previous'],
  ])('%s → %s, %s', (text, expected, compare) => {
    const r = read(text);
    expect(r ? `${r.period.from}..${r.period.to}` : undefined).toBe(expected);
    expect(r?.compare).toBe(compare);
    expect(r?.against).toBeUndefined();
  });

  it('names the other period when it is neither the previous nor a year ago', () => {
    const r = read('November vs August');
    expect(r?.period.label).toBe('November 2026');
    expect(r?.against?.label).toBe('August 2026');
    expect(r?.matched).toBe('November vs August');
  });

  it('reads no comparison into a plain question', () => {
    expect(read('profit last month')?.compare).toBeUndefined();
  });
});

describe('other businesses and edge days', () => {
  it('a January year: this year and FY25 are calendar years', () => {
    expect(dates('this year', TODAY, 1)).toBe('2026-01-01..2026-12-31');
    expect(dates('FY25', TODAY, 1)).toBe('2025-01-01..2025-12-31');
    expect(dates('Q1', TODAY, 1)).toBe('2026-01-01..2026-03-31');
    expect(dates('YTD', TODAY, 1)).toBe('2026-01-01..2026-11-28');
  });

  it('crosses the financial year on 1 April and keeps leap days', () => {
    expect(dates('last month', '2026-04-01')).toBe('2026-03-01..2026-03-31');
    expect(dates('this FY', '2026-03-31')).toBe('2025-04-01..2026-03-31');
    expect(dates('this FY', '2026-04-01')).toBe('2026-04-01..2027-03-31');
    expect(dates('since April', '2026-03-15')).toBe('2025-04-01..2026-03-15');
    expect(dates('last month', '2024-03-10')).toBe('2024-02-01..2024-02-29');
    expect(dates('पिछले महीने', '2025-03-10')).toBe('2025-02-01..2025-02-28');
    expect(dates('yesterday', '2024-03-01')).toBe('2024-02-29..2024-02-29');
  });
});

// A grammar of relative phrases: a word for this/last × a word for the unit, inside filler words.
const THIS_WORDS = ['this', 'current', 'is', 'iss', 'इस'];
const LAST_WORDS = ['last', 'previous', 'pichle', 'pichhle', 'पिछले', 'पिछली'];
const UNIT_WORDS: Record<'month' | 'quarter' | 'fy' | 'week', string[]> = {
  month: ['month', 'mahine', 'mahina', 'महीने', 'महीना'],
  quarter: ['quarter', 'qtr', 'timahi', 'तिमाही'],
  fy: ['FY', 'financial year', 'fiscal year', 'year', 'saal', 'साल', 'वित्त वर्ष', 'vitt varsh'],
  week: ['week', 'hafte', 'हफ्ते'],
};
const FILLERS: [string, string][] = [
  ['', ''],
  ['What was our profit ', '?'],
  ['sales ', ' ka kitna tha'],
  ['मुनाफा ', ' का'],
  ['Show expenses for ', ' please'],
];

const day = fc
  .integer({ min: Date.UTC(2000, 0, 1) / 86_400_000, max: Date.UTC(2090, 0, 1) / 86_400_000 })
  .map((n) => new Date(n * 86_400_000).toISOString().slice(0, 10));

function expected(unit: keyof typeof UNIT_WORDS, last: boolean, today: string, fsm: number): Period {
  const [y, m] = [Number(today.slice(0, 4)), Number(today.slice(5, 7))];
  const now =
    unit === 'month'
      ? monthPeriod(y, m)
      : unit === 'quarter'
        ? quarterOf(today, fsm)
        : unit === 'fy'
          ? financialYearOf(today, fsm)
          : weekOf(today);
  return last ? previousPeriod(now) : now;
}

describe('generated phrases', () => {
  it('{this, last, pichle, is, पिछले, इस} × {month, mahine, महीने, quarter, FY, …} read the right period', () => {
    fc.assert(
      fc.property(
        day,
        fc.integer({ min: 1, max: 12 }),
        fc.boolean(),
        fc.constantFrom(...(Object.keys(UNIT_WORDS) as (keyof typeof UNIT_WORDS)[])),
        fc.nat(),
        fc.nat(),
        fc.constantFrom(...FILLERS),
        (today, fsm, last, unit, a, b, [before, after]) => {
          const rel = last ? LAST_WORDS[a % LAST_WORDS.length]! : THIS_WORDS[a % THIS_WORDS.length]!;
          const unitWord = UNIT_WORDS[unit][b % UNIT_WORDS[unit].length]!;
          const phrase = `${rel} ${unitWord}`;
          const r = readPeriod(`${before}${phrase}${after}`, today, fsm);
          const want = expected(unit, last, today, fsm);
          expect(r && [r.period.from, r.period.to]).toEqual([want.from, want.to]);
          expect(r?.matched).toBe(phrase);
          expect(r?.compare).toBeUndefined();
        },
      ),
    );
  });

  it('month names with a year, in three scripts, read that month', () => {
    const names: string[][] = [
      ['January', 'Jan', 'janvari', 'जनवरी'],
      ['February', 'Feb', 'farvari', 'फरवरी'],
      ['March', 'Mar', 'maarch', 'मार्च'],
      ['April', 'Apr', 'aprail', 'अप्रैल'],
      ['May', 'May', 'mai', 'मई'],
      ['June', 'Jun', 'joon', 'जून'],
      ['July', 'Jul', 'julai', 'जुलाई'],
      ['August', 'Aug', 'agast', 'अगस्त'],
      ['September', 'Sept', 'sitambar', 'सितंबर'],
      ['October', 'Oct', 'aktubar', 'अक्टूबर'],
      ['November', 'Nov', 'navambar', 'नवंबर'],
      ['December', 'Dec', 'disambar', 'दिसंबर'],
    ];
    fc.assert(
      fc.property(
        day,
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 2000, max: 2090 }),
        fc.nat(3),
        (today, m, y, k) => {
          const r = readPeriod(`sales in ${names[m - 1]![k]} ${y}`, today, 4);
          expect(r?.period).toMatchObject({ from: monthPeriod(y, m).from, to: monthPeriod(y, m).to });
        },
      ),
    );
  });

  it('Qn FY yy-yy and Qn FYyy name the quarter of that financial year', () => {
    fc.assert(
      fc.property(
        day,
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 2001, max: 2090 }),
        (today, fsm, q, start) => {
          const want = fyQuarter(start, q, fsm);
          const end = start + 1;
          const long = readPeriod(`Q${q} FY ${start}-${String(end % 100).padStart(2, '0')}`, today, fsm);
          expect(long?.period).toMatchObject({ from: want.from, to: want.to });
          const short = readPeriod(
            `q${q} fy${String((fsm === 1 ? start : end) % 100).padStart(2, '0')}`,
            today,
            fsm,
          );
          expect(short?.period).toMatchObject({ from: want.from, to: want.to });
          expect(readPeriod(`FY ${start}-${end}`, today, fsm)?.period).toMatchObject(fyPeriod(start, fsm));
        },
      ),
    );
  });

  it('since a month runs from its latest first day not after today, to today', () => {
    fc.assert(
      fc.property(
        day,
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom('since %', '% se', '% से अब तक'),
        (today, m, form) => {
          const name = [
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
          ][m - 1]!;
          const r = readPeriod(form.replace('%', name), today, 4);
          const y = Number(today.slice(0, 4));
          const from = monthPeriod(Number(today.slice(5, 7)) >= m ? y : y - 1, m).from;
          expect(r?.period).toMatchObject({ from, to: today });
        },
      ),
    );
  });

  it('whatever words come, a period read runs forwards and its words are in the question', () => {
    const vocab = [
      'this',
      'last',
      'next',
      'pichle',
      'is',
      'se',
      'tak',
      'ab',
      'to',
      'date',
      'since',
      'vs',
      'month',
      'mahine',
      'quarter',
      'Q',
      'Q2',
      'FY',
      'FY25',
      '2024-25',
      '2025',
      '31',
      '0',
      '1st',
      'may',
      'march',
      'April',
      'नवंबर',
      'पिछले',
      'साल',
      'इसी',
      'same',
      'year',
      'days',
      '90',
      'ago',
      'pehle',
      'calendar',
      'in',
      'from',
      'till',
      'June',
      'ytd',
      'kal',
      'aaj',
      '2026-02-30',
      'sales',
      '-',
      "'26",
      'week',
      'hafte',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...vocab), { maxLength: 8 }),
        day,
        fc.integer({ min: 1, max: 12 }),
        (ws, today, fsm) => {
          const text = ws.join(' ');
          const r = readPeriod(text, today, fsm);
          if (!r) return;
          expect(r.period.from <= r.period.to).toBe(true);
          expect(text.includes(r.matched)).toBe(true);
          expect(r.matched.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('last N days end today; last N months are the N whole months before this one', () => {
    fc.assert(
      fc.property(
        day,
        fc.integer({ min: 1, max: 400 }),
        fc.constantFrom('last % days', 'past % days', 'pichle % din', 'पिछले % दिनों'),
        (today, n, form) => {
          const r = readPeriod(form.replace('%', String(n)), today, 4);
          expect(r?.period.to).toBe(today);
          expect(r && daysIn(r.period)).toBe(n);
        },
      ),
    );
    fc.assert(
      fc.property(
        day,
        fc.integer({ min: 2, max: 36 }),
        fc.constantFrom('last % months', 'previous % months', 'pichle % mahine', 'पिछले % महीनों'),
        (today, n, form) => {
          const r = readPeriod(form.replace('%', String(n)), today, 4);
          const [y, m] = [Number(today.slice(0, 4)), Number(today.slice(5, 7))];
          expect(r?.period.from).toBe(monthPeriod(y, m - n).from);
          expect(r?.period.to).toBe(monthPeriod(y, m - 1).to);
        },
      ),
    );
  });

  it('a bare quarter or month is the latest one begun by today', () => {
    fc.assert(
      fc.property(day, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 4 }), (today, fsm, q) => {
        const r = readPeriod(`Q${q}`, today, fsm);
        expect(r?.period.grain).toBe('quarter');
        expect(r!.period.from <= today).toBe(true);
        expect(samePeriodLastYear(r!.period).label.startsWith(`Q${q} `)).toBe(true);
        // A year on, the same quarter has not begun yet.
        expect(nextPeriod(nextPeriod(nextPeriod(nextPeriod(r!.period)))).from > today).toBe(true);
      }),
    );
    fc.assert(
      fc.property(day, fc.constantFrom('January', 'April', 'June', 'October', 'December'), (today, name) => {
        const r = readPeriod(`sales for ${name}`, today, 4);
        expect(r!.period.from <= today).toBe(true);
        expect(addMonths(r!.period.from, 12) > today).toBe(true);
      }),
    );
  });

  it('"A vs B" of this and last period reads this one against the previous, in any order and script', () => {
    const pairs: [string, string][] = [
      ['this month', 'last month'],
      ['is mahine', 'pichle mahine'],
      ['इस महीने', 'पिछले महीने'],
      ['this quarter', 'last quarter'],
      ['this FY', 'last FY'],
      ['is saal', 'pichle saal'],
      ['this week', 'last week'],
    ];
    fc.assert(
      fc.property(
        day,
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom(...pairs),
        fc.boolean(),
        fc.constantFrom(' vs ', ' versus ', ' compared with ', ' बनाम '),
        (today, fsm, [now, before], flip, joint) => {
          const text = flip ? `${before}${joint}${now}` : `${now}${joint}${before}`;
          const r = readPeriod(text, today, fsm);
          const alone = readPeriod(now, today, fsm)!;
          expect(r?.period).toEqual(alone.period);
          expect(r?.compare).toBe('previous');
          expect(r?.matched).toBe(text);
        },
      ),
    );
  });

  it('never throws on any text, and what it reads runs forwards', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        day,
        fc.integer({ min: 1, max: 12 }),
        (text, today, fsm) => {
          const r = readPeriod(text, today, fsm);
          if (r) expect(r.period.from <= r.period.to).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('calendar years stay calendar years', () => {
    fc.assert(
      fc.property(
        day,
        fc.integer({ min: 1990, max: 2100 }),
        fc.integer({ min: 1, max: 12 }),
        (today, y, fsm) => {
          expect(readPeriod(`calendar year ${y}`, today, fsm)?.period).toMatchObject(calendarYear(y));
        },
      ),
    );
  });
});
