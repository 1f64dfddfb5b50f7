import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Outbox, type PhoneSender } from '../src/outbound/outbox.ts';

function recorder() {
  const calls: string[] = [];
  let n = 0;
  const record = async (call: string) => {
    calls.push(call);
    return { messageId: `wamid.${++n}` };
  };
  const sender: PhoneSender = {
    sendText: (to, body) => record(`text ${to} ${body}`),
    sendButtons: (to, body, buttons) => record(`buttons ${to} ${body} ${buttons.length}`),
    sendDocument: (to, doc) => record(`document ${to} ${doc.filename}`),
    sendTemplate: (to, name, language) => record(`template ${to} ${name} ${language}`),
  };
  return { calls, sender };
}

const now = new Date('2026-11-28T12:00:00Z');
const hoursAgo = (h: number) => new Date(now.getTime() - h * 3600_000);
const log = pino({ level: 'silent' });

describe('the 24-hour window', () => {
  it('inside it, every message goes, in order', async () => {
    const { calls, sender } = recorder();
    const sent = await new Outbox(sender, log).send(
      '+919812345678',
      hoursAgo(23.9),
      [
        { kind: 'text', body: 'one' },
        { kind: 'buttons', body: 'two', buttons: [{ id: 'confirm:a', title: 'Confirm' }] },
        { kind: 'document', document: { filename: 'list.csv', mimeType: 'text/plain', content: 'a,b' } },
      ],
      now,
    );
    expect(sent).toEqual({ ids: ['wamid.1', 'wamid.2', 'wamid.3'] });
    expect(calls).toEqual([
      'text +919812345678 one',
      'buttons +919812345678 two 1',
      'document +919812345678 list.csv',
    ]);
  });

  it('outside it (or never opened), the configured template goes instead, once', async () => {
    for (const last of [hoursAgo(24.1), null]) {
      const { calls, sender } = recorder();
      const outbox = new Outbox(sender, log, { name: 'approval_waiting', language: 'en_IN' });
      const sent = await outbox.send(
        '+919812345678',
        last,
        [
          { kind: 'text', body: 'a' },
          { kind: 'text', body: 'b' },
        ],
        now,
      );
      expect(sent).toEqual({ ids: [], template: 'wamid.1' });
      expect(calls).toEqual(['template +919812345678 approval_waiting en_IN']);
    }
  });

  it('outside it with no template, nothing is sent', async () => {
    const { calls, sender } = recorder();
    expect(
      await new Outbox(sender, log).send('+919812345678', hoursAgo(30), [{ kind: 'text', body: 'a' }], now),
    ).toEqual({
      ids: [],
    });
    expect(calls).toEqual([]);
  });
});
