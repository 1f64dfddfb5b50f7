/**
 * Period phrases in questions, in English, romanised Hindi (Hinglish) and Devanagari Hindi, read by a small
 * grammar over words rather than a list of sentences. Choices a reader should know:
 * - "this year" / "is saal" / "last year" name financial years (an Indian business speaks of its FY);
 *   "calendar year 2025" / "CY2025" name calendar years.
 * - A named month or quarter without a year is the latest one that has begun by today ("March" in
 *   November 2026 is March 2026; "December" is December 2025); "last March" the latest that has ended.
 * - "this month", "Q3", "this FY" are whole periods even when they have not ended; the caller cuts them with
 *   `toDate`. Phrases that say so ("month to date", "YTD", "ab tak", "since April") end today.
 * - "FY25" and "FY 2025" name the financial year ending in 2025 (FY 2024-25 with an April start).
 * - "Q2 2025" is the calendar quarter of 2025 (Apr–Jun 2025), named by its FY quarter.
 * - "last 3 months" are the three whole months before this one; "last 90 days" end today.
 * - "may", "march" and "mai" are months only next to a year, after in/for/since/…, before
 *   se/mein/ka/vs/…, or alone as the question.
 * - "kal" is read as yesterday: the books hold the past.
 * - "this month last year" / "March last year" name that period a year back; with "vs" or "compared" the
 *   same words ask for a comparison with it ("this month vs last year": `compare: 'last_year'`).
 * - Dates written with slashes or dots are day/month/year (5/10/2026 is 5 October 2026).
 * - "H1" / "first half" are the first six months of the financial year (a custom period).
 */
import {
  addDays,
  addMonths,
  calendarYear,
  compareDates,
  customPeriod,
  dayPeriod,
  financialYearOf,
  fyName,
  fyPeriod,
  fyQuarter,
  fyStartYear,
  isoDate,
  monthPeriod,
  nextPeriod,
  type Period,
  parseDate,
  previousPeriod,
  quarterOf,
  samePeriodLastYear,
  toDate,
  weekOf,
} from './periods.ts';

/** What a question names: its period, what it is compared with, and the words that said so. */
export interface PeriodReading {
  period: Period;
  compare?: 'previous' | 'last_year';
  /** The second period when a question names both and it is neither the previous nor last year's. */
  against?: Period;
  matched: string;
}

interface Tok {
  w: string;
  start: number;
  end: number;
}

const canon = (s: string) =>
  s
    .toLowerCase()
    .normalize('NFD')
    .replace(/\u093c|\u200c|\u200d|[\u0300-\u036f]/g, '')
    .replace(/\u0901/g, '\u0902');

/** A set of canonical words from a space-separated list. */
const words = (list: string) => new Set(list.split(' ').map(canon));
const THIS = words('this current curr present is iss isi ye yeh chalu इस इसी यह ये चालू मौजूदा');
const LAST = words(
  'last previous prev prior past preceding trailing pichle pichhle pichla pichhla pichli pichhli picchle pichley pichel gat beete bite पिछले पिछला पिछली गत बीते बीता बीती',
);
const NEXT = words('next coming upcoming agle agla agli agley अगले अगला अगली आगामी');
type Unit = 'day' | 'week' | 'month' | 'quarter' | 'fy' | 'year';
/** The most of a unit a phrase may count ("last 50 years"): beyond, the words are not a period. */
const MAX_COUNT: Record<Unit, number> = { day: 3660, week: 520, month: 240, quarter: 80, fy: 50, year: 50 };
const UNITS: [Unit, Set<string>][] = [
  ['day', words('day days din dino dinon दिन दिनों')],
  [
    'week',
    words('week weeks wk wks hafta hafte haftey hafton hapta hapte saptah हफ्ता हफ्ते हफ्तों सप्ताह सप्ताहों'),
  ],
  [
    'month',
    words(
      'month months mth mths mahina mahine mahino mahinon mahiney maheena maheene mahena mahene mahinay maah महीना महीने महीनों माह मास',
    ),
  ],
  ['quarter', words('quarter quarters q qtr qtrs timahi timaahi timahee timai तिमाही तिमाहियों')],
  ['fy', words('fy fys')],
  ['year', words('year years yr yrs saal sal saalon salon varsh varsha baras साल सालों वर्ष वर्षों बरस')],
];
const FINANCIAL = words('financial fiscal finance vitt vitta vittiya vittiy वित्त वित्तीय');
const CALENDAR = words('calendar cal kalendar कैलेंडर');
const TODAY = words('today todays aaj aj आज');
const YESTERDAY = words('yesterday yesterdays kal कल');
const SINCE_PRE = words('since from starting');
const SINCE_POST = words('se sey से');
const TILL = words('to till until upto through thru se से');
const TAK = words('tak तक');
const TODATE_PAIRS: [string, string][] = [
  ['to', 'date'],
  ['till', 'date'],
  ['till', 'now'],
  ['until', 'now'],
  ['so', 'far'],
  ['till', 'today'],
  ['ab', 'tak'],
  ['abhi', 'tak'],
  ['aaj', 'tak'],
  ['अब', 'तक'],
  ['अभी', 'तक'],
  ['आज', 'तक'],
].map(([a, b]) => [canon(a!), canon(b!)]);
const SHORT_TODATE: Record<string, Unit> = {
  ytd: 'fy',
  fytd: 'fy',
  mtd: 'month',
  qtd: 'quarter',
  wtd: 'week',
};
const AGO = words('ago back pehle pahle पहले');
const SAME = words('same corresponding isi usi wahi vahi इसी उसी वही');
const CMP_BEFORE = words('vs versus against than compared v banaam banam बनाम');
const CMP_WORDS = words(
  'vs versus banaam banam बनाम against than compare compared comparing comparison tulna tulana तुलना mukable mukabale muqable muqabale mukaable mukabla मुकाबले मुकाबला mom qoq sequential',
);
const CMP_AFTER = words('se से ke ki के की tulna mukable mukabale muqable तुलना मुकाबले');
const YOY = words('yoy ly py');
const YEAR_BEFORE = words('in for during of since from till until to vs versus and between banaam बनाम');
const YEAR_AFTER = words('mein me men में se से ka ki ke का की के tak तक vs versus and aur और to till');
const START = words('beginning start starting shuruaat shuruat shuru शुरुआत शुरू');
const PREP = words(
  'in for of during since from till until through to upto by before after ended ending vs versus and between was were about last this next pichle pichhle is agle पिछले इस अगले month mahine महीने than with against',
);
const POSTP = words(
  'mein me men ka ki ke se tak में का की के से तक vs versus and aur और to till month mahine mahina महीने sales revenue profit expenses',
);
const NOT_MONTH_NEXT = words('be not have i we you it also still need help get want on');

