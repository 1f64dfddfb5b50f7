/** Text normalisation shared by the classifier, the intent matcher, the tool selector and the cache key. */

const DIGIT = /\p{Nd}/gu;
const IS_DIGIT = /^\p{Nd}$/u;
/** Code point of a non-ASCII digit → its value, learnt once per digit so a query pays a lookup per digit. */
const DIGIT_VALUES = new Map<number, string>();

function digitValue(code: number): string {
  let value = DIGIT_VALUES.get(code);
  if (value === undefined) {
    // Every Unicode Nd block is 10 consecutive code points starting at a zero; some blocks adjoin.
    let zero = code;
    while (IS_DIGIT.test(String.fromCodePoint(zero - 1))) zero--;
    value = String((code - zero) % 10);
    DIGIT_VALUES.set(code, value);
  }
  return value;
}

/** Any Unicode decimal digit (Devanagari ०-९, Arabic-Indic, full-width …) as its ASCII digit. */
export function asciiDigits(text: string): string {
  return text.replace(DIGIT, (d) => {
    const code = d.codePointAt(0) ?? 48;
    return code <= 57 ? d : digitValue(code);
  });
}

/**
 * Lower case, NFKC, ASCII digits, punctuation to spaces (keeping `₹`, `&` and in-number
 * separators), a space between `₹` and its number, collapsed whitespace.
 */
export function normalize(text: string): string {
  return asciiDigits(text.normalize('NFKC'))
    .toLowerCase()
    .replace(/(\d),(?=\d)/g, '$1')
    .replace(/₹/g, ' ₹ ')
    .replace(/[^\p{L}\p{M}\p{N}₹&.\s]|(?<!\d)\.|\.(?!\d)/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Damerau–Levenshtein (optimal string alignment) distance, stopping early above `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push(new Array<number>(b.length + 1).fill(0));
  for (let i = 0; i <= a.length; i++) (rows[i] as number[])[0] = i;
  for (let j = 0; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const prev = rows[i - 1] as number[];
    let rowMin = Number.POSITIVE_INFINITY;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = v;
      rowMin = Math.min(rowMin, v);
    }
    if (rowMin > max) return max + 1;
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** How many typos a word of this length may carry and still count as the word. */
export function typoBudget(length: number): number {
  if (length < 4) return 0;
  if (length < 8) return 1;
  return 2;
}
