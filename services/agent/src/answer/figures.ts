import { NUMBER_SCALES, NUMBER_WORDS } from '@munim/finance';
/**
 * The figures a finance answer states: amounts (₹1,17,634.20, Rs 5,000, $1,200, 1.2 lakh, ₹3.5 crore,
 * 12.5L, 2 Cr, 45k, dedh lakh), percentages (12.5%, 12 percent), counts (12 invoices) and plain
 * numbers, each with the precision it was stated to. Dates, years, times, document numbers
 * (INV-0042), GSTINs, phone numbers, list ordinals and durations are not figures to verify.
 */

/** What a figure measures, which decides what it is checked against. */
export type FigureKind = 'money' | 'percent' | 'count' | 'number';

/** A figure as the answer states it. */
export interface Figure {
  /** As written, e.g. "₹1.2 lakh". */
  text: string;
  /** Its value in units (rupees, percent points, records), always ≥ 0: a sign is no part of the check. */
  value: number;
  /** Half a unit of the last digit stated: "₹1.2 lakh" ± 5,000, "₹1,17,634.20" ± 0.005, "12%" ± 0.5. */
  precision: number;
  kind: FigureKind;
  /** Where it starts in the text. */
  index: number;
}

const MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';

/** Spans that hold digits but no figure: dates, periods, times, phone numbers. */
const NOT_FIGURES = [
  /\b\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\b/g,
  new RegExp(
    String.raw`\b\d{1,2}(?:st|nd|rd|th)?(?:\s+of)?[\s-]+${MONTH}\b\.?(?:,?[\s-]+'?\d{2,4}\b)?`,
    'gi',
  ),
  new RegExp(String.raw`\b${MONTH}\.?[\s-]+\d{1,2}(?:st|nd|rd|th)?\b(?:,?\s+\d{4}\b)?(?![,.]?\d)`, 'gi'),
  new RegExp(String.raw`\b${MONTH}\.?[\s'’-]*\d{2,4}\b(?![,.]\d)`, 'gi'),
  /\b(?:FY|AY)\s?'?\d{2,4}(?:\s?[-–/]\s?\d{2,4})?\b/gi,
  /\b(?:19|20)\d{2}\s?[-–/]\s?\d{2}\b(?![,.]\d)/g,
  /\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\b\.?)?/gi,
  /\b\d{1,2}\s?[ap]\.?m\b\.?/gi,
  /\+\d{1,3}[\s-]?\d[\d\s-]{7,}\d/g,
  /(?<![\d,.]|(?:₹|rs\.?|inr)\s?)[6-9]\d{4}[\s-]?\d{5}(?![\d,]|\.\d|\s?(?:rupees|rs\b|inr\b|lakh|crore))/gi,
];

/** ISO codes of currencies an Indian business meets; the ones a symbol stands for are written either way. */
const CODES =
  'inr|usd|eur|gbp|aed|sgd|cad|aud|jpy|cny|chf|hkd|nzd|zar|sar|qar|kwd|omr|bhd|npr|lkr|bdt|pkr|myr|thb';
const CURRENCY_BEFORE = new RegExp(String.raw`(?:₹|\brs\.?|\bus\$|\$|€|£|\b(?:${CODES}))\s*-?\s*$`, 'i');
const CURRENCY_AFTER = new RegExp(
  String.raw`^\s?(?:rupees?|rupaye|rupaiye|rupaiya|rs\b|dollars?\b|euros?\b|₹|रुपये|रुपए|(?:${CODES})\b)`,
  'iu',
);
const PERCENT_AFTER =
  /^\s?(?:%|percent\b|per\s?cent\b|pct\b|pc\b|pratishat\b|fisadi\b|feesdi\b|प्रतिशत|फ़ीसदी|फीसदी)/iu;
/** Scale words, with or without a space; the one-letter ones only written onto the number. */
const SCALE_AFTER: [RegExp, number][] = [
  [/^\s?(?:lakhs?|lacs?|laakh|लाख)(?![\p{L}])/iu, 1e5],
  [/^\s?(?:crores?|crs?|karod|karor|करोड़)(?![\p{L}])/iu, 1e7],
  [/^\s?(?:thousand|hazaa?r|hajaa?r|हज़ार|हजार)(?![\p{L}])/iu, 1e3],
  [/^\s?(?:million|mn)(?![\p{L}])/iu, 1e6],
  [/^\s?(?:billion|bn)(?![\p{L}])/iu, 1e9],
  [/^[kK](?![\p{L}])/u, 1e3],
  [/^L(?![\p{L}])/u, 1e5],
];
const HEDGE =
  /(?<![\p{L}])(?:about|around|approx(?:\.|imately)?|roughly|nearly|almost|close to|over|under|more than|less than|above|below|upwards of|some|~|≈|lagbhag|karib|kareeb|qareeb|takriban)\s*$/iu;
/**
 * Words before a number that make it a position or a reference, not a figure: "top 5", "page 2",
 * "invoice 1042", "HSN 998314", "A/c 501001234".
 */