const MONTH_WORDS: [number, string][] = [
  [1, 'january jan janvari janwari janvary जनवरी'],
  [2, 'february feb farvari farwari pharvari pharwari febuary फरवरी'],
  [3, 'march mar maarch marc मार्च'],
  [4, 'april apr aprail aprel apreil अप्रैल अप्रेल'],
  [5, 'may mai मई'],
  [6, 'june jun joon जून'],
  [7, 'july jul julai जुलाई'],
  [8, 'august aug agast agust अगस्त'],
  [9, 'september sep sept sitambar sitamber sitember सितंबर सितम्बर'],
  [10, 'october oct aktubar aktoobar octuber अक्टूबर अक्तूबर'],
  [11, 'november nov navambar navamber novembar नवंबर नवम्बर'],
  [12, 'december dec disambar disamber decembar दिसंबर दिसम्बर'],
];
const MONTHS = new Map<string, number>(
  MONTH_WORDS.flatMap(([m, list]) => list.split(' ').map((w) => [canon(w), m])),
);
const AMBIGUOUS_MONTHS = words('may march mar mai marc');

const NUMBER_WORDS = new Map<string, number>(
  (
    [
      [1, 'one ek एक'],
      [2, 'two do दो'],
      [3, 'three teen tin तीन'],
      [4, 'four char chaar चार'],
      [5, 'five paanch panch पांच'],
      [6, 'six chhe chah che छह छः'],
      [7, 'seven saat सात'],
      [8, 'eight aath आठ'],
      [9, 'nine nau नौ'],
      [10, 'ten das दस'],
      [11, 'eleven gyarah ग्यारह'],
      [12, 'twelve barah baarah बारह'],
      [15, 'fifteen pandrah पंद्रह'],
      [18, 'eighteen'],
      [24, 'twenty-four'],
      [30, 'thirty tees तीस'],
      [60, 'sixty'],
      [90, 'ninety nabbe नब्बे'],
    ] as [number, string][]
  ).flatMap(([n, list]) => list.split(' ').map((w) => [canon(w), n] as [string, number])),
);
const ORDINALS = new Map<string, number>(
  (
    [
      [1, 'first 1st pehli pahli pehla pahla पहली पहला'],
      [2, 'second 2nd dusri doosri dusra doosra dusre दूसरी दूसरा'],
      [3, 'third 3rd teesri tisri teesra tisra तीसरी तीसरा'],
      [4, 'fourth 4th chauthi chautha चौथी चौथा'],
    ] as [number, string][]
  ).flatMap(([n, list]) => list.split(' ').map((w) => [canon(w), n] as [string, number])),
);

const TOKEN =
  /\d{1,2}[/.]\d{1,2}[/.]\d{4}(?!\d)|\d{4}-\d{1,2}-\d{1,2}(?!\d)|\d{2}(?:\d{2})?\s*[-–—/]\s*\d{2}(?:\d{2})?(?!\d)|\d+(?:st|nd|rd|th)?|[\p{L}\p{M}\u200c\u200d]+/gu;

function tokenize(text: string): Tok[] {
  // Devanagari digits become ASCII one for one, so offsets into the question stay true.
  const ascii = text.replace(/[०-९]/g, (d) => String(d.charCodeAt(0) - 0x966));
  return [...ascii.matchAll(TOKEN)].map((m) => ({
    w: canon(m[0]),
    start: m.index,
    end: m.index + m[0].length,
  }));
}

interface Match {
  period: Period;
  start: number;
  /** Token index after the match. */
  end: number;
  /** "last year" said as such: with a month or quarter it means a year ago. */
  yearAgo?: boolean;
  /** Said relative to today ("this", "last", "pichle"). */
  rel?: boolean;
  /** A month or day named without its year. */
  yearless?: boolean;
  /** "last month", "pichle saal": a period named against the current one. */
  relLast?: boolean;
  marker?: 'last_year' | 'previous';
  /** The unit a marker names ("same month last year": month). */
  unit?: Unit;
}

