import { abbreviated } from './claims.ts';
import { isRow } from './output-guard.ts';

/** Where the first sentence of `text` ends (a line end, or `.`, `!`, `?`, `।` before a space), or -1. */
function sentenceEnd(text: string, wholeLine: boolean): number {
  const nl = text.indexOf('\n');
  if (wholeLine) return nl < 0 ? -1 : nl + 1;
  for (const m of text.matchAll(/[.!?।](?=\s)/g)) {
    if (nl >= 0 && m.index > nl) break;
    if (!abbreviated(text.slice(0, m.index + 1))) return m.index + 1;
  }
  return nl < 0 ? -1 : nl + 1;
}

/**
 * Sentences `holds` says the final check would take back are not sent: the one being written
 * waits while it reads as one, and once a whole sentence does, streaming stops.
 */
export class Claims {
  #sentence = '';
  /** How much of the current sentence went out. */
  #sent = 0;
  #atLineStart = true;
  #inFence = false;
  blocked = false;
  readonly #holds: (sentence: string) => boolean;

  constructor(holds: (sentence: string) => boolean) {
    this.#holds = holds;
  }

  /** Code goes out unchecked line by line; a table row is a line, not sentences. */
  #kind(): 'code' | 'line' | 'prose' {
    if (this.#inFence || (this.#atLineStart && /^\s*```/.test(this.#sentence))) return 'code';
    return this.#atLineStart && /^\s*\|/.test(this.#sentence) ? 'line' : 'prose';
  }

  push(text: string): string {
    if (this.blocked) return '';
    this.#sentence += text;
    let out = '';
    for (;;) {
      const kind = this.#kind();
      const end = sentenceEnd(this.#sentence, kind !== 'prose');
      if (end < 0) break;
      const sentence = this.#sentence.slice(0, end);
      if ((kind === 'prose' || (kind === 'line' && !isRow(sentence))) && this.#holds(sentence)) {
        this.blocked = true;
        return out;
      }
      if (this.#atLineStart && /^\s*```/.test(sentence)) this.#inFence = !this.#inFence;
      out += sentence.slice(this.#sent);
      this.#atLineStart = sentence.endsWith('\n');
      this.#sentence = this.#sentence.slice(end);
      this.#sent = 0;
    }
    if (this.#kind() === 'code' || !this.#holds(this.#sentence)) {
      out += this.#sentence.slice(this.#sent);
      this.#sent = this.#sentence.length;
    }
    return out;
  }
}
