import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentEvent } from '@munim/contracts';
import { StreamGuard } from './stream-guard.ts';

/**
 * The pace of a streamed answer: its first words go out at once, then what the model wrote since
 * goes out as one chunk at most this often. Twenty updates a second reads as smooth as one a
 * token, at a fraction of the events (each a publish, a stored row and an SSE write).
 */
export const STREAM_CHUNK_INTERVAL_MS = 50;

/**
 * Text known at once (a rendered report, the rest of a streamed answer) goes out as one chunk: a
 * client has nothing to show between pieces of it, and every event is a publish, a stored row and
 * an SSE write. Only an answer larger than this is split, at line ends.
 */
const KNOWN_TEXT_CHUNK = 32 * 1024;

/** Splits text known at once into as few pieces as fit, at line ends. */
function chunks(text: string, size = KNOWN_TEXT_CHUNK): string[] {
  const out: string[] = [];
  let current = '';
  for (const line of text.split(/(?<=\n)/)) {
    if (current.length + line.length > size && current) {
      out.push(current);
      current = '';
    }
    current += line;
  }
  if (current || out.length === 0) out.push(current);
  return out;
}

export interface AnswerStreamOptions {
  /** `response_generating.model`. */
  model?: string | undefined;
  /** Whether a sentence is one the final check would take back: it is not sent. */
  holds?: ((sentence: string) => boolean) | undefined;
  /** Nothing is streamed: the answer will not be the model's words. */
  muted?: boolean | undefined;
  /** At most one chunk this often while the model writes (default {@link STREAM_CHUNK_INTERVAL_MS}). */
  intervalMs?: number | undefined;
  /** What earlier streams of the request left shown: this one goes on from it. */
  shown?: string | undefined;
}

/**
 * One answer as the model writes it: guarded text goes out as `response_chunk`s while it is
 * written; a turn that turns out not to be the answer is taken back, and a final answer that is
 * not what was streamed replaces it, each with one `response_replace`.
 */
export class AnswerStream {
  readonly #emit: (event: AgentEvent) => Promise<unknown>;
  readonly #options: AnswerStreamOptions;
  #guard: StreamGuard;
  #sent = '';
  #announced = false;
  /** Guarded text not sent yet, the sending of it, when the last chunk went, and a failure to send. */
  #pending = '';
  #sending: Promise<void> | undefined;
  #lastAt = 0;
  #failure: { error: unknown } | undefined;

  constructor(emit: (event: AgentEvent) => Promise<unknown>, options: AnswerStreamOptions = {}) {
    this.#emit = emit;
    this.#options = options;
    this.#guard = new StreamGuard(options.holds);
    this.#sent = options.shown ?? '';
    this.#announced = this.#sent !== '';
  }

  /**
   * The model's next text delta (`Llm.turn`'s `onText`): it joins what waits to be sent, and the
   * model's stream is read on meanwhile. A failure to send surfaces here, or at the end.
   */
  readonly onText = async (delta: string): Promise<void> => {
    this.#rethrow();
    if (this.#options.muted) return;
    const text = this.#guard.push(delta);
    if (!text) return;
    this.#pending += text;
    // A chunk waiting for its turn, or being sent, takes this text along.
    if (this.#sending) return;
    const paced = this.#lastAt > 0 && this.#wait() > 0;
    const sending = this.#pump().finally(() => {
      this.#sending = undefined;
    });
    this.#sending = sending;
    // Nothing to wait for: sent now, before the model's stream is read on.
    if (!paced) await sending;
    this.#rethrow();
  };

  #wait(): number {
    return this.#lastAt + (this.#options.intervalMs ?? STREAM_CHUNK_INTERVAL_MS) - Date.now();
  }

  /** Sends what waits, a chunk at a time, no more often than the interval. */
  async #pump(): Promise<void> {
    try {
      while (this.#pending) {
        const wait = this.#wait();
        if (this.#lastAt > 0 && wait > 0) await sleep(wait);
        const text = this.#pending;
        this.#pending = '';
        this.#lastAt = Date.now();
        await this.#chunk(text);
      }
    } catch (error) {
      this.#failure = { error };
    }
  }

  /** Waits until what the model wrote so far is sent (or its sending failed: then throws). */
  async #settle(): Promise<void> {
    while (this.#sending) await this.#sending;
    this.#rethrow();
  }

  #rethrow(): void {
    if (this.#failure) throw this.#failure.error;
  }

  /**
   * The model's call failed after some of its text went out, and another model answers instead:
   * that text is taken back, `reason` saying why, and this stream starts again from what earlier
   * streams left shown (`Llm.turn`'s `onRestart`).
   */
  readonly restart = async (reason: string): Promise<void> => {
    await this.#settle();
    const base = this.#options.shown ?? '';
    if (this.#sent !== base) await this.#emit({ type: 'response_replace', payload: { text: base, reason } });
    this.#sent = base;
    this.#guard = new StreamGuard(this.#options.holds);
  };

  /** The turn ended in tool calls, or its text is not the answer: what was shown of it goes. */
  async retract(): Promise<void> {
    await this.#settle();
    if (this.#sent) await this.#emit({ type: 'response_replace', payload: { text: '' } });
    this.#sent = '';
  }

  /** The final answer: the rest of what was streamed, or one replacement when it is not that. */
  async finish(answer: string): Promise<void> {
    await this.#settle();
    if (this.#sent && !answer.startsWith(this.#sent)) {
      await this.#emit({ type: 'response_replace', payload: { text: answer } });
      this.#sent = answer;
      return;
    }
    const rest = answer.slice(this.#sent.length);
    if (rest || !this.#sent) for (const piece of chunks(rest)) await this.#chunk(piece);
  }

  async #chunk(text: string): Promise<void> {
    if (!this.#announced) {
      this.#announced = true;
      const { model } = this.#options;
      await this.#emit({ type: 'response_generating', payload: model ? { model } : {} });
    }
    await this.#emit({ type: 'response_chunk', payload: { text } });
    this.#sent += text;
  }
}
