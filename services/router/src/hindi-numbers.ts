import { SAADE_WORDS as SAADE, NUMBER_SCALES as SCALES, NUMBER_WORDS as UNITS } from '@munim/finance';
import { normalize } from './text.ts';

/** A number read off a text, where it starts and ends (in words of the normalised text). */
export interface ParsedNumber {
  value: number;
  text: string;
}

/**
 * Above this a figure is no amount a ledger holds to the paisa (an account number, a run of digits):
 * left unread rather than passed on rounded or as Infinity, which JSON would carry as null.
 */
const MAX_AMOUNT = Number.MAX_SAFE_INTEGER / 100;

const isNumeric = (w: string) => /^\d+(\.\d+)?$/.test(w);

/**
 * Every amount written with Hindi (or English) number words, digits or a mix, in order:
 * "das hazaar" → 10000, "dedh crore" → 15000000, "2.5 lakh" → 250000, "saade teen sau" → 350.
 * Plain digits without a scale word are returned too ("5000" → 5000).
 */
export function parseHindiNumbers(input: string): ParsedNumber[] {
  const words = normalize(input)
    .replace(/(\d)(k|cr|lakh|lac|crore|hazaar|hazar)\b/g, '$1 $2')
    .split(' ');
  const found: ParsedNumber[] = [];
  let i = 0;
  while (i < words.length) {
    const start = i;
    let total = 0;
    let current = 0;
    let seen = false;
    let saade = false;
    while (i < words.length) {
      const w = words[i] as string;
      if (SAADE.has(w) && !seen) {
        saade = true;
        i++;
        continue;
      }
      // "do" is also an everyday verb ("kar do"): only a number when a scale word follows.
      if (w === 'do' && !(SCALES[words[i + 1] ?? ''] !== undefined)) break;
      const unit = isNumeric(w) ? Number(w) : UNITS[w];
      if (unit !== undefined && current === 0) {
        current = saade ? unit + 0.5 : unit;
        saade = false;
        seen = true;
        i++;
        continue;
      }
      const scale = SCALES[w];
      if (scale !== undefined && seen) {
        if (scale === 100) {
          current = (current || 1) * scale;
        } else {
          total += (current || 1) * scale;
          current = 0;
        }
        i++;
        continue;
      }
      break;
    }
    if (seen) {
      const value = Math.round((total + current) * 100) / 100;
      // A lone small number word ("ek", "do") is more often an article than an amount.
      const lone = i - start === 1 && !isNumeric(words[start] as string);
      if (value > 0 && value <= MAX_AMOUNT && !lone)
        found.push({ value, text: words.slice(start, i).join(' ') });
    }
    if (i === start) i++;
  }
  return found;
}

/** The first amount in a text, or undefined. */
export function parseAmount(input: string): number | undefined {
  return parseHindiNumbers(input)[0]?.value;
}
