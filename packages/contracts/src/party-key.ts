/**
 * A party's name as books compare it: without case, punctuation, a leading "M/s", "&" against
 * "and", initials written apart, or how "Private Limited" is written ("Pvt. Ltd.", "Pvt Ltd",
 * "Private Limited" alike).
 */
export function partyKey(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/\bm\/s\.?\s*/g, '')
      .replace(/&/g, ' and ')
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .replace(/\bprivate\b/g, 'pvt')
      .replace(/\blimited\b/g, 'ltd')
      .replace(/\bcompany\b/g, 'co')
      .replace(/\bincorporated\b/g, 'inc')
      .replace(/\bcorporation\b/g, 'corp')
      .replace(/\s+/g, ' ')
      .trim()
      // Initials written apart are one word: "L.L.P." is "llp", "A B Traders" is "ab traders".
      .replace(/\b\p{L}(?: \p{L}\b)+/gu, (initials) => initials.replace(/ /g, ''))
  );
}

/** Words of a business's legal form, which one record writes and another leaves out. */
const LEGAL_FORM = new Set(['pvt', 'ltd', 'llp', 'llc', 'inc', 'co', 'corp', 'plc', 'opc', 'gmbh', 'the']);

/**
 * A party's name without its legal form as well: "Acme Corp", "ACME Corporation" and "Acme Corp
 * Pvt. Ltd." are one business, the name a duplicate check compares. A name that is nothing but
 * such words keeps them.
 */
export function partyCore(text: string): string {
  const words = partyKey(text).split(' ');
  let [start, end] = [0, words.length];
  while (start < end && LEGAL_FORM.has(words[start] ?? '')) start += 1;
  while (end > start && LEGAL_FORM.has(words[end - 1] ?? '')) end -= 1;
  return start < end ? words.slice(start, end).join(' ') : words.join(' ');
}
