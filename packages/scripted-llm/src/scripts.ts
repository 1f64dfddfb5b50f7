import type { ChatContentPart, ChatMessage, ChatRequest, Script, TurnAnswer } from './types.ts';

/** The text of a message content: a string as-is, the `text` parts of an array joined by newlines. */
export function contentText(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is ChatContentPart & { text: string } => typeof part?.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

/** The text of the request's last `user`-role message ('' when there is none). */
export function lastUserText(req: ChatRequest): string {
  const messages = Array.isArray(req.messages) ? req.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === 'user') return contentText(message.content);
  }
  return '';
}

/** The names of the function tools offered in a request (none when it is absent). */
export function offeredToolNames(req: ChatRequest | undefined): string[] {
  return (req?.tools ?? []).flatMap((tool) => {
    const name = (tool as { function?: { name?: unknown } } | null)?.function?.name;
    return typeof name === 'string' ? [name] : [];
  });
}

/** string: case-insensitive substring; RegExp: `test` (from the start, even for /g regexes). */
export function textMatches(match: string | RegExp, text: string): boolean {
  if (typeof match === 'string') return text.toLowerCase().includes(match.toLowerCase());
  match.lastIndex = 0;
  return match.test(text);
}

/** What the script book decided for one request. */
export type Decision =
  | { kind: 'answer'; scriptName: string; turnIndex: number; answer: TurnAnswer }
  | { kind: 'fail'; scriptName?: string; turnIndex?: number; message: string; type: string };

interface Entry {
  script: Script;
  name: string;
  cursor: number;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Checks that a value is one of the TurnResult shapes; returns what is wrong, or undefined. */
export function turnProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'a turn must be an object';
  const turn = value as Record<string, unknown>;
  for (const key of ['delayMs', 'chunkDelayMs']) {
    const ms = turn[key];
    if (ms !== undefined && (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)) {
      return `${key} must be a non-negative number`;
    }
  }
  if ('error' in turn) {
    const error = turn.error as Record<string, unknown> | null;
    if (typeof error !== 'object' || error === null) return 'error must be an object';
    const status = error.status;
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) {
      return 'error.status must be an HTTP error status (400-599)';
    }
    if (error.message !== undefined && typeof error.message !== 'string')
      return 'error.message must be a string';
    if (error.headers !== undefined) {
      if (typeof error.headers !== 'object' || error.headers === null)
        return 'error.headers must be an object';
      for (const [name, v] of Object.entries(error.headers)) {
        if (typeof v !== 'string') return `error.headers["${name}"] must be a string`;
      }
    }
    return undefined;
  }
  if (turn.deltas !== undefined) {
    if (!Array.isArray(turn.deltas) || turn.deltas.some((d) => typeof d !== 'string'))
      return 'deltas must be an array of strings';
    if (turn.deltas.join('') !== (turn.content ?? '')) return 'deltas must join to content';
  }
  if (
    turn.lastDeltaAfter !== undefined &&
    typeof (turn.lastDeltaAfter as PromiseLike<unknown>)?.then !== 'function'
  )
    return 'lastDeltaAfter must be a promise';
  if ('toolCalls' in turn) {
    if (!Array.isArray(turn.toolCalls) || turn.toolCalls.length === 0) {
      return 'toolCalls must be a non-empty array';
    }
    for (const [i, call] of turn.toolCalls.entries()) {
      const c = call as Record<string, unknown> | null;
      if (typeof c !== 'object' || c === null || typeof c.name !== 'string' || c.name === '') {
        return `toolCalls[${i}].name must be a non-empty string`;
      }
      if (c.id !== undefined && typeof c.id !== 'string') return `toolCalls[${i}].id must be a string`;
    }
    if (turn.content !== undefined && typeof turn.content !== 'string') return 'content must be a string';
    return undefined;
  }
  if ('content' in turn) {
    return typeof turn.content === 'string' ? undefined : 'content must be a string';
  }
  return 'a turn needs `content`, `toolCalls` or `error`';
}

/** The registered scripts, each with its own cursor. */
export class ScriptBook {
  #entries: Entry[] = [];
  #added = 0;

  add(script: Script): void {
    const { match } = script;
    if (typeof match !== 'string' && !(match instanceof RegExp) && typeof match !== 'function') {
      throw new TypeError('scripted-llm: script.match must be a string, a RegExp or a function');
    }
    if (!Array.isArray(script.turns)) throw new TypeError('scripted-llm: script.turns must be an array');
    this.#added++;
    const name =
      script.name ??
      (typeof match === 'string' ? match : match instanceof RegExp ? String(match) : `script#${this.#added}`);
    for (const [i, turn] of script.turns.entries()) {
      if (typeof turn === 'function') continue;
      const problem = turnProblem(turn);
      if (problem) throw new TypeError(`scripted-llm: script "${name}" turn ${i}: ${problem}`);
    }
    this.#entries.push({ script, name, cursor: 0 });
  }

  clear(): void {
    this.#entries = [];
    this.#added = 0;
  }

  /** Picks the answer for a request and advances the matching script's cursor. */
  next(req: ChatRequest, userText: string): Decision {
    for (const entry of this.#entries) {
      const { match } = entry.script;
      let matched: boolean;
      try {
        matched = typeof match === 'function' ? match(req) === true : textMatches(match, userText);
      } catch (err) {
        return {
          kind: 'fail',
          scriptName: entry.name,
          message: `scripted-llm: match function of script "${entry.name}" threw: ${describe(err)}`,
          type: 'scripted_llm_error',
        };
      }
      if (matched) return this.#take(entry, req);
    }
    return {
      kind: 'fail',
      message: `scripted-llm: no script matches "${userText}"`,
      type: 'scripted_llm_no_match',
    };
  }

  #take(entry: Entry, req: ChatRequest): Decision {
    const { turns, repeat } = entry.script;
    if (entry.cursor >= turns.length && repeat && turns.length > 0) entry.cursor = 0;
    const turnIndex = entry.cursor;
    const turn = turns[turnIndex];
    if (turn === undefined) {
      return {
        kind: 'fail',
        scriptName: entry.name,
        message: `scripted-llm: script "${entry.name}" has no turn left`,
        type: 'scripted_llm_exhausted',
      };
    }
    entry.cursor++;
    let answer: unknown;
    try {
      answer = typeof turn === 'function' ? turn(req) : turn;
    } catch (err) {
      return {
        kind: 'fail',
        scriptName: entry.name,
        turnIndex,
        message: `scripted-llm: turn ${turnIndex} of script "${entry.name}" threw: ${describe(err)}`,
        type: 'scripted_llm_error',
      };
    }
    const problem = turnProblem(answer);
    if (problem) {
      return {
        kind: 'fail',
        scriptName: entry.name,
        turnIndex,
        message: `scripted-llm: turn ${turnIndex} of script "${entry.name}" is invalid: ${problem}`,
        type: 'scripted_llm_error',
      };
    }
    return { kind: 'answer', scriptName: entry.name, turnIndex, answer: answer as TurnAnswer };
  }
}
