import { readMoney } from '@munim/contracts';
import { isParty } from './words.ts';

/**
 * A reply to a confirmation that says yes and changes what was proposed: "yes but make it ₹4,500",
 * "ok, and date it 1st December", "haan, 1 December ki date daal do", "हाँ, राशि 4500 कर दो". Read
 * without a model, in English, Hindi and Hinglish: dates in words and numbers, amounts with ₹, Rs,
 * lakh, k. Only a date (the document's or its due date) and an amount can be changed this way;
 * anything else in the message makes it no change (a new question) or one not understood.
 */

/** What a reply changes: the document's date, its due date, its amount (ISO dates). */
export interface Change {
  date?: string;
  due?: string;
  amount?: number;
  /** The currency the amount was said in (`INR` for ₹ or Rs), when it was. */
  currency?: string;
}

export type ChangeReading =
  /** Not a change of the proposal: a plain answer, or a new question. */
  | { kind: 'none' }
  | { kind: 'change'; change: Change }
  /**
   * It asks for a change, but what to change could not be read: a value in words it does not know
   * (`value`: a model may read it), a field of the call this reading does not change (`field`), or
   * values that say two things (`ambiguous`: "kal", two amounts, a negative one).
   */
  | { kind: 'unclear'; reason: string; about: 'value' | 'field' | 'ambiguous' };

const set = (words: string) => new Set(words.split(' '));

/** Words that say yes, at the start of a reply. */
const YES = set(
  'yes y yeah yea yep yup ok okay okk k sure confirm confirmed fine alright right go ahead haan han ha haa haanji ji jee theek thik hai sahi accha acha achha chalo हाँ हां हा जी ठीक है सही अच्छा चलो',
);
/** Words that ask for a value to be set: make it, change to, date it, kar do, daal do, rakho. */
const MARKER = set(
  'make change set put use update correct fix date dated kar karo kardo kariye karna kijiye kijiyega daal dal dalo daalo daaldo rakh rakho rakhna rakhiye likh likho likhna badal badlo badaldo dijiye कर करो करें कीजिए करिए डाल डालो डालें रख रखो रखें लिख लिखो लिखें बदल बदलो बदलें दीजिए',
);
/** Words that name the field changed, or join the reply's parts. */
const FILLER = set(
  'but and also then so instead rather than jagah bajaye bajay बजाय बजाए जगह just only please pls plz kindly instead actually rather wait sorry no nahi nahin not lekin par magar aur bas to it its this that the a an of on for as with at is be do amount amt total price value sum figure rupees rupee rs inr due tarikh tareekh taarikh tarik rakam raqam rashi raashi ki ka ke ko se me mein wala wali isko ise iski iska isse usko uski invoice bill payment entry new और लेकिन पर मगर बस नहीं यह इसे इसको इसकी इसका उसकी की का के को से में तारीख तारीख़ तिथि दिनांक राशि रकम रक़म रुपये रुपए रुपया रु दो वाली वाला देय नई नया',
);

/** Numbers and days in words, which this reading leaves to a model (or to the person, in figures). */
const VALUE_WORDS = set(
  'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand lakh lakhs lac crore crores million half quarter point next last coming this month week end beginning start monday tuesday wednesday thursday friday saturday sunday first second third fourth fifth ek teen char chaar paanch panch chhe chah saat aath nau das bees tees chalis pachas sau hazaar hazar dedh dhai sadhe saade agle agla pichhle mahine hafte एक तीन चार पांच पाँच छह सात आठ नौ दस सौ हज़ार हजार लाख करोड़ डेढ़ ढाई साढ़े अगले पिछले महीने',
);

