import type { AgentEvent } from '@munim/contracts';
import { describe, expect, it } from 'vitest';
import { AnswerStream } from '../src/answer/answer-stream.ts';
import { reverseGuardrails } from '../src/answer/guardrails.ts';
import { guardOutput } from '../src/answer/output-guard.ts';
import { StreamGuard } from '../src/answer/stream-guard.ts';

const ID = '550e8400-e29b-41d4-a716-446655440000';
const ID_PARTS = ID.split('-');

/** Streams `text` in the given pieces; returns every piece the guard let out. */
function stream(pieces: string[], holds?: (sentence: string) => boolean): string[] {
  const guard = new StreamGuard(holds);
  return pieces.map((p) => guard.push(p)).filter((out) => out !== '');
}

/** Every way to cut `text` in two, and `text` one character at a time. */
function splits(text: string): string[][] {
  const out = [[...text]];
  for (let i = 1; i < text.length; i++) out.push([text.slice(0, i), text.slice(i)]);
  return out;
}

const ANSWERS = [
  'You have 2 overdue invoices totalling ₹15,500.',
  '  Here are the overdue invoices:\n\n| Invoice | Customer | Due |\n|---|---|---|\n| INV-1 | Acme Corp | ₹12,000 |\n|INV-2|Globex|₹3,500|\n\nTotal ₹15,500.  \n\n',
  `| Name | Id |\n|---|---|\n| Acme | ${ID} |\n| Globex | ${ID} |\n\nTwo customers.`,
  'Before.\n```card\n{"title":"x"}\n```\n\n\n\nAfter the card.',
  'I can send that.\n```params\n{"operation":"Send","applied":[],"pending":[]}\n```\nShall I?',
  'It failed with a stack trace at line 4\nThe server said HTTP 404 twice.\nStill fine here.',
  'Code:\n```js\nconst x = 1;\n```\nand a 2.5% rise in Q3, then `inline` code.',
  'नमस्ते! आपके 3 बिल बाकी हैं: ₹4,200 कुल।',
];

