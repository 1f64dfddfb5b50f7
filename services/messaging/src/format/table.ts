import { stringify } from 'csv-stringify/sync';
import type { Tokens } from 'marked';
import { inline } from './inline.ts';

/** A table sent as a file beside the chat: every row, as a spreadsheet opens it. */
export interface PhoneDocument {
  filename: string;
  mimeType: 'text/csv';
  content: string;
  caption: string;
}

interface TableOptions {
  maxRows: number;
  /** The table also goes out whole as `document` (when no other table took the attachment). */
  attach: boolean;
  /** The nearest heading above the table: the file's name and caption. */
  title: string | undefined;
}

/** A cell on one line, without markers (a label, a header, a CSV field). */
const plainCell = (cell: Tokens.TableCell) => oneLine(inline(cell.tokens, { plain: true }));
const shownCell = (cell: Tokens.TableCell) => oneLine(inline(cell.tokens));
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

/** A row as one line: its first cell the label, in bold, then "Header: value" for each filled cell. */
function rowLine(row: Tokens.TableCell[], head: string[]): string {
  const [first, ...rest] = row;
  const label = first ? plainCell(first) : '';
  const parts = label ? [`*${label}*`] : [];
  rest.forEach((cell, i) => {
    const value = shownCell(cell);
    if (!value) return;
    const name = head[i + 1] ?? '';
    parts.push(name ? `${name}: ${value}` : value);
  });
  return parts.join(' · ');
}

/** A last row whose label is wholly bold (a total, net profit) is kept in view when rows are cut. */
function isSummary(row: Tokens.TableCell[] | undefined): boolean {
  const tokens = row?.[0]?.tokens.filter((t) => !(t.type === 'text' && t.raw.trim() === '')) ?? [];
  return tokens.length === 1 && tokens[0]?.type === 'strong';
}

const rowsWord = (n: number) => `${n} ${n === 1 ? 'row' : 'rows'}`;

/** "Aged receivables" → "aged-receivables"; letters outside ASCII have no safe spelling in every phone's files. */
function slug(title: string | undefined): string {
  return (title ?? '')
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
}

/** A spreadsheet runs a cell that starts like a formula; a figure such as -₹5,000.00 is left as written. */
function safeField(text: string): string {
  if (/^[=+@\t\r]/.test(text)) return `'${text}`;
  if (text.startsWith('-') && !/^-\s?[₹$€£]?\s?[\d,]*\.?\d+%?$/.test(text)) return `'${text}`;
  return text;
}

function csvOf(table: Tokens.Table, title: string | undefined): PhoneDocument {
  const records = [table.header, ...table.rows].map((row) => row.map((c) => safeField(plainCell(c))));
  const name = slug(title) || 'list';
  return {
    filename: `${name}.csv`,
    mimeType: 'text/csv',
    // The byte-order mark makes Excel read the file as UTF-8 (₹, Devanagari).
    content: stringify(records, { bom: true }),
    caption: `${title ?? 'The full list'} (${rowsWord(table.rows.length)})`,
  };
}

/**
 * A markdown table as lines a phone can read: one line per row, at most `maxRows`, then how many
 * more there are (and that the whole list is attached, when it is), then a summary row if cut off.
 */
export function tableForPhone(
  table: Tokens.Table,
  opts: TableOptions,
): { lines: string[]; document?: PhoneDocument } {
  const head = table.header.map(plainCell);
  const rows = table.rows;
  const summary = rows.length > opts.maxRows && isSummary(rows.at(-1)) ? rows.at(-1) : undefined;
  const shown = rows.slice(0, Math.min(opts.maxRows, rows.length - (summary ? 1 : 0)));
  const hidden = rows.length - shown.length - (summary ? 1 : 0);
  const lines = shown.map((row) => rowLine(row, head)).filter(Boolean);
  const notes = [
    ...(hidden > 0 ? [`…and ${hidden} more.`] : []),
    ...(opts.attach ? [`The full list of ${rowsWord(rows.length)} is attached as a CSV file.`] : []),
  ];
  if (notes.length > 0) lines.push(notes.join(' '));
  if (summary) lines.push(rowLine(summary, head));
  if (rows.length === 0 && head.some(Boolean)) lines.push(head.filter(Boolean).join(' · '));
  return opts.attach ? { lines, document: csvOf(table, opts.title) } : { lines };
}
