/**
 * Grounded figures: every figure a model's answer states is checked against the facts and tool
 * results of its turn, and against what a correct answer may derive from them (a list's total, a
 * difference, a percentage change, a margin, a count). Sources are untrusted input: what is read of
 * them and derived from them is bounded (see `source-figures.ts`).
 */
import { extractFigures, type Figure } from './figures.ts';
import { poolOf } from './source-figures.ts';

export type { Figure } from './figures.ts';

/** The words that open the warning line, to know an answer that carries one. */
export const UNVERIFIED_WARNING = 'I could not verify these figures against your books';

/**
 * Whether a figure may be a truncation rather than a rounding: one stated with decimals to three
 * significant digits or more ("₹1.17 lakh" for 1,17,634), or in parts, where cutting off is as common as rounding.
 */
function truncates(f: Figure): boolean {
  // An amount in parts ("3 lakh 53 hazaar" for 3,53,634) is said cut off more often than rounded.
  if (f.kind === 'money' && (f.text.match(/\d+/g)?.length ?? 0) > 1 && !/[,.]\d/.test(f.text)) return true;
  const digits = /\d[\d,]*\.\d+/.exec(f.text)?.[0].replace(/[,.]/g, '').replace(/^0+/, '');
  return digits !== undefined && digits.length >= 3;
}

/**
 * Whether a sorted list holds a value `f` may be a rounding of, to its precision, or, stated with
 * decimals ("₹1.17 lakh" for 1,17,634), a truncation; a count only a whole number.
 */
function holds(sorted: Float64Array, f: Figure, scale = 1): boolean {
  const value = f.value * scale;
  const precision = f.precision * scale;
  const whole = f.kind === 'count';
  const eps = 1e-9 * Math.max(1, value);
  const low = value - precision - eps;
  const high = value + (truncates(f) ? 2 : 1) * precision + eps;
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < low) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < sorted.length && sorted[i]! <= high; i++) {
    if (!whole || Math.abs(sorted[i]! - Math.round(sorted[i]!)) < 1e-6) return true;
  }
  return false;
}

/** An answer that speaks of a month's worth ("₹30,000 a month") may divide a year's figure by twelve. */
const MONTHLY =
  /\b(?:a|per|each|every|har)\s+(?:month|mahin[ae]|mahina)\b|\bmonthly\b|\/\s?(?:month|mo)\b|\bmahin[ae]\s+ka\b/i;

/** Fenced blocks (params, clarification, card) are structured data the validator checks, not prose. */
const blanked = (answer: string) => answer.replace(/```[\s\S]*?(```|$)/g, (m) => ' '.repeat(m.length));

/**
 * The figures of `answer` that neither a source nor a figure derived from the sources backs.
 * `sources` are the turn's tool results and facts, any JSON (numbers and numeric strings in any
 * format, free text, JSON held in strings).
 */
export function checkGrounding(answer: string, sources: readonly unknown[]): { unverified: Figure[] } {
  const figures = extractFigures(blanked(answer));
  if (figures.length === 0) return { unverified: [] };
  const { amounts, percents, counts } = poolOf(sources, MONTHLY.test(answer));
  const unverified = figures.filter((f) => {
    if (f.kind === 'percent') return !holds(percents, f);
    if (f.kind === 'count') return !holds(counts, f);
    if (holds(amounts, f)) return false;
    // A bare decimal may be a ratio ("current ratio 1.85").
    return !(f.kind === 'number' && f.value < 100 && holds(percents, f, 100));
  });
  return { unverified };
}

/** The line an answer with unverified figures ends with, naming them as written. */
export function unverifiedWarning(figures: readonly Figure[]): string {
  const named = [...new Set(figures.map((f) => f.text))];
  const shown = named.slice(0, 5).join(', ');
  const more = named.length > 5 ? ` and ${named.length - 5} more` : '';
  return `⚠️ ${UNVERIFIED_WARNING}: ${shown}${more}.`;
}

/** `answer` as the user sees it: unchanged, or with the warning line when figures are unverified. */
export function groundAnswer(
  answer: string,
  sources: readonly unknown[],
): { text: string; unverified: Figure[] } {
  const { unverified } = checkGrounding(answer, sources);
  if (unverified.length === 0) return { text: answer, unverified };
  return { text: `${answer.trimEnd()}\n\n${unverifiedWarning(unverified)}`, unverified };
}
