/**
 * A party named in a question matched to the names in the books by meaning: case, punctuation,
 * "&"/"and", legal suffixes ("Pvt Ltd", "Private Limited", "LLP") aside, or a unique prefix of a
 * name. None or several is said so, never widened to everyone.
 */

const SUFFIX =
  /\b(private limited|pvt\.? ltd\.?|pvt|private|limited|ltd|llp|llc|inc|incorporated|plc|corporation|corp|company|co)\b/g;

/** A name with its punctuation and case aside, legal words kept: to find a near spelling. */
const loose = (name: string) =>
  name
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** A name as compared: lower case, "&" as "and", no punctuation, no legal suffix, no "M/s". */
export function partyWords(name: string): string {
  return name
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/^\s*(m\/s\.?|messrs\.?|the)\s+/, '')
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(SUFFIX, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const keep = row[j] as number;
      row[j] = Math.min(
        (row[j] as number) + 1,
        (row[j - 1] as number) + 1,
        prev + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      prev = keep;
    }
  }
  return row[b.length] as number;
}

/** The outcome of matching: the one name meant, several it could be, or none (with near names). */
export type PartyMatch =
  | { kind: 'one'; name: string }
  | { kind: 'several'; names: string[] }
  | { kind: 'none'; near: string[] };

/** Which of `names` (the books' spellings) the asked party is. */
export function matchParty(asked: string, names: readonly string[]): PartyMatch {
  const want = partyWords(asked);
  const unique = [...new Map(names.map((n) => [partyWords(n), n.trim()])).entries()];
  if (want === '') return { kind: 'none', near: [] };
  const exact = unique.filter(([w]) => w === want);
  if (exact.length === 1) return { kind: 'one', name: exact[0]?.[1] as string };
  if (exact.length > 1) return { kind: 'several', names: exact.map(([, n]) => n).sort() };
  // A name's first words ("Reddy" of Reddy Builders), else its first letters ("Pat" of Patel).
  let prefixed = unique.filter(([w]) => w.startsWith(`${want} `));
  if (prefixed.length === 0 && want.length >= 3) prefixed = unique.filter(([w]) => w.startsWith(want));
  if (prefixed.length === 1) return { kind: 'one', name: prefixed[0]?.[1] as string };
  if (prefixed.length > 1) return { kind: 'several', names: prefixed.map(([, n]) => n).sort() };
  const askedLoose = loose(asked);
  const near = unique
    .map(([w, n]) => ({ n, d: Math.min(distance(want, w), distance(askedLoose, loose(n))) }))
    .filter((x) => x.d <= Math.max(1, Math.floor(askedLoose.length / 4)))
    .sort((a, b) => a.d - b.d || a.n.localeCompare(b.n))
    .map((x) => x.n);
  return { kind: 'none', near: near.slice(0, 3) };
}