describe('stream guard', () => {
  it.each(ANSWERS)('sends only a prefix of the guarded answer, however it is cut: %j', (text) => {
    const final = guardOutput(text);
    for (const pieces of splits(text)) {
      const sent = stream(pieces).join('');
      expect(final.startsWith(sent), JSON.stringify({ pieces, sent })).toBe(true);
      // What is held at the end is at most the last word, or a block being checked.
      expect(final.length - sent.length).toBeLessThanOrEqual(final.split(/\s/).at(-1)?.length ?? 0);
    }
  });

  it('keeps to the guarded answer under random cuts of ids, hex words and technical terms', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const corpus = [
      `Ids: ${ID}, x-${ID}-y, cafe-${ID}. Glued: ${ID}x and y${ID} stay as the final guard leaves them.`,
      'deadbeef cafe 2025-03-31 face-off f00d: all words. 12345678-1234 is not an id.',
      'TypeErrors are fine; a TypeError: is not.\nHTTP 4040 is a number, HTTP 404 is not.\nA traceback.',
      `xTypeError ${ID} and stack trace ${ID}\nnext ${ID}`,
      `- INV-0042 (${ID.toUpperCase()}) is due.\n- [link](https://x.test/${ID}) too.`,
    ];
    for (const text of corpus) {
      const final = guardOutput(text);
      for (let n = 0; n < 300; n++) {
        const pieces: string[] = [];
        for (let i = 0; i < text.length; ) {
          const size = 1 + Math.floor(random() * 8);
          pieces.push(text.slice(i, i + size));
          i += size;
        }
        const sent = stream(pieces).join('');
        expect(final.startsWith(sent), JSON.stringify({ pieces, sent })).toBe(true);
      }
    }
  });

  it('never sends an id split across two deltas, nor any part of it', () => {
    const text = `Your customer (${ID}) owes ₹500. Ref x-${ID}-y.`;
    for (const pieces of splits(text)) {
      for (const out of stream(pieces)) {
        for (const part of ID_PARTS) expect(out).not.toContain(part);
      }
    }
    expect(stream([`id ${ID.slice(0, 14)}`, `${ID.slice(14)} ok.`])).toEqual(['id ', ' ok.']);
    // A phrase glued to the word before is not one, and does not let the id after it through.
    const glued = stream(['Seen in x', `TypeError ${ID.slice(0, 14)}`, `${ID.slice(14)} here.`]).join('');
    expect(glued).toBe(guardOutput(`Seen in xTypeError ${ID} here.`));
  });

  it('never sends a card block, nor its opening', () => {
    const text = 'Summary first.\n```card\n{"type":"invoice","title":"INV-7 secret"}\n```\nAnd after.';
    for (const pieces of splits(text)) {
      const sent = stream(pieces).join('');
      expect(sent).not.toContain('card');
      expect(sent).not.toContain('secret');
      expect(sent).not.toContain('`');
    }
  });

  it('holds a params block until it closes, and stops at one whose JSON is broken', () => {
    const ok = 'Here.\n```params\n{"operation":"Send","applied":[],"pending":[]}\n```\nDone now.';
    const out = stream([...ok]);
    expect(out.find((o) => o.includes('```params'))).toContain('"pending":[]}\n```');
    const broken = 'Here.\n```params\n{"operation":"Send",,}\n```\nDone now.';
    // The validator will repair it: nothing more goes out until the final check.
    expect(stream([...broken]).join('')).toBe('Here.');
  });

  it('never sends a technical phrase, even cut in two', () => {
    const text = 'It broke: ECONNREFUSED on port 5432\nThen status code 503 came back.\nok';
    for (const pieces of splits(text)) {
      const sent = stream(pieces).join('');
      expect(sent).not.toMatch(/ECONNREF|5432|status code 5/i);
    }
  });

  it('drops an id column whose first data row holds ids, as the final guard does', () => {
    const text = `| Name | Id |\n|---|---|\n| Acme | ${ID} |\n| Globex | ${ID} |\n\nTwo customers.`;
    expect(stream([...text]).join('')).toBe('| Name |\n| --- |\n| Acme |\n| Globex |\n\nTwo customers.');
  });

  it('stops streaming when a later row changes rows already sent', () => {
    const text = `| Name | Note |\n|---|---|\n| Acme | fine |\n| Globex | ${ID} |\n\nAfter.`;
    const sent = stream([...text]).join('');
    expect(sent).toBe('| Name | Note |\n| --- | --- |\n| Acme | fine |\n');
    expect(guardOutput(text).startsWith(sent)).toBe(false);
  });

  it('holds the sentences the reverse guardrails would take back', () => {
    const holds = (s: string) => reverseGuardrails(s, [], (t) => t).text !== s;
    const text = 'Here is the summary. ✅ Payment of ₹20,000 recorded successfully. Anything else?';
    for (const pieces of [[...text], text.split(/(?= )/)]) {
      const sent = stream(pieces, holds).join('');
      expect(sent).toContain('Here is the summary.');
      expect(sent).not.toMatch(/recorded|Anything/);
    }
    // A sentence that only looked like a claim while it was written goes out once it is whole.
    const guard = new StreamGuard(holds);
    const early = ['Invoices', ' recorded', ' in'].map((p) => guard.push(p)).join('');
    expect(early).toBe('Invoices');
    expect(early + guard.push(' March: 4. Fine.')).toBe('Invoices recorded in March: 4. Fine.');
  });
});