const MONTHS: [RegExp, number][] = [
  [/^(jan|january|जनवरी)$/, 1],
  [/^(feb|february|फ़रवरी|फरवरी)$/, 2],
  [/^(mar|march|मार्च)$/, 3],
  [/^(apr|april|अप्रैल|अप्रेल)$/, 4],
  [/^(may|मई)$/, 5],
  [/^(jun|june|जून)$/, 6],
  [/^(jul|july|जुलाई)$/, 7],
  [/^(aug|august|अगस्त)$/, 8],
  [/^(sep|sept|september|सितंबर|सितम्बर)$/, 9],
  [/^(oct|october|अक्टूबर|अक्तूबर)$/, 10],
  [/^(nov|november|नवंबर|नवम्बर)$/, 11],
  [/^(dec|december|दिसंबर|दिसम्बर)$/, 12],
];
const MONTH =
  'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|जनवरी|फ़रवरी|फरवरी|मार्च|अप्रैल|अप्रेल|मई|जून|जुलाई|अगस्त|सितंबर|सितम्बर|अक्टूबर|अक्तूबर|नवंबर|नवम्बर|दिसंबर|दिसम्बर';
/** Not inside a word or a number (JavaScript's \b knows no Devanagari). */
const B = '(?<![\\p{L}\\p{M}\\p{N}])';
const E = '(?![\\p{L}\\p{M}\\p{N}])';
const ORD = '(?:st|nd|rd|th)?';
const DATE_PATTERNS: { re: RegExp; read: (m: RegExpExecArray) => [number, number, number | undefined] }[] = [
  {
    re: new RegExp(`${B}(\\d{4})-(\\d{1,2})-(\\d{1,2})${E}`, 'gu'),
    read: (m) => [Number(m[3]), Number(m[2]), Number(m[1])],
  },
  {
    re: new RegExp(`${B}(\\d{1,2})[/.-](\\d{1,2})[/.-](\\d{4}|\\d{2})${E}`, 'gu'),
    read: (m) => [Number(m[1]), Number(m[2]), fullYear(m[3])],
  },
  {
    re: new RegExp(`${B}(\\d{1,2})${ORD}(?:\\s*of)?[\\s-]*(${MONTH})\\.?(?:,?[\\s-]+(\\d{4}))?${E}`, 'gu'),
    read: (m) => [Number(m[1]), monthOf(m[2]), m[3] ? Number(m[3]) : undefined],
  },
  {
    re: new RegExp(`${B}(${MONTH})\\.?\\s+(\\d{1,2})${ORD}(?:,?\\s+(\\d{4}))?${E}`, 'gu'),
    read: (m) => [Number(m[2]), monthOf(m[1]), m[3] ? Number(m[3]) : undefined],
  },
];
const RELATIVE: [RegExp, number][] = [
  [new RegExp(`${B}(today|aaj|आज)${E}`, 'gu'), 0],
  [new RegExp(`${B}(yesterday)${E}`, 'gu'), -1],
  [new RegExp(`${B}(tomorrow)${E}`, 'gu'), 1],
];
/** Days that Hindi names alike before and after today ("kal" is yesterday and tomorrow). */
const AMBIGUOUS_DAY = new RegExp(`${B}(kal|कल|parso|parson|परसों)${E}`, 'u');

