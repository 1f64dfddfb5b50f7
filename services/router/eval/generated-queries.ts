import { MAX_QUERY_LENGTH } from '@munim/contracts';

/** A deterministic generator (mulberry32), so a failing query can be found again from its index. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DIGIT_ZEROS = [0x30, 0x966, 0x660, 0x6f0, 0x9e6, 0xa66, 0xbe6, 0xff10, 0x1d7ce];
const WORDS = [
  'show',
  'invoices',
  'overdue',
  'bills',
  'payment',
  'please',
  'can you',
  'void',
  'approve',
  'kar do',
  'dikhao',
  'lakh',
  'crore',
  'hazaar',
  'saade',
  'das',
  'do',
  'ek',
  'sau',
  'rs',
  'of Tata',
  'from',
  'profit and loss',
  'balance shet',
  'yes',
  'haan',
  'बिल',
  'दिखाओ',
  'भुगतान',
  'करो',
  'लाख',
  'और',
  'مرحبا',
  '請求書',
  '😀',
];
const SEPARATORS = [
  ' ',
  ' ',
  ' ',
  ',',
  '.',
  '-',
  '/',
  '₹',
  '&',
  '\n',
  '\t',
  '\u00a0',
  '\u200d',
  '।',
  '!?',
  '...',
];

/** One query of a length drawn first, filled with pieces up to it. */
function generate(next: () => number): string {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
  const long = next() < 0.1;
  const target = long ? 1000 + Math.floor(next() * (MAX_QUERY_LENGTH - 1000)) : 1 + Math.floor(next() * 200);
  // A long query often repeats one shape (all digits, all separators), the inputs that found quadratic paths.
  const monotone = long && next() < 0.5 ? pick(['digits', 'separators', 'words']) : undefined;
  let out = '';
  while (out.length < target) {
    const kind = monotone ?? pick(['digits', 'separators', 'words', 'words', 'doc']);
    if (kind === 'digits') {
      const zero = pick(DIGIT_ZEROS);
      const n = 1 + Math.floor(next() * (monotone ? 3 : 12));
      for (let i = 0; i < n; i++) out += String.fromCodePoint(zero + Math.floor(next() * 10));
      out += pick(SEPARATORS);
    } else if (kind === 'separators') {
      out += pick(SEPARATORS);
      if (monotone && next() < 0.5) out += String.fromCodePoint(pick(DIGIT_ZEROS) + Math.floor(next() * 10));
    } else if (kind === 'doc') {
      out += `${pick(['INV', 'bill', 'PAY', 'CN'])}${pick(['-', '/', ' ', ''])}${Math.floor(next() * 1e6)} `;
    } else {
      out += `${pick(WORDS)}${pick(SEPARATORS)}`;
    }
  }
  return out.slice(0, target);
}

/**
 * `count` queries for the router's fuzz test and bench, the same for the same `seed`: words of several
 * scripts and languages, digits of any script, punctuation and separators, from a few characters up to
 * the gateway's limit. One in ten is long (1,000 characters or more); half of those repeat one shape
 * (all digits, all separators, all words), the inputs that found quadratic paths.
 */
export function generatedQueries(count: number, seed: number): string[] {
  const next = prng(seed);
  return Array.from({ length: count }, () => generate(next));
}