const POSITION_BEFORE =
  /(?:^|[^\p{L}])(?:top|bottom|first|last|next|previous|page|step|rank|no\.?|number|num|item|line|row|part|section|sec\.?|chapter|version|level|tier|phase|day|week|month|quarter|option|point|rule|form|schedule|pichle|agle|invoice|bill|order|po|ref\.?|reference|id|voucher|txn|transaction|utr|cheque|chq|challan|receipt|hsn|sac|code|pin|pincode|zip|a\/c|ac|account|acct|mobile|phone|tel|ph\.?|whatsapp)\s*[:#.-]?\s*$/iu;
/** Words after a number that make it a duration, a frequency or percentage points: no figure of the books. */
const DURATION = new Set(
  (
    'day days din week weeks hafte hafta month months mahine mahina year years yrs saal sal varsh hour hours hrs ghante ' +
    'minute minutes mins min second seconds secs times baar points point pts pt bps'
  ).split(' '),
);
/** Words after a number that make it no count of things. */
const NOT_COUNTED = new Set(
  'x of to and or the se ka ki ke hai hain tak me mein par per am pm st nd rd th'.split(' '),
);
const NUMBER = /\d+(?:,\d+)*(?:\.\d+)?/g;
/** The next part of an amount in parts: its number, then what follows it (a scale word, to be read). */
const COMPOUND = /^\s*(?:,\s*)?(?:and\s+|aur\s+)?(\d+(?:\.\d+)?)(\s?\S+)/iu;

/** Hindi (and English) number words before a scale word: "dedh lakh", "saade teen crore", "das hazaar". */
const WORD_UNITS = NUMBER_WORDS;
/** The scale words, less those that are also everyday words or letters in an answer ("so", "k", "cr"). */
const WORD_SCALES = Object.fromEntries(
  Object.entries(NUMBER_SCALES).filter(([word]) => !['so', 'k', 'cr'].includes(word)),
);
const WORD_AMOUNT = new RegExp(
  String.raw`(?<![\p{L}])(?:(saa?dh?e|sade)\s+)?(${Object.keys(WORD_UNITS).join('|')})\s+(${Object.keys(WORD_SCALES).join('|')})(?![\p{L}])`,
  'giu',
);

/** Digits, a comma grouping (Indian 1,23,45,678 or western 12,345,678) and decimals, or undefined. */
function readNumber(raw: string): { value: number; decimals: number; trailingZeros: number } | undefined {
  const [whole = '', fraction] = raw.split('.');
  if (whole.includes(',') && !/^\d{1,3}(,\d{3})+$/.test(whole) && !/^\d{1,2}(,\d{2})*,\d{3}$/.test(whole))
    return undefined;
  const digits = whole.replace(/,/g, '');
  const value = Number(`${digits}${fraction === undefined ? '' : `.${fraction}`}`);
  if (!Number.isFinite(value)) return undefined;
  const decimals = fraction?.length ?? 0;
  const trailingZeros = decimals > 0 || /^0+$/.test(digits) ? 0 : (/0+$/.exec(digits)?.[0].length ?? 0);
  return { value, decimals, trailingZeros };
}

/** The text with what holds digits but is no figure blanked out (same length, so indices hold). */
function masked(text: string): string {
  let out = text;
  for (const re of NOT_FIGURES) out = out.replace(re, (m) => ' '.repeat(m.length));
  return out;
}

const isLetter = (c: string | undefined) => c !== undefined && /[\p{L}_]/u.test(c);
const isAlnum = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_]/u.test(c);

/** The scale word written after a number, and how much of the text it takes. */
function scaleAfter(after: string): { scale: number; length: number } | undefined {
  for (const [re, scale] of SCALE_AFTER) {
    const m = re.exec(after);
    if (m) return { scale, length: m[0].length };
  }
  return undefined;
}

/** Whether the number at `start` is glued to an identifier: INV-0042, GSTIN digits, v1.2, #42, No.42. */
function partOfIdentifier(text: string, start: number, hasCurrency: boolean): boolean {
  if (hasCurrency) return false;
  const prev = text[start - 1];
  if (isLetter(prev) || prev === '#') return true;
  if ((prev === '-' || prev === '/' || prev === '.') && isAlnum(text[start - 2])) return true;
  return false;
}

/**
 * The figures `text` states, in order. What is not a figure to check is left out: dates and years,
 * times, document numbers and other identifiers, phone numbers, list ordinals, positions ("top 5"),
 * durations ("30 days") and small bare numbers (under 100, no unit: a table's serial numbers).
 */