/** Money as said: ₹4,500, Rs. 4500/-, 4.5k, 1.2 lakh, 2 crore, 4500 rupees, 4 hazaar. */
const AMOUNT =
  /(?<![\p{L}\p{M}\p{N}#/.-])(₹|rs\.?|inr|rupees?)?\s*(\d+(?:,\d+)*(?:\.\d+)?)\s*(k|thousand|hazaar|hazar|हज़ार|हजार|lakhs?|lacs?|लाख|crores?|cr|करोड़|करोड)?(?:\s*\/-)?(?:\s*(rupees?|rs\.?|inr|रुपये|रुपए|रुपया|रु\.?))?(?![\p{L}\p{M}\p{N}/%-]|\s*(?:%|percent\b|प्रतिशत))/giu;
const SCALE: Record<string, string> = {
  hazaar: 'thousand',
  hazar: 'thousand',
  हज़ार: 'thousand',
  हजार: 'thousand',
  लाख: 'lakh',
  cr: 'crore',
  करोड़: 'crore',
  करोड: 'crore',
};

function fullYear(y: string | undefined): number | undefined {
  if (y === undefined) return undefined;
  return y.length === 2 ? 2000 + Number(y) : Number(y);
}

function monthOf(word: string | undefined): number {
  const w = (word ?? '').toLowerCase();
  return MONTHS.find(([re]) => re.test(w) || re.test(w.slice(0, 3)))?.[1] ?? 0;
}

const iso = (d: Date) => d.toISOString().slice(0, 10);

/** A day and month given without a year: the year that puts it nearest to `reference`. */
function dated(day: number, month: number, year: number | undefined, reference: Date): string | undefined {
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  const years = year !== undefined ? [year] : [-1, 0, 1].map((d) => reference.getUTCFullYear() + d);
  const candidates = years
    .map((y) => new Date(Date.UTC(y, month - 1, day)))
    .filter((d) => d.getUTCDate() === day && d.getUTCMonth() === month - 1);
  const nearest = candidates.sort(
    (a, b) => Math.abs(a.getTime() - reference.getTime()) - Math.abs(b.getTime() - reference.getTime()),
  )[0];
  return nearest ? iso(nearest) : undefined;
}

/** The reply made plain: lower case, Devanagari digits as ASCII, spaces collapsed. */
function plain(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[०-९]/g, (d) => String(d.charCodeAt(0) - 0x966))
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A value the reply turns down: English puts "not", "instead of", "rather than" before it ("4500,
 * not 5000"); Hindi puts "nahi", "ki jagah", "ke bajaye" after it ("5000 nahi, 4500").
 */
const TURNED_DOWN_BEFORE = /(?:^|[^\p{L}])(not|instead of|rather than)\s*[,:]?\s*$/u;
const TURNED_DOWN_AFTER =
  /^\s*[,:]?\s*(nahi|nahin|नहीं|ki jagah|की जगह|ke bajaye|ke bajay|के बजाय|के बजाए)(?![\p{L}\p{M}])/u;

interface Found {
  dates: { iso?: string; said: string; due: boolean; no: boolean }[];
  amounts: { amount: number; currency?: string; no: boolean }[];
  rest: string;
}

/** Takes the dates and amounts out of `text`, leaving the words around them. */
function takeValues(text: string, today: Date, reference: Date): Found {
  const found: Found = { dates: [], amounts: [], rest: text };
  const dueBefore = (at: number) =>
    /(due|देय)\s*(date|तारीख|तिथि)?\s*(on|to|by|ki|की)?\s*$/.test(found.rest.slice(Math.max(0, at - 24), at));
  const no = (at: number, length: number) =>
    TURNED_DOWN_BEFORE.test(text.slice(Math.max(0, at - 16), at)) ||
    TURNED_DOWN_AFTER.test(text.slice(at + length, at + length + 16));
  const blank = (at: number, length: number) => {
    found.rest = `${found.rest.slice(0, at)} ${' '.repeat(Math.max(0, length - 1))}${found.rest.slice(at + length)}`;
  };
  for (const { re, read } of DATE_PATTERNS) {
    for (const m of found.rest.matchAll(re)) {
      const [day, month, year] = read(m);
      const value = dated(day, month, year, reference);
      found.dates.push({
        ...(value ? { iso: value } : {}),
        said: m[0],
        due: dueBefore(m.index),
        no: no(m.index, m[0].length),
      });
      blank(m.index, m[0].length);
    }
  }
  for (const [re, shift] of RELATIVE) {
    for (const m of found.rest.matchAll(re)) {
      found.dates.push({
        iso: iso(new Date(today.getTime() + shift * 86_400_000)),
        said: m[0],
        due: dueBefore(m.index),
        no: no(m.index, m[0].length),
      });
      blank(m.index, m[0].length);
    }
  }
  for (const m of found.rest.matchAll(AMOUNT)) {
    const [, before, digits = '', scale, after] = m;
    const word = scale ? (SCALE[scale] ?? scale.replace(/s$/, '')) : '';
    const money = readMoney(`${digits}${word ? ` ${word === 'k' ? 'k' : word}` : ''}`);
    if (!money) continue;
    const inr = [before, after].some((w) => w !== undefined && w !== '');
    found.amounts.push({
      amount: money.amount,
      ...(inr ? { currency: 'INR' } : {}),
      no: no(m.index, m[0].length),
    });
    blank(m.index, m[0].length);
  }
  return found;
}

/** The words of a reply (letters with their marks, so Devanagari words stay whole). */
const words = (text: string) => text.match(/[\p{L}\p{M}]+/gu) ?? [];

/**
 * Reads a reply to a pending confirmation for a change of its date, due date or amount.
 * `reference` is the call's current date (a day without a year is put nearest to it), `today` the day
 * "today" and "tomorrow" count from, `fields` the words of the pending call's field names: a reply
 * that asks to change one of them (or its party) that cannot be read is not understood, any other
 * words make it a new question. Without `fields`, any other words may name a field.
 */
export function readChange(
  text: string,
  opts: { today?: Date; reference?: Date; fields?: ReadonlySet<string> } = {},
): ChangeReading {
  const today = opts.today ?? new Date();
  const said = plain(text);
  if (said === '' || said.length > 200) return { kind: 'none' };
  const all = words(said);
  const yes = all.length > 0 && YES.has(all[0] as string);
  const marked = all.some((w) => MARKER.has(w));
  if (!yes && !marked) return { kind: 'none' };
  const found = takeValues(said, today, opts.reference ?? today);
  const left = words(found.rest).filter((w) => !YES.has(w) && !MARKER.has(w) && !FILLER.has(w));
  const ambiguous = AMBIGUOUS_DAY.exec(found.rest)?.[1];
  if (left.length > 0) {
    // Words that are not a change: a new question ("yes and also show bills", "ok, make a new
    // invoice for Bolt"), unless the reply asks to change a field of the call ("yes but change the
    // customer to Beta"), which is then not understood.
    if (ambiguous && left.every((w) => w === ambiguous)) return unclearDay(ambiguous);
    // A value in words ("four thousand five hundred", "next Monday"): not read here.
    if (left.every((w) => VALUE_WORDS.has(w)))
      return {
        kind: 'unclear',
        reason: `I could not read “${left.join(' ')}” as a date or an amount; please write it in figures`,
        about: 'value',
      };
    const fields = opts.fields;
    const named = fields === undefined || left.some((w) => fields.has(w) || isParty([w]));
    return yes && marked && named
      ? {
          kind: 'unclear',
          reason: `I can change only the date or the amount this way, and could not read “${left.join(' ')}”`,
          about: left.every((w) => opts.fields === undefined || !(opts.fields.has(w) || isParty([w])))
            ? 'value'
            : 'field',
        }
      : { kind: 'none' };
  }
  const values = found.dates.length + found.amounts.length;
  if (values === 0)
    return marked
      ? { kind: 'unclear', reason: 'I could not tell what the new date or amount should be', about: 'value' }
      : { kind: 'none' };
  // "4500, not 5000": what is turned down is no new value, when another is given.
  const kept = <T extends { no: boolean }>(values: T[]) =>
    values.some((v) => !v.no) ? values.filter((v) => !v.no) : values;
  found.dates = kept(found.dates);
  found.amounts = kept(found.amounts);
  const unread = found.dates.find((d) => d.iso === undefined);
  if (unread) return { kind: 'unclear', reason: `“${unread.said}” is not a date I can read`, about: 'value' };
  const own = found.dates.filter((d) => !d.due);
  const due = found.dates.filter((d) => d.due);
  if (own.length > 1 || due.length > 1 || found.amounts.length > 1)
    return {
      kind: 'unclear',
      reason: 'it gives more than one new value for the same field',
      about: 'ambiguous',
    };
  const change: Change = {};
  if (own[0]?.iso) change.date = own[0].iso;
  if (due[0]?.iso) change.due = due[0].iso;
  const amount = found.amounts[0];
  if (amount) {
    if (!(amount.amount > 0))
      return { kind: 'unclear', reason: 'an amount must be more than zero', about: 'ambiguous' };
    change.amount = amount.amount;
    if (amount.currency) change.currency = amount.currency;
  }
  return { kind: 'change', change };
}

function unclearDay(word: string): ChangeReading {
  return {
    kind: 'unclear',
    reason: `“${word}” can mean the day before or after today; please give the date itself (like 1 December)`,
    about: 'ambiguous',
  };
}
