import {
  cells,
  hasUuid,
  isRow,
  rowText,
  SOFTENED,
  softenTechnical,
  stripUuids,
  TECHNICAL_STARTS,
  technicalAt,
} from './output-guard.ts';
import { Claims } from './stream-claims.ts';

/** Most text held back while streaming goes on: a table row, a `params`/`clarification` block. */
const MAX_HELD = 4096;
const UUID_LENGTH = 36;
const CARD = '```card';
/** Blocks the validator checks before the user sees them (a `card` block is dropped whatever it holds). */
const CHECKED = /```(?:params|clarification)[ \t]*\r?\n/;
const CHECKED_KINDS = ['params', 'clarification'];
const LONGEST_START = Math.max(...TECHNICAL_STARTS.map((t) => t.length));

/** Whether `tail`, from a backtick to the end, may still become the opening of a card or a checked block. */
function mayOpen(tail: string): boolean {
  if (tail.length < 3) return /^`+$/.test(tail);
  if (!tail.startsWith('```')) return false;
  const rest = tail.slice(3);
  return (
    'card'.startsWith(rest) ||
    CHECKED_KINDS.some(
      (kind) =>
        kind.startsWith(rest) || (rest.startsWith(kind) && /^[ \t]*\r?$/.test(rest.slice(kind.length))),
    )
  );
}

function parses(json: string): boolean {
  try {
    JSON.parse(json);
    return true;
  } catch {
    return false;
  }
}

/**
 * Card blocks dropped; checked blocks held until closed, then passed if their JSON parses. A block
 * the validator will repair (or a longer one) stops the stream: the rest waits for the final check.
 */
class Blocks {
  #mode: 'text' | 'drop' | 'check' | 'stop' = 'text';
  #held = '';

  push(delta: string): string {
    if (this.#mode === 'stop') return '';
    let text = this.#held + delta;
    let out = '';
    this.#held = '';
    for (;;) {
      if (this.#mode === 'drop') {
        const end = text.indexOf('```');
        if (end < 0) {
          this.#held = text.slice(-2);
          return out;
        }
        text = text.slice(end + 3);
        this.#mode = 'text';
        continue;
      }
      if (this.#mode === 'check') {
        const body = CHECKED.exec(text)?.[0].length ?? 0;
        const end = text.indexOf('```', body);
        if (end < 0 && text.length <= MAX_HELD) {
          this.#held = text;
          return out;
        }
        if (end < 0 || !parses(text.slice(body, end))) {
          this.#mode = 'stop';
          return out;
        }
        out += text.slice(0, end + 3);
        text = text.slice(end + 3);
        this.#mode = 'text';
        continue;
      }
      const card = text.indexOf(CARD);
      const checked = CHECKED.exec(text)?.index ?? -1;
      if (card >= 0 && (checked < 0 || card < checked)) {
        out += text.slice(0, card);
        text = text.slice(card + CARD.length);
        this.#mode = 'drop';
        continue;
      }
      if (checked >= 0) {
        out += text.slice(0, checked);
        text = text.slice(checked);
        this.#mode = 'check';
        continue;
      }
      let hold = text.length;
      for (let i = Math.max(0, text.length - 24); i < text.length; i++) {
        if (text[i] === '`' && mayOpen(text.slice(i))) {
          hold = i;
          break;
        }
      }
      this.#held = text.slice(hold);
      return out + text.slice(0, hold);
    }
  }
}

const isWordChar = (ch: string | undefined) => ch !== undefined && /\w/.test(ch);

/** Where the run of characters matching `char` that ends `text` starts. */
function trailing(text: string, char: RegExp): number {
  let i = text.length;
  while (i > 0 && char.test(text[i - 1] ?? '')) i--;
  return i;
}

/** Leading and trailing whitespace trimmed, runs of blank lines collapsed, as `stripCardBlocks` does. */
class Spacing {
  #started = false;
  #held = '';

  /** Whitespace follows what went out: its last word is complete. */
  get held(): boolean {
    return this.#held !== '';
  }

  push(delta: string): string {
    let text = this.#held + delta;
    if (!this.#started) {
      text = text.trimStart();
      this.#started = text !== '';
    }
    const end = trailing(text, /\s/);
    this.#held = text.slice(end);
    return text.slice(0, end).replace(/\n{3,}/g, '\n\n');
  }
}

/** Whether `text` (lower case) may still grow into a technical phrase; `ended`: no letter follows it. */
function startsTechnical(text: string, ended: boolean): boolean {
  return TECHNICAL_STARTS.some(
    (t) =>
      (text.length < t.length || (text.length === t.length && !ended)) &&
      [...text].every((ch, k) => (t[k] === '#' ? /\d/.test(ch) : t[k] === ch)),
  );
}

/** A beginning of an id: 8-4-4-4-12 hex digits, cut anywhere (whole, it waits for the character after it). */
const UUID_START =
  /^(?:[0-9a-f]{1,8}|[0-9a-f]{8}-[0-9a-f]{0,4}|(?:[0-9a-f]{8}-)(?:[0-9a-f]{4}-){1,2}[0-9a-f]{0,4}|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{0,12})$/i;

/**
 * How much of `text`, the unsent rest of a line, can go now; `ended`: whitespace follows it,
 * `before`: the character before it on its line.
 */
function safeEnd(text: string, ended: boolean, before: string | undefined): number {
  const prev = (i: number) => (i === 0 ? before : text[i - 1]);
  const settled = ended ? text.length : trailing(text, /[\w-]/);
  // A phrase already whole is softened from where it starts, with the rest of its line.
  if (technicalAt((isWordChar(before) ? '_' : '') + text.slice(0, settled)) >= 0) return text.length;
  // An id may be growing in the last word: from its start, or after a hyphen in it.
  let end = text.length;
  for (let p = Math.max(settled, text.length - UUID_LENGTH); p < text.length; p++) {
    if ((p === settled || prev(p) === '-') && !isWordChar(prev(p)) && UUID_START.test(text.slice(p))) {
      end = p;
      break;
    }
  }
  // And so may a technical phrase.
  for (let i = Math.max(0, text.length - LONGEST_START); i < end; i++) {
    if (isWordChar(text[i]) && !isWordChar(prev(i)) && startsTechnical(text.slice(i).toLowerCase(), ended))
      return i;
  }
  return end;
}

const isSeparator = (row: string[]) => row.every((cell) => /^:?-+:?$/.test(cell));

/** Ids, tables and technical phrases, line by line, as `stripIds` and `softenTechnical` treat them. */
class Lines {
  #line = '';
  /** How much of the current line went out. */
  #done = 0;
  /** A technical phrase was softened: the rest of its line is not shown. */
  #softened = false;
  /** Rows of the current table not sent yet: its header waits for a data row to show which columns hold ids. */
  #rows: string[][] = [];
  #table: { width: number; keep: number[]; dropped: Set<number> } | undefined;
  diverged = false;