export function extractFigures(text: string): Figure[] {
  const src = masked(text);
  const found: Figure[] = [];
  let skipUntil = 0;
  for (const m of src.matchAll(NUMBER)) {
    const start = m.index;
    if (start < skipUntil) continue;
    let end = start + m[0].length;
    const before = src.slice(Math.max(0, start - 16), start);
    const currencyBefore = CURRENCY_BEFORE.exec(before);
    const hasCurrencyBefore = currencyBefore !== null;
    const from = currencyBefore ? start - before.length + currencyBefore.index : start;
    if (partOfIdentifier(src, start, hasCurrencyBefore)) continue;
    const read = readNumber(m[0]);
    if (!read) continue;
    // A leading zero is an identifier's ("0042"), not an amount's.
    if (/^0\d/.test(m[0]) && !hasCurrencyBefore) continue;
    let after = src.slice(end, end + 40);
    const scale = scaleAfter(after);
    if (scale) {
      // "L" and "k" glued to a number are scales; glued to anything more they are a word.
      end += scale.length;
      after = src.slice(end, end + 40);
    } else if (isLetter(after[0])) continue;
    const percent = !scale && PERCENT_AFTER.exec(after);
    const currencyAfter = CURRENCY_AFTER.exec(after);
    if (percent) end += percent[0].length;
    else if (currencyAfter) end += currencyAfter[0].length;
    const money = hasCurrencyBefore || !!currencyAfter || !!scale;
    const hedged = HEDGE.test(before.replace(CURRENCY_BEFORE, ''));
    const lineStart = /(^|\n)[\s>*-]*$/.test(src.slice(Math.max(0, start - 8), start));
    if (!money && !percent) {
      if (lineStart && /^[.)]\s/.test(after)) continue;
      if (POSITION_BEFORE.test(before)) continue;
    }
    let kind: FigureKind;
    if (percent) kind = 'percent';
    else if (money) kind = 'money';
    else {
      const integer = read.decimals === 0 && !m[0].includes(',');
      if (integer && read.value >= 1900 && read.value <= 2100) continue;
      // A long run of digits with no grouping is an account, reference or transaction number.
      if (integer && m[0].length >= 9) continue;
      const word = /^\s+([\p{L}]+)/u.exec(after)?.[1]?.toLowerCase();
      if (word && integer && DURATION.has(word)) continue;
      if (word && integer && read.value < 1000 && !NOT_COUNTED.has(word) && !WORD_SCALES[word])
        kind = 'count';
      else if (read.value < 100 && read.decimals === 0) continue;
      else kind = 'number';
    }
    let unit = scale?.scale ?? 1;
    let precision = 0.5 * 10 ** -read.decimals;
    // Trailing zeros of a whole amount may be rounding ("₹1,20,000" for 1,17,634); of a percentage or a count only when hedged.
    if ((kind !== 'percent' && kind !== 'count') || hedged)
      precision = 0.5 * 10 ** read.trailingZeros * 10 ** -read.decimals;
    precision *= unit;
    let value = read.value * unit;
    // An amount in parts: "4 lakh 20 hazaar", "1 crore 20 lakh".
    for (let part = COMPOUND.exec(src.slice(end)); scale && part; part = COMPOUND.exec(src.slice(end))) {
      const next = scaleAfter(part[2]!);
      const read2 = readNumber(part[1]!);
      if (!next || !read2 || next.scale >= unit) break;
      unit = next.scale;
      value += read2.value * unit;
      precision = 0.5 * 10 ** read2.trailingZeros * 10 ** -read2.decimals * unit;
      end += part[0].length - part[2]!.length + next.length;
      skipUntil = end;
    }
    if (hedged) precision = Math.max(precision, 0.05 * value);
    found.push({ text: text.slice(from, end).trim(), value, precision, kind, index: start });
  }
  for (const m of src.matchAll(WORD_AMOUNT)) {
    const unit = WORD_UNITS[m[2]!.toLowerCase()]! + (m[1] ? 0.5 : 0);
    const scale = WORD_SCALES[m[3]!.toLowerCase()]!;
    const fractional = !Number.isInteger(unit);
    found.push({
      text: m[0],
      value: unit * scale,
      precision: (fractional ? 0.25 : 0.5 * 10 ** Math.floor(Math.log10(unit))) * scale,
      kind: 'money',
      index: m.index,
    });
  }
  return found.sort((a, b) => a.index - b.index);
}

/**
 * Every number a source text holds, in any format, for checking figures against: each as written
 * and, where a scale word follows, scaled ("12.35 lakh" gives 12.35 and 1235000). Nothing is left
 * out here: a date's digits in a source only make a source richer.
 */
export function numbersIn(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(NUMBER)) {
    const read = readNumber(m[0]);
    const values = read ? [read.value] : m[0].split(',').map(Number);
    for (const v of values) if (Number.isFinite(v)) out.push(v);
    const scale = read && scaleAfter(text.slice(m.index + m[0].length, m.index + m[0].length + 12));
    if (read && scale) out.push(read.value * scale.scale);
  }
  for (const m of text.matchAll(WORD_AMOUNT))
    out.push((WORD_UNITS[m[2]!.toLowerCase()]! + (m[1] ? 0.5 : 0)) * WORD_SCALES[m[3]!.toLowerCase()]!);
  return out;
}