describe('answer stream', () => {
  function recorder() {
    const events: AgentEvent[] = [];
    const emit = async (event: AgentEvent) => void events.push(event);
    const texts = () =>
      events.flatMap((e) => (e.type === 'response_chunk' || e.type === 'response_replace' ? [e] : []));
    return { events, emit, texts };
  }

  it('paces a fast model: its first words at once, then what came since as one chunk per interval', async () => {
    const { emit, texts } = recorder();
    const s = new AnswerStream(emit, { intervalMs: 40 });
    const words = Array.from({ length: 60 }, (_, i) => ` ${'abcdefghij'[i % 10]}${'klmnop'[i % 6]}`);
    const started = Date.now();
    await s.onText(`Here${words[0]}`);
    expect(texts()).toHaveLength(1);
    for (const word of words.slice(1)) {
      await s.onText(word);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await s.finish(`Here${words.join('')}.`);
    const elapsed = Date.now() - started;
    expect(
      texts()
        .map((e) => e.payload.text)
        .join(''),
    ).toBe(`Here${words.join('')}.`);
    expect(texts().every((e) => e.type === 'response_chunk')).toBe(true);
    // One at once, one per interval after it, and the rest at the end.
    expect(texts().length).toBeLessThanOrEqual(Math.ceil(elapsed / 40) + 2);
    expect(texts().length).toBeGreaterThan(2);
  });

  it('surfaces a chunk that could not be sent, at the next delta or at the end', async () => {
    let calls = 0;
    const s = new AnswerStream(
      async () => {
        calls += 1;
        if (calls > 2) throw new Error('the stream is down');
      },
      { intervalMs: 20 },
    );
    await s.onText('First words');
    await s.onText(' more');
    await new Promise((resolve) => setTimeout(resolve, 60));
    await expect(s.onText(' and more')).rejects.toThrow('the stream is down');
    await expect(s.finish('First words more and more')).rejects.toThrow('the stream is down');
  });

  it('streams the answer, then sends only the rest of it', async () => {
    const { events, emit, texts } = recorder();
    // Unpaced: each delta as it comes, to show what the guard holds back.
    const s = new AnswerStream(emit, { model: 'scripted/m', intervalMs: 0 });
    const answer = 'Your two overdue invoices are from 2025';
    for (const word of answer.split(/(?= )/)) await s.onText(word);
    expect(events[0]).toEqual({ type: 'response_generating', payload: { model: 'scripted/m' } });
    // Each word as it comes, but the last: digits could still grow into an id.
    expect(
      texts()
        .map((e) => e.payload.text)
        .join(''),
    ).toBe('Your two overdue invoices are from ');
    expect(texts().length).toBeGreaterThanOrEqual(6);
    await s.finish(answer);
    expect(texts().every((e) => e.type === 'response_chunk')).toBe(true);
    expect(
      texts()
        .map((e) => e.payload.text)
        .join(''),
    ).toBe(answer);
    expect(texts().at(-1)?.payload.text).toBe('2025');
    expect(events.filter((e) => e.type === 'response_generating')).toHaveLength(1);
  });

  it('replaces a streamed answer the final check changed, once', async () => {
    const { emit, texts } = recorder();
    const s = new AnswerStream(emit);
    for (const word of 'The total is ₹500 for all of them.'.split(/(?= )/)) await s.onText(word);
    await s.finish('I could not check the total.');
    const replaces = texts().filter((e) => e.type === 'response_replace');
    expect(replaces).toEqual([
      { type: 'response_replace', payload: { text: 'I could not check the total.' } },
    ]);
    expect(texts().at(-1)?.type).toBe('response_replace');
  });

  it('takes back the text of a turn that went on to call tools', async () => {
    const { events, emit, texts } = recorder();
    const s = new AnswerStream(emit);
    await s.retract();
    expect(events).toEqual([]);
    for (const word of 'Let me look that up for you.'.split(/(?= )/)) await s.onText(word);
    await s.retract();
    expect(texts().at(-1)).toEqual({ type: 'response_replace', payload: { text: '' } });
  });

  it('sends nothing while muted, then the answer in chunks', async () => {
    const { events, emit } = recorder();
    const s = new AnswerStream(emit, { muted: true });
    await s.onText('Payment recorded. ');
    expect(events).toEqual([]);
    await s.finish('I checked your books.');
    expect(events.map((e) => e.type)).toEqual(['response_generating', 'response_chunk']);
  });
});
