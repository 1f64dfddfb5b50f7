import type { EventPayload } from '@munim/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../src/ask.ts';
import { buttonId, readButton, repliesFor } from '../src/outbound/replies.ts';

const complete = (response: string, status: EventPayload<'complete'>['status'] = 'answered') =>
  ({ response, status }) as EventPayload<'complete'>;
const mcq = (tier: 1 | 2 | 3, confirmText?: string) =>
  ({
    actionId: 'act-1',
    tier,
    question: 'Pay ₹20,000.00 to Sharma Traders?',
    ...(confirmText ? { confirm_text: confirmText } : {}),
  }) as EventPayload<'mcq'>;
const outcome = (o: Partial<Outcome>): Outcome => ({ requestId: 'r', conversationId: 'c', ...o });

describe('what a phone is sent', () => {
  it('a tier-1 or tier-2 card is the question with Confirm and Cancel buttons bound to its action', () => {
    for (const tier of [1, 2] as const) {
      const replies = repliesFor(
        outcome({
          mcq: mcq(tier),
          complete: complete('Pay **₹20,000.00** to Sharma Traders?', 'awaiting_confirmation'),
        }),
      );
      expect(replies.messages).toEqual([
        {
          kind: 'buttons',
          body: 'Pay *₹20,000.00* to Sharma Traders?',
          buttons: [
            { id: 'confirm:act-1', title: 'Confirm' },
            { id: 'cancel:act-1', title: 'Cancel' },
          ],
        },
      ]);
      expect(replies.card).toEqual({ index: 0, actionId: 'act-1' });
    }
  });

  it('a tier-3 card asks for the typed word and has no Confirm button', () => {
    const replies = repliesFor(
      outcome({ mcq: mcq(3, 'VOID'), complete: complete('This will void INV-7.', 'awaiting_confirmation') }),
    );
    expect(replies.messages).toEqual([
      {
        kind: 'buttons',
        body: 'This will void INV-7.\n\nTo confirm, type *VOID*. Or tap Cancel.',
        buttons: [{ id: 'cancel:act-1', title: 'Cancel' }],
      },
    ]);
  });

  it('a card whose words are too long for a button message sends them first, then a short card', () => {
    const long = `${'Line of detail. '.repeat(80)}`.trim();
    const replies = repliesFor(outcome({ mcq: mcq(1), complete: complete(long, 'awaiting_confirmation') }));
    expect(replies.messages.at(-1)).toMatchObject({ kind: 'buttons', body: 'Confirm this change?' });
    expect(replies.messages[0]).toMatchObject({ kind: 'text' });
    expect(replies.card?.index).toBe(replies.messages.length - 1);
  });

  it('an error is said in its words; a long list comes with its CSV as a text file named .csv', () => {
    expect(
      repliesFor(outcome({ error: { code: 'TIMEOUT', message: 'No answer within 120 s.' } })).messages,
    ).toEqual([{ kind: 'text', body: 'No answer within 120 s.' }]);
    const rows = Array.from({ length: 30 }, (_, i) => `| INV-${i} | ₹${i},000.00 |`).join('\n');
    const replies = repliesFor(outcome({ complete: complete(`| Number | Amount |\n|---|---|\n${rows}`) }));
    expect(replies.messages.at(-1)).toMatchObject({
      kind: 'document',
      document: { mimeType: 'text/plain', filename: expect.stringMatching(/\.csv$/) },
    });
  });

  it('a button id is read back only in the shape munim makes', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('confirm', 'cancel', 'approve', 'reject' as const),
        fc.stringMatching(/^[A-Za-z0-9_-]{1,60}$/),
        (action, id) => {
          expect(readButton(buttonId(action, id))).toEqual({ action, id });
        },
      ),
    );
    for (const forged of [
      '',
      'confirm',
      'confirm:',
      'pay:act-1',
      'CONFIRM:act-1',
      'confirm:a b',
      `confirm:${'x'.repeat(300)}`,
    ])
      expect(readButton(forged)).toBeNull();
  });
});