interface Ctx {
  toks: Tok[];
  text: string;
  today: string;
  fsm: number;
}

const unitOf = (w: string | undefined): Unit | undefined =>
  w === undefined ? undefined : UNITS.find(([, list]) => list.has(w))?.[0];

function numberAt(t: Tok | undefined): number | undefined {
  if (!t) return undefined;
  if (/^\d+$/.test(t.w)) return Number(t.w);
  return NUMBER_WORDS.get(t.w);
}

/** The unit at i: one word, or "financial year" / "vitt varsh" / "calendar year" (then year means calendar). */
function unitAt(c: Ctx, i: number): { unit: Unit; end: number; calendar?: boolean } | undefined {
  const w = c.toks[i]?.w;
  if (w === undefined) return undefined;
  if (FINANCIAL.has(w) && unitOf(c.toks[i + 1]?.w) === 'year') return { unit: 'fy', end: i + 2 };
  if (CALENDAR.has(w) && unitOf(c.toks[i + 1]?.w) === 'year')
    return { unit: 'year', end: i + 2, calendar: true };
  if (w === 'cy') return { unit: 'year', end: i + 1, calendar: true };
  if (w === 'fiscal') return { unit: 'fy', end: i + 1 };
  // "Q" is a quarter in "last Q", but "Q2" names one.
  if (w === 'q' && /^\d/.test(c.toks[i + 1]?.w ?? '')) return undefined;
  const unit = unitOf(w);
  return unit ? { unit, end: i + 1 } : undefined;
}

/** The current period of a unit: "this year" is the current financial year. */
function current(c: Ctx, unit: Unit, calendar: boolean): Period {
  const { y, m } = parseDate(c.today);
  switch (unit) {
    case 'day':
      return dayPeriod(c.today);
    case 'week':
      return weekOf(c.today);
    case 'month':
      return monthPeriod(y, m);
    case 'quarter':
      return quarterOf(c.today, c.fsm);
    case 'fy':
      return financialYearOf(c.today, c.fsm);
    case 'year':
      return calendar ? calendarYear(y) : financialYearOf(c.today, c.fsm);
  }
}

function shift(p: Period, n: number): Period {
  let q = p;
  for (let k = 0; k < Math.abs(n); k++) q = n < 0 ? previousPeriod(q) : nextPeriod(q);
  return q;
}

function toDateAt(c: Ctx, i: number): number | undefined {
  const a = c.toks[i]?.w;
  const b = c.toks[i + 1]?.w;
  if (TODATE_PAIRS.some(([x, y]) => x === a && y === b)) return i + 2;
  return undefined;
}

/** "this month", "pichle hafte", "last financial year", "last 3 months", "3 mahine pehle", "month to date". */
function relative(c: Ctx, i: number): Match | undefined {
  const w = c.toks[i]!.w;
  const dir = THIS.has(w) ? 0 : LAST.has(w) ? -1 : NEXT.has(w) ? 1 : undefined;
  if (dir === undefined) {
    // "3 months ago", "do mahine pehle"; "month to date", "year to date".
    const n = numberAt(c.toks[i]) ?? (w === 'a' || w === 'an' ? 1 : undefined);
    const u = n !== undefined ? unitAt(c, i + 1) : undefined;
    if (n !== undefined && u && n <= MAX_COUNT[u.unit] && AGO.has(c.toks[u.end]?.w ?? '')) {
      return {
        period: shift(current(c, u.unit, u.calendar ?? false), -n),
        start: i,
        end: u.end + 1,
        rel: true,
        relLast: true,
        ...(n === 1 && u.unit === 'year' && !u.calendar ? { yearAgo: true } : {}),
      };
    }
    const bare = unitAt(c, i);
    const td = bare ? toDateAt(c, bare.end) : undefined;
    if (bare && td !== undefined && bare.unit !== 'day') {
      return {
        period: toDate(current(c, bare.unit, bare.calendar ?? false), c.today),
        start: i,
        end: td,
        rel: true,
      };
    }
    return undefined;
  }
  const n = numberAt(c.toks[i + 1]);
  const counted = n !== undefined && n > 0 ? unitAt(c, i + 2) : undefined;
  if (counted && n !== undefined && dir !== 0) return rolling(c, i, dir, n, counted);
  const u = unitAt(c, i + 1);
  if (!u || (u.unit === 'day' && dir !== 0)) return undefined;
  // "is year on year": the words are a comparison, not this year.
  if (words('on over').has(c.toks[u.end]?.w ?? '') && unitOf(c.toks[u.end + 1]?.w) === u.unit)
    return undefined;
  let period = shift(current(c, u.unit, u.calendar ?? false), dir);
  let end = u.end;
  const td = toDateAt(c, end);
  if (td !== undefined && dir === 0) {
    period = toDate(period, c.today);
    end = td;
  }
  const yearAgo = dir === -1 && u.unit === 'year' && !u.calendar;
  return {
    period,
    start: i,
    end,
    rel: true,
    ...(yearAgo ? { yearAgo } : {}),
    ...(dir === -1 ? { relLast: true } : {}),
  };
}

