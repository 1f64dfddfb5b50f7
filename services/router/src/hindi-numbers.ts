import { normalize } from './text.ts';

/** Romanised (and a few Devanagari) Hindi number words and their values. */
const UNITS: Readonly<Record<string, number>> = {
  ek: 1,
  do: 2,
  teen: 3,
  tin: 3,
  char: 4,
  chaar: 4,
  paanch: 5,
  panch: 5,
  paanc: 5,
  chhe: 6,
  chhah: 6,
  che: 6,
  saat: 7,
  sat: 7,
  aath: 8,
  ath: 8,
  nau: 9,
  das: 10,
  dus: 10,
  gyarah: 11,
  barah: 12,
  baarah: 12,
  terah: 13,
  chaudah: 14,
  pandrah: 15,
  solah: 16,
  satrah: 17,
  atharah: 18,
  unnis: 19,
  bees: 20,
  bis: 20,
  pachchis: 25,
  pachees: 25,
  tees: 30,
  chalis: 40,
  chaalis: 40,
  pachaas: 50,
  pachas: 50,
  saath: 60,
  sattar: 70,
  assi: 80,
  nabbe: 90,
  nabbey: 90,
  // fractions that multiply the next scale word: "dedh lakh" = 1.5 lakh
  dedh: 1.5,
  derh: 1.5,
  dhai: 2.5,
  dhaai: 2.5,
  sava: 1.25,
  savaa: 1.25,
  paune: 0.75,
  // English words users mix in
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  twenty: 20,
  fifty: 50,
  एक: 1,
  दो: 2,
  तीन: 3,
  चार: 4,
  पांच: 5,
  पाँच: 5,
  छह: 6,
  सात: 7,
  आठ: 8,
  नौ: 9,
  दस: 10,
  डेढ़: 1.5,
  ढाई: 2.5,
};

const SCALES: Readonly<Record<string, number>> = {
  sau: 100,
  so: 100,
  hundred: 100,
  सौ: 100,
  hazaar: 1_000,
  hazar: 1_000,
  hajar: 1_000,
  hajaar: 1_000,
  thousand: 1_000,
  k: 1_000,
  हज़ार: 1_000,
  हजार: 1_000,
  lakh: 100_000,
  lac: 100_000,
  lakhs: 100_000,
  laakh: 100_000,
  lacs: 100_000,
  लाख: 100_000,
  crore: 10_000_000,
  crores: 10_000_000,
  cr: 10_000_000,
  karod: 10_000_000,
  karor: 10_000_000,
  करोड़: 10_000_000,
};

/** "Half" and "quarter" words of the form "saade" (+0.5) before a number. */
const SAADE = new Set(['saade', 'sade', 'saadhe', 'sadhe', 'साढ़े']);

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