  /** `ended`: whitespace follows `text`. */
  push(text: string, ended: boolean): string {
    if (this.diverged) return '';
    let out = '';
    this.#line += text;
    for (let nl = this.#line.indexOf('\n'); nl >= 0; nl = this.#line.indexOf('\n')) {
      out += this.#complete(this.#line.slice(0, nl));
      if (this.diverged) return out;
      this.#line = this.#line.slice(nl + 1);
      this.#done = 0;
      this.#softened = false;
    }
    return out + this.#partial(ended);
  }

  #complete(line: string): string {
    if (!isRow(line))
      return `${this.#endTable()}${this.#prose(line.slice(this.#done), line[this.#done - 1])}\n`;
    if (this.#done > 0) {
      this.diverged = true;
      return '';
    }
    const row = cells(line);
    const table = this.#table;
    if (!table) {
      this.#rows.push(row);
      return this.#rows.length > 1 && !isSeparator(row) ? this.#endTable(true) : '';
    }
    const ids = row.flatMap((cell, i) => (hasUuid(cell) ? [i] : []));
    // A row that widens the table or puts an id in a column already shown changes rows already sent.
    if (row.length > table.width || ids.some((i) => !table.dropped.has(i))) {
      this.diverged = true;
      return '';
    }
    return `${softenTechnical(rowText(row, table.keep))}\n`;
  }

  /** Sends the rows held, and keeps the table open for more rows when `open`. */
  #endTable(open = false): string {
    const rows = this.#rows;
    this.#rows = [];
    this.#table = undefined;
    if (rows.length === 0) return '';
    const width = Math.max(...rows.map((r) => r.length));
    const dropped = new Set(rows.flatMap((r) => r.flatMap((cell, i) => (hasUuid(cell) ? [i] : []))));
    const keep = [...Array(width).keys()].filter((c) => !dropped.has(c));
    if (open) this.#table = { width, keep, dropped };
    return rows.map((r) => `${softenTechnical(rowText(r, keep))}\n`).join('');
  }

  #partial(ended: boolean): string {
    // A line that may be a table row goes out whole, as the table will show it.
    if (this.#done === 0 && /^\s*\|/.test(this.#line) && this.#line.length <= MAX_HELD) return '';
    const table = this.#done === 0 ? this.#endTable() : '';
    const rest = this.#line.slice(this.#done);
    const before = this.#line[this.#done - 1];
    const end = safeEnd(rest, ended, before);
    this.#done += end;
    return table + this.#prose(rest.slice(0, end), before);
  }

  /** `before`: the character before `text` on its line. */
  #prose(text: string, before: string | undefined): string {
    if (this.#softened) return '';
    // Where a word goes on from what went out, no id or phrase starts: `_` keeps them joined.
    const glue = isWordChar(before) ? '_' : '';
    const clean = stripUuids(glue + text);
    const at = technicalAt(clean);
    if (at < 0) return clean.slice(glue.length);
    this.#softened = true;
    return (clean.slice(0, at) + SOFTENED).slice(glue.length);
  }
}

/**
 * The output guardrails (`guardOutput`) on a stream: `push` each delta, send what it returns. A
 * tail is held back until it is certain no id, card block or technical phrase starts in it, so
 * none is ever sent, not even in part; what goes out is a prefix of the guarded whole text, unless
 * a later part changes an earlier one (a table gaining an id column): then streaming stops and the
 * final check replaces the answer.
 */
export class StreamGuard {
  readonly #blocks = new Blocks();
  readonly #spacing = new Spacing();
  readonly #lines = new Lines();
  readonly #claims: Claims | undefined;

  /** `holds`: whether a sentence is one the final check would change (the reverse guardrails). */
  constructor(holds?: (sentence: string) => boolean) {
    this.#claims = holds ? new Claims(holds) : undefined;
  }

  push(delta: string): string {
    const spaced = this.#spacing.push(this.#blocks.push(delta));
    const text = this.#lines.push(spaced, this.#spacing.held);
    return this.#claims && text ? this.#claims.push(text) : text;
  }
}