/** "last 90 days" end today; "last 3 months" are the three whole months before this one. */
function rolling(
  c: Ctx,
  i: number,
  dir: number,
  n: number,
  u: { unit: Unit; end: number },
): Match | undefined {
  if (n > MAX_COUNT[u.unit]) return undefined;
  let period: Period;
  if (u.unit === 'day') {
    period =
      dir < 0
        ? customPeriod(addDays(c.today, -(n - 1)), c.today)
        : customPeriod(addDays(c.today, 1), addDays(c.today, n));
    period = { ...period, label: `${dir < 0 ? 'Last' : 'Next'} ${n} days (${period.label})` };
  } else {
    const now = current(c, u.unit, false);
    const first = shift(now, dir < 0 ? -n : 1);
    const last = dir < 0 ? previousPeriod(now) : shift(now, n);
    period = n === 1 ? first : customPeriod(first.from, last.to);
  }
  return { period, start: i, end: u.end, rel: true };
}

function yearAt(c: Ctx, i: number): number | undefined {
  const t = c.toks[i];
  if (!t) return undefined;
  if (/^\d{4}$/.test(t.w)) {
    const y = Number(t.w);
    return y >= 1900 && y <= 2199 ? y : undefined;
  }
  const gap = c.text.slice(c.toks[i - 1]?.end ?? 0, t.start);
  if (/^\d{2}$/.test(t.w) && /^\s*['’-]\s*$/.test(gap)) return 2000 + Number(t.w);
  return undefined;
}

/** A financial year said by number: "2024-25", "24-25", "25" (FY ending 2025), "2025" (likewise). */
function fyNumber(c: Ctx, i: number, afterFy: boolean): { startYear: number; end: number } | undefined {
  const w = c.toks[i]?.w;
  if (w === undefined) return undefined;
  const range = /^(\d{2}|\d{4})\s*[-–—/]\s*(\d{2}|\d{4})$/.exec(w);
  if (range) {
    const a = range[1]!.length === 2 ? 2000 + Number(range[1]) : Number(range[1]);
    const b = Number(range[2]);
    if (!afterFy && range[1]!.length === 2) return undefined;
    if (a < 1900 || a > 2199) return undefined;
    if (b !== a + 1 && b !== (a + 1) % 100) return undefined;
    return { startYear: a, end: i + 1 };
  }
  if (!afterFy) return undefined;
  const endYear = /^\d{2}$/.test(w) ? 2000 + Number(w) : /^\d{4}$/.test(w) ? Number(w) : undefined;
  if (endYear === undefined || endYear < 1900 || endYear > 2199) return undefined;
  return { startYear: c.fsm === 1 ? endYear : endYear - 1, end: i + 1 };
}

function fyWordAt(c: Ctx, i: number): number | undefined {
  const w = c.toks[i]?.w;
  if (w === 'fy') return i + 1;
  if (w !== undefined && FINANCIAL.has(w) && unitOf(c.toks[i + 1]?.w) === 'year') return i + 2;
  return undefined;
}

/** "FY 2024-25", "FY25", "financial year 2025-26", "वित्त वर्ष 2024-25", bare "2024-25"; "FY25 Q2". */
function fiscal(c: Ctx, i: number): Match | undefined {
  const afterWord = fyWordAt(c, i);
  const num = fyNumber(c, afterWord ?? i, afterWord !== undefined);
  if (!num) return undefined;
  const fy = fyPeriod(num.startYear, c.fsm);
  const q = quarterWord(c, num.end + (linkAt(c, num.end) ? 1 : 0));
  if (q) return { period: quarterOrHalf(num.startYear, q, c.fsm), start: i, end: q.end };
  return { period: fy, start: i, end: num.end };
}

function linkAt(c: Ctx, i: number): boolean {
  return words('of ka ki ke का की के in mein में').has(c.toks[i]?.w ?? '');
}

const HALF = words('half halves chhamahi chamahi छमाही');

/** "Q2", "second quarter", "dusri timahi", "quarter 2"; halves ("H1", "first half") as two quarters from q. */
function quarterWord(c: Ctx, i: number): { q: number; end: number; half?: boolean } | undefined {
  const t = c.toks[i];
  const next = c.toks[i + 1];
  if (!t) return undefined;
  const tight = next !== undefined && /^\s?$/.test(c.text.slice(t.end, next.start));
  if (t.w === 'q' && next && /^[1-4]$/.test(next.w) && tight) return { q: Number(next.w), end: i + 2 };
  if (t.w === 'h' && next && /^[12]$/.test(next.w) && tight)
    return { q: Number(next.w) * 2 - 1, end: i + 2, half: true };
  const ord = ORDINALS.get(t.w);
  if (ord !== undefined && unitOf(next?.w) === 'quarter') return { q: ord, end: i + 2 };
  if (ord !== undefined && ord <= 2 && HALF.has(next?.w ?? ''))
    return { q: ord * 2 - 1, end: i + 2, half: true };
  if (unitOf(t.w) === 'quarter' && next && /^[1-4]$/.test(next.w)) return { q: Number(next.w), end: i + 2 };
  return undefined;
}

/** Quarter q of the year starting in startYear, or the half starting with it. */
function quarterOrHalf(startYear: number, qw: { q: number; half?: boolean }, fsm: number): Period {
  const first = fyQuarter(startYear, qw.q, fsm);
  if (!qw.half) return first;
  const p = customPeriod(first.from, fyQuarter(startYear, qw.q + 1, fsm).to);
  return { ...p, label: `H${(qw.q + 1) / 2} ${fyName(startYear, fsm)} (${p.label})` };
}

/** A quarter with what says its year: "Q2 FY25", "Q2 2025-26", "Q2 of last year", "Q1 2026"; else the latest begun. */
function quarter(c: Ctx, i: number): Match | undefined {
  const qw = quarterWord(c, i);
  if (!qw) return undefined;
  let j = qw.end;
  if (linkAt(c, j)) j++;
  const fyWord = fyWordAt(c, j);
  const num = fyNumber(c, fyWord ?? j, fyWord !== undefined);
  if (num) return { period: quarterOrHalf(num.startYear, qw, c.fsm), start: i, end: num.end };
  const cal = yearAt(c, j);
  if (cal !== undefined && !qw.half) {
    return { period: quarterOf(isoDate(cal, (qw.q - 1) * 3 + 1, 1), c.fsm), start: i, end: j + 1 };
  }
  const thisFy = fyStartYear(c.today, c.fsm);
  const rel = c.toks[j]?.w ?? '';
  const relUnit = unitAt(c, j + 1);
  if (
    (THIS.has(rel) || LAST.has(rel) || NEXT.has(rel)) &&
    relUnit &&
    (relUnit.unit === 'fy' || relUnit.unit === 'year')
  ) {
    const dir = THIS.has(rel) ? 0 : LAST.has(rel) ? -1 : 1;
    return { period: quarterOrHalf(thisFy + dir, qw, c.fsm), start: i, end: relUnit.end };
  }
  const ours = quarterOrHalf(thisFy, qw, c.fsm);
  return {
    period: compareDates(ours.from, c.today) <= 0 ? ours : quarterOrHalf(thisFy - 1, qw, c.fsm),
    start: i,
    end: qw.end,
  };
}

/** The latest month `m` that has begun by today (that has ended, when `ended`). */
function latestMonth(today: string, m: number, ended: boolean): Period {
  const { y, m: tm } = parseDate(today);
  const year = m < tm || (m === tm && !ended) ? y : y - 1;
  return monthPeriod(year, m);
}

function monthGuard(c: Ctx, i: number): boolean {
  const w = c.toks[i]!.w;
  if (!AMBIGUOUS_MONTHS.has(w)) return true;
  if (yearAt(c, i + 1) !== undefined) return true;
  const prev = c.toks[i - 1]?.w;
  const next = c.toks[i + 1]?.w;
  if (next !== undefined && NOT_MONTH_NEXT.has(next)) return false;
  if (w === 'mai') return prev !== undefined && PREP.has(prev) && !MONTHS.has(prev);
  if (prev !== undefined && (PREP.has(prev) || numberAt(c.toks[i - 1]) !== undefined)) return true;
  if (next !== undefined && POSTP.has(next)) return true;
  // "March last year", "may pichle saal".
  if (next !== undefined && (LAST.has(next) || THIS.has(next)) && unitOf(c.toks[i + 2]?.w) === 'year')
    return true;
  return c.toks.length === 1;
}

/** "March 2026", "Mar '26", "November", "last March", "नवंबर", "navambar"; "1 April 2026", "April 1". */
function month(c: Ctx, i: number): Match | undefined {
  let j = i;
  const rel = c.toks[j]?.w ?? '';
  const dir = THIS.has(rel) && rel !== 'is' ? 0 : LAST.has(rel) ? -1 : NEXT.has(rel) ? 1 : undefined;
  if (dir !== undefined) j++;
  const day = /^\d{1,2}(?:st|nd|rd|th)?$/.test(c.toks[j]?.w ?? '')
    ? Number.parseInt(c.toks[j]!.w, 10)
    : undefined;
  if (day !== undefined && MONTHS.has(c.toks[j + 1]?.w ?? '') && dir === undefined)
    return date(c, i, j + 1, day);
  const m = MONTHS.get(c.toks[j]?.w ?? '');
  if (m === undefined || !monthGuard(c, j)) return undefined;
  const year = yearAt(c, j + 1);
  if (year !== undefined && dir === undefined) return { period: monthPeriod(year, m), start: i, end: j + 2 };
  const after = c.toks[j + 1]?.w ?? '';
  if (dir === undefined && /^\d{1,2}(?:st|nd|rd|th)?$/.test(after)) {
    const d = Number.parseInt(after, 10);
    if (d >= 1 && d <= 31 && !unitOf(c.toks[j + 2]?.w)) return date(c, i, j, d, j + 2);
  }
  let period = latestMonth(c.today, m, dir === -1);
  if (dir === 0) period = monthPeriod(fyStartYear(c.today, c.fsm) + (m < c.fsm ? 1 : 0), m);
  if (dir === 1) {
    const { y, m: tm } = parseDate(c.today);
    period = monthPeriod(m > tm ? y : y + 1, m);
  }
  return { period, start: i, end: j + 1, ...(dir === undefined ? { yearless: true } : { rel: true }) };
}

/** A day: "1 April 2026", "1st April", "April 1, 2026"; without a year, the latest not after today. */
function date(c: Ctx, i: number, mi: number, d: number, after = mi + 1): Match | undefined {
  const m = MONTHS.get(c.toks[mi]!.w)!;
  if (d < 1 || d > 31) return undefined;
  const year = yearAt(c, after);
  const { y } = parseDate(c.today);
  let iso = isoDate(year ?? y, m, d);
  if (Number(iso.slice(8)) !== d) return undefined;
  if (year === undefined && compareDates(iso, c.today) > 0) iso = isoDate(y - 1, m, d);
  if (year === undefined) return { period: dayPeriod(iso), start: i, end: after, yearless: true };
  return { period: dayPeriod(iso), start: i, end: after + 1 };
}

function simple(c: Ctx, i: number): Match | undefined {
  const w = c.toks[i]!.w;
  if (TODAY.has(w) && !TAK.has(c.toks[i + 1]?.w ?? ''))
    return { period: dayPeriod(c.today), start: i, end: i + 1 };
  if (YESTERDAY.has(w)) return { period: dayPeriod(addDays(c.today, -1)), start: i, end: i + 1 };
  const short = SHORT_TODATE[w];
  if (short) return { period: toDate(current(c, short, false), c.today), start: i, end: i + 1 };
  if (w === 'ttm' || w === 'ltm') return rolling(c, i, -1, 12, { unit: 'month', end: i + 1 });
  // ISO dates, and day/month/year as Indian books write them (5/10/2026 is 5 October).
  const dmy = /^(\d{1,2})[/.](\d{1,2})[/.](\d{4})$/.exec(w);
  if (dmy || /^\d{4}-\d{1,2}-\d{1,2}$/.test(w)) {
    const [y, m, d] = (dmy ? [dmy[3], dmy[2], dmy[1]].map(Number) : w.split('-').map(Number)) as [
      number,
      number,
      number,
    ];
    const iso = isoDate(y, m, d);
    if (y >= 1900 && y <= 2199 && Number(iso.slice(5, 7)) === m && Number(iso.slice(8)) === d) {
      return { period: dayPeriod(iso), start: i, end: i + 1 };
    }
  }
  // "calendar year 2025", "CY2025", "in 2025".
  const u = unitAt(c, i);
  if (u?.calendar) {
    const y = yearAt(c, u.end);
    if (y !== undefined) return { period: calendarYear(y), start: i, end: u.end + 1 };
    if (
      !THIS.has(c.toks[i - 1]?.w ?? '') &&
      !LAST.has(c.toks[i - 1]?.w ?? '') &&
      !NEXT.has(c.toks[i - 1]?.w ?? '')
    ) {
      return { period: calendarYear(parseDate(c.today).y), start: i, end: u.end };
    }
  }
  // A bare year is a calendar year where a period belongs: "in 2025", "since 2024", "2025 mein", "2025 vs 2024".
  const year = /^\d{4}$/.test(w) ? yearAt(c, i) : undefined;
  if (year !== undefined && !unitOf(c.toks[i + 1]?.w)) {
    const prev = c.toks[i - 1]?.w ?? '';
    const next = c.toks[i + 1]?.w ?? '';
    if (YEAR_BEFORE.has(prev) || YEAR_AFTER.has(next) || (c.toks.length === 1 && i === 0)) {
      return { period: calendarYear(year), start: i, end: i + 1 };
    }
  }
  // "FY" or "financial year" alone: the current one.
  const fw = fyWordAt(c, i);
  if (fw !== undefined && !LAST.has(c.toks[i - 1]?.w ?? ''))
    return { period: financialYearOf(c.today, c.fsm), start: i, end: fw };
  return undefined;
}

/** "same month last year", "pichle saal isi mahine", "पिछले साल इसी महीने", "year on year", "a year ago". */
function marker(c: Ctx, i: number): Match | undefined {
  const w = c.toks[i]!.w;
  const none = { period: dayPeriod(c.today), start: i };
  if (YOY.has(w)) return { ...none, end: i + 1, marker: 'last_year' };
  if (words('mom qoq sequential').has(w)) return { ...none, end: i + 1, marker: 'previous' };
  const u1 = unitOf(w);
  if (u1 && words('on over').has(c.toks[i + 1]?.w ?? '') && unitOf(c.toks[i + 2]?.w) === u1) {
    return { ...none, end: i + 3, marker: u1 === 'year' ? 'last_year' : 'previous' };
  }
  const lastYear = (j: number) =>
    LAST.has(c.toks[j]?.w ?? '') && unitOf(c.toks[j + 1]?.w) === 'year' ? j + 2 : undefined;
  if (SAME.has(w)) {
    const u = unitAt(c, i + 1);
    const j = u ? u.end : i + 1;
    const skip = words('period time samay din of in ka ke ki का के की समय');
    let k = j;
    while (skip.has(c.toks[k]?.w ?? '') && k < j + 2) k++;
    const end = lastYear(k);
    if (end !== undefined) return { ...none, end, marker: 'last_year', ...(u ? { unit: u.unit } : {}) };
  }
  const ly = lastYear(i);
  if (ly !== undefined) {
    let k = ly;
    if (words('ka ke ki का के की of').has(c.toks[k]?.w ?? '')) k++;
    if (SAME.has(c.toks[k]?.w ?? '')) {
      const u = unitAt(c, k + 1);
      return { ...none, end: u ? u.end : k + 1, marker: 'last_year', ...(u ? { unit: u.unit } : {}) };
    }
  }
  // "y-o-y", "m-o-m".
  if (c.toks[i + 1]?.w === 'o' && c.toks[i + 2]?.w === w && words('y m q').has(w)) {
    return { ...none, end: i + 3, marker: w === 'y' ? 'last_year' : 'previous' };
  }
  if (unitOf(w) === 'year' && AGO.has(c.toks[i + 1]?.w ?? ''))
    return { ...none, end: i + 2, marker: 'last_year' };
  return undefined;
}

/** "start of the year", "beginning of this month", "saal ki shuruaat": the current one, to date. */
function startOf(c: Ctx, i: number): Match | undefined {
  let j = c.toks[i]?.w === 'the' ? i + 1 : i;
  if (START.has(c.toks[j]?.w ?? '')) {
    j++;
    if (c.toks[j]?.w === 'of') j++;
    if (c.toks[j]?.w === 'the' || THIS.has(c.toks[j]?.w ?? '')) j++;
    const u = unitAt(c, j);
    if (!u || u.unit === 'day') return undefined;
    return {
      period: toDate(current(c, u.unit, u.calendar ?? false), c.today),
      start: i,
      end: u.end,
      rel: true,
    };
  }
  const u = unitAt(c, THIS.has(c.toks[i]?.w ?? '') ? i + 1 : i);
  if (!u || u.unit === 'day') return undefined;
  const k = linkAt(c, u.end) ? u.end + 1 : u.end;
  if (!START.has(c.toks[k]?.w ?? '')) return undefined;
  return {
    period: toDate(current(c, u.unit, u.calendar ?? false), c.today),
    start: i,
    end: k + 1,
    rel: true,
  };
}

const SPAN_MONTHS: Partial<Record<Unit, number>> = { month: 1, quarter: 3, fy: 12, year: 12 };

/** "quarter ended 30 Sep 2025", "year ending March 2025": the quarter or year that ends there. */
function endedAt(c: Ctx, i: number): Match | undefined {
  const u = unitAt(c, c.toks[i]?.w === 'the' ? i + 1 : i);
  const months = u ? SPAN_MONTHS[u.unit] : undefined;
  if (!u || months === undefined || !words('ended ending end').has(c.toks[u.end]?.w ?? '')) return undefined;
  let j = u.end + 1;
  if (words('on in').has(c.toks[j]?.w ?? '')) j++;
  const at = month(c, j);
  if (!at) return undefined;
  const to = at.period.grain === 'month' ? at.period.to : at.period.from;
  const from = addMonths(addDays(to, 1), -months);
  const q = quarterOf(from, c.fsm);
  const fy = financialYearOf(from, c.fsm);
  const period =
    months === 3 && q.to === to
      ? q
      : months === 12 && fy.to === to
        ? fy
        : months === 1 && at.period.grain === 'month'
          ? at.period
          : customPeriod(from, to);
  return { period, start: i, end: at.end };
}

const RULES = [marker, relative, quarter, fiscal, month, simple, startOf, endedAt];

/** The longest phrase starting at i, with "since", "from … to …", "… se … tak" and "… to date" around it. */
function phraseAt(c: Ctx, i: number): Match | undefined {
  const w = c.toks[i]!.w;
  if (SINCE_PRE.has(w) && i + 1 < c.toks.length) {
    const inner = coreAt(c, i + 1);
    if (inner && !inner.marker) {
      const range = rangeAfter(c, inner);
      if (range) return { ...range, start: i };
      if ((w === 'since' || !inner.rel) && compareDates(inner.period.from, c.today) <= 0) {
        return { period: customPeriod(inner.period.from, c.today), start: i, end: skipTak(c, inner.end) };
      }
    }
  }
  const core = coreAt(c, i);
  if (!core || core.marker) return core;
  const range = rangeAfter(c, core);
  if (range) return range;
  const td = toDateAt(c, core.end);
  if (td !== undefined && !core.period.toDate)
    return { ...core, period: toDate(core.period, c.today), end: td };
  const next = c.toks[core.end]?.w ?? '';
  if (SINCE_POST.has(next)) {
    const td = toDateAt(c, core.end + 1);
    const isMonth = core.period.grain === 'month' && !core.relLast;
    const cmp = CMP_WORDS.has(c.toks[core.end + 1]?.w ?? '') || CMP_AFTER.has(c.toks[core.end + 1]?.w ?? '');
    if (
      (td !== undefined || (isMonth && !cmp) || core.period.grain === 'day') &&
      compareDates(core.period.from, c.today) <= 0
    ) {
      return {
        period: customPeriod(core.period.from, c.today),
        start: i,
        end: td ?? skipTak(c, core.end + 1),
      };
    }
  }
  return core;
}

function skipTak(c: Ctx, j: number): number {
  return TAK.has(c.toks[j]?.w ?? '') ? j + 1 : j;
}

/** "April to June", "अप्रैल से जून तक", "1 April 2026 till 15 June 2026": from the first to the end of the second. */
function rangeAfter(c: Ctx, first: Match): Match | undefined {
  const sep = c.toks[first.end];
  const between = c.toks[first.start - 1]?.w === 'between' && sep?.w === 'and';
  if (
    !sep ||
    !(between || TILL.has(sep.w) || /^\s*[-–—]\s*$/.test(c.text.slice(c.toks[first.end - 1]!.end, sep.start)))
  ) {
    return undefined;
  }
  // "compare March to April" and "pichle mahine se is mahine" compare; they are not spans.
  const before = [c.toks[first.start - 1]?.w ?? '', c.toks[first.start - 2]?.w ?? ''];
  if (before.some((w) => words('compare compared comparing').has(w))) return undefined;
  if (SINCE_POST.has(sep.w) && first.rel) return undefined;
  const j = TILL.has(sep.w) || between ? first.end + 1 : first.end;
  const second = coreAt(c, j);
  if (!second || second.marker || second.rel) return undefined;
  if (!['month', 'day', 'quarter', 'fy', 'year'].includes(second.period.grain)) return undefined;
  let f = first.period;
  let s = second.period;
  // A month without its year comes before the other end: "November to January" is Nov 2025 – Jan 2026.
  while (first.yearless && compareDates(f.from, s.from) > 0) f = samePeriodLastYear(f);
  if (second.yearless && compareDates(s.to, f.from) < 0) s = nextYear(s);
  if (compareDates(s.to, f.from) < 0) return undefined;
  return {
    period: customPeriod(f.from, s.to),
    start: between ? first.start - 1 : first.start,
    end: skipTak(c, second.end),
  };
}

function nextYear(p: Period): Period {
  const a = parseDate(p.from);
  const b = parseDate(p.to);
  return { ...p, from: isoDate(a.y + 1, a.m, a.d), to: isoDate(b.y + 1, b.m, b.d) };
}

function coreAt(c: Ctx, i: number): Match | undefined {
  if (i >= c.toks.length) return undefined;
  let best: Match | undefined;
  for (const rule of RULES) {
    const m = rule(c, i);
    if (m && (!best || m.end > best.end)) best = m;
  }
  return best;
}

function comparisonWordBefore(c: Ctx, m: Match): boolean {
  const w = c.toks[m.start - 1]?.w ?? '';
  const w2 = c.toks[m.start - 2]?.w ?? '';
  if (CMP_BEFORE.has(w)) return true;
  return words('to with').has(w) && words('compared compare comparing').has(w2);
}

function comparisonWordAfter(c: Ctx, m: Match): boolean {
  const w = c.toks[m.end]?.w ?? '';
  const w2 = c.toks[m.end + 1]?.w ?? '';
  if (SINCE_POST.has(w)) return true;
  return CMP_AFTER.has(w) && CMP_WORDS.has(w2);
}

/**
 * Finds the period a question names, anywhere in it, and whether it asks for a comparison: with the previous
 * period ("vs", "compared with", "se tulna", "ke mukable", "last month vs this month") or with the same one a
 * year earlier ("same month last year", "pichle saal isi mahine", "YoY"). Undefined when no period is named.
 */
export function readPeriod(text: string, today: string, fyStartMonth: number): PeriodReading | undefined {
  parseDate(today);
  if (!Number.isInteger(fyStartMonth) || fyStartMonth < 1 || fyStartMonth > 12) {
    throw new RangeError(`fyStartMonth must be 1..12, got ${fyStartMonth}`);
  }
  const c: Ctx = { toks: tokenize(text), text, today, fsm: fyStartMonth };
  const found: Match[] = [];
  for (let i = 0; i < c.toks.length; ) {
    const m = phraseAt(c, i);
    if (m) {
      found.push(m);
      i = m.end;
    } else i++;
  }
  const markers = found.filter((m) => m.marker);
  let periods = found.filter((m) => !m.marker);
  // "pichle saal isi mahine" alone: this month, against the same month a year ago.
  const named = markers.find((m) => m.unit);
  if (periods.length === 0 && named?.unit) {
    periods = [{ period: current(c, named.unit, false), start: named.start, end: named.start + 1 }];
  }
  if (periods.length === 0) return undefined;
  let compare: PeriodReading['compare'] = markers.some((m) => m.marker === 'last_year')
    ? 'last_year'
    : markers.length > 0
      ? 'previous'
      : undefined;
  const comparing = c.toks.some((t) => CMP_WORDS.has(t.w)) || /\bv\/s\b/i.test(text);
  let against: Period | undefined;
  let main = periods[0]!;
  if (periods.length >= 2) {
    const [a, b] = periods as [Match, Match];
    const later = compareDates(a.period.from, b.period.from) >= 0 ? a : b;
    const other = later === a ? b : a;
    main = later;
    const [x, y] = b.yearAgo ? [a, b] : [b, a];
    const adjacent = y.yearAgo && !x.yearAgo && (y.start === x.end || x.start === y.end);
    if (adjacent && !comparing && ((x.rel && !x.relLast) || x.yearless)) {
      // "this month last year", "March last year", "pichle saal is mahine": that period a year back.
      main = { ...x, period: samePeriodLastYear(x.period) };
    } else if (other.yearAgo && main.period.grain !== 'fy' && main.period.grain !== 'year') {
      compare = 'last_year';
    } else if (samePeriods(other.period, previousPeriod(main.period))) {
      compare ??= 'previous';
    } else if (samePeriods(other.period, samePeriodLastYear(main.period))) {
      compare = 'last_year';
    } else {
      against = other.period;
      compare ??= 'previous';
    }
    periods = [a, b];
  } else if (
    main.relLast &&
    !main.period.toDate &&
    (comparisonWordBefore(c, main) || comparisonWordAfter(c, main))
  ) {
    // "sales vs last month", "pichle mahine se zyada": the question is about now, against that period.
    main = { ...main, period: nextPeriod(main.period) };
    compare ??= 'previous';
  } else if (comparing) {
    compare ??= 'previous';
  }
  const used = [...periods, ...markers];
  const start = Math.min(...used.map((m) => c.toks[m.start]!.start));
  const end = Math.max(...used.map((m) => c.toks[m.end - 1]!.end));
  return {
    period: main.period,
    ...(compare ? { compare } : {}),
    ...(against ? { against } : {}),
    matched: text.slice(start, end),
  };
}

function samePeriods(a: Period, b: Period): boolean {
  return a.from === b.from && a.to === b.to;
}
