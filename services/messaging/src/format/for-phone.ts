import { render } from './render.ts';
import { pack } from './split.ts';
import type { PhoneDocument } from './table.ts';

export type { PhoneDocument } from './table.ts';

/** An answer as WhatsApp messages: texts sent in order, then the document if there is one. */
export interface PhoneAnswer {
  texts: string[];
  document?: PhoneDocument;
}

export interface PhoneOptions {
  /** Most UTF-16 code units in one text (WhatsApp Cloud API: 4096). */
  maxChars?: number;
  /** Most rows of a table shown in the chat. */
  maxRows?: number;
  /** Rows at which a table also goes out whole as a CSV document. */
  documentRows?: number;
}

function whole(name: string, value: number, min: number): number {
  if (!(Number.isInteger(value) || value === Number.POSITIVE_INFINITY) || value < min)
    throw new RangeError(`${name} must be an integer of at least ${min}, not ${value}`);
  return value;
}

/**
 * The agent's final answer (markdown, as in `complete.response`) as a phone shows it: WhatsApp
 * formatting, no markdown syntax, UI blocks (```card and the like) dropped, tables as short lists
 * of rows — a long one also as a CSV document — figures exactly as written, cut into texts of at
 * most `maxChars`. An answer with nothing to show gives no texts.
 */
export function forPhone(markdown: string, opts: PhoneOptions = {}): PhoneAnswer {
  const maxChars = whole('maxChars', opts.maxChars ?? 4096, 2);
  const maxRows = whole('maxRows', opts.maxRows ?? 10, 0);
  const documentRows = whole('documentRows', opts.documentRows ?? 25, 1);
  const { blocks, document } = render(markdown, { maxChars, maxRows, documentRows });
  const texts = pack(blocks, maxChars);
  return document ? { texts, document } : { texts };
}
