/** Output guardrails: what the user sees of an answer (no ids, no card blocks, no technical words). */

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const CARD_BLOCK = /```card[\s\S]*?(```|$)/g;
const TECHNICAL_TERMS = [
  'stack trace',
  'traceback',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'ENOTFOUND',
  'TypeError',
  'ReferenceError',
  'undefined is not',
];
const TECHNICAL = [
  new RegExp(String.raw`\b(${TECHNICAL_TERMS.join('|')})\b[^\n]*`, 'gi'),
  /\b(HTTP|status code) [45]\d\d\b[^\n]*/gi,
];
/** What a softened technical phrase may start with, lower case, `#` a digit: a stream must not cut one. */
export const TECHNICAL_STARTS = [
  ...TECHNICAL_TERMS.map((t) => t.toLowerCase()),
  ...['http', 'status code'].flatMap((w) => [`${w} 4##`, `${w} 5##`]),
];
export const SOFTENED = "I couldn't complete that part right now.";

/** Drops every markdown-table column whose cells hold a UUID, then any UUID left in the text. */
export function stripIds(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    if (!isRow(lines[i])) {
      out.push((lines[i] ?? '').replace(UUID, ''));
      i++;
      continue;
    }
    const block: string[][] = [];
    while (i < lines.length && isRow(lines[i])) block.push(cells(lines[i++] ?? ''));
    const width = Math.max(...block.map((r) => r.length));
    const keep = [...Array(width).keys()].filter(
      (c) => !block.some((r) => UUID.test(r[c] ?? '') && resetUuid()),
    );
    for (const row of block) out.push(rowText(row, keep));
  }
  return out.join('\n');
}

/** A table row as the user sees it: the kept columns, ids removed. */
export function rowText(row: string[], keep: number[]): string {
  return `| ${keep.map((c) => stripUuids(row[c] ?? '')).join(' | ')} |`;
}

export const stripUuids = (text: string) => text.replace(UUID, '');

export function hasUuid(text: string): boolean {
  UUID.lastIndex = 0;
  const found = UUID.test(text);
  UUID.lastIndex = 0;
  return found;
}

function resetUuid(): true {
  UUID.lastIndex = 0;
  return true;
}

export function isRow(line: string | undefined): boolean {
  return !!line && /^\s*\|.*\|\s*$/.test(line);
}

export function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());
}

export function stripCardBlocks(text: string): string {
  return text
    .replace(CARD_BLOCK, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function softenTechnical(text: string): string {
  let out = text;
  for (const re of TECHNICAL) out = out.replace(re, SOFTENED);
  return out;
}

/** Where the first technical phrase starts (it runs to the end of its line), or -1. */
export function technicalAt(text: string): number {
  const at = TECHNICAL.map((re) => text.search(re)).filter((i) => i >= 0);
  return at.length > 0 ? Math.min(...at) : -1;
}

/** All output guardrails, in order; what the user sees. */
export function guardOutput(text: string): string {
  return softenTechnical(stripIds(stripCardBlocks(text)));
}
