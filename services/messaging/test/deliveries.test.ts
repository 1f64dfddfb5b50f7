import { MessagingInboundSchema } from '@munim/contracts';
import {
  audioDelivery,
  buttonReplyDelivery,
  documentDelivery,
  imageDelivery,
  statusDelivery,
  textDelivery,
} from '@munim/testkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DeliveryShapeError, readDelivery } from '../src/inbound/deliveries.ts';

const from = '919812345678';

describe('a WhatsApp delivery, read', () => {
  it('reads each kind of message as Meta posts it, and each reads as the bus contract', () => {
    const cases = [
      [textDelivery({ from, text: 'kitna cash hai?' }), { kind: 'text', text: 'kitna cash hai?' }],
      [
        buttonReplyDelivery({ from, buttonId: 'confirm:abc', title: 'Confirm', contextId: 'wamid.CARD' }),
        { kind: 'button', buttonId: 'confirm:abc', title: 'Confirm' },
      ],
      [
        audioDelivery({ from, mediaId: '1234567890' }),
        { kind: 'audio', media: { id: '1234567890', mimeType: 'audio/ogg; codecs=opus', voice: true } },
      ],
      [
        documentDelivery({
          from,
          mediaId: '42',
          filename: 'bill.pdf',
          mimeType: 'application/pdf',
          caption: 'bill',
        }),
        {
          kind: 'document',
          media: { id: '42', mimeType: 'application/pdf', filename: 'bill.pdf', caption: 'bill' },
        },
      ],
      [
        imageDelivery({ from, mediaId: '43' }),
        { kind: 'image', media: { id: '43', mimeType: 'image/jpeg' } },
      ],
    ] as const;
    for (const [delivery, content] of cases) {
      const [item] = readDelivery(delivery);
      expect(item).toMatchObject({ type: 'message', channel: 'whatsapp', from: `+${from}`, content });
      expect(MessagingInboundSchema.safeParse(item).success).toBe(true);
    }
    const [button] = readDelivery(
      buttonReplyDelivery({ from, buttonId: 'confirm:abc', title: 'Confirm', contextId: 'wamid.CARD' }),
    );
    expect(button).toMatchObject({ contextId: 'wamid.CARD' });
  });

  it('reads statuses, with a failed one’s error', () => {
    const [sent] = readDelivery(statusDelivery({ id: 'wamid.X', recipient: from, status: 'delivered' }));
    expect(sent).toMatchObject({
      type: 'status',
      messageId: 'wamid.X',
      status: 'delivered',
      recipient: from,
    });
    const [failed] = readDelivery(statusDelivery({ id: 'wamid.Y', recipient: from, status: 'failed' }));
    expect(failed).toMatchObject({ status: 'failed', error: { code: 131026 } });
  });

  it('answers a kind it does not read (sticker, location, a reaction) as unsupported, not as text', () => {
    for (const type of ['sticker', 'location', 'contacts', 'reaction', 'video', 'order', 'system']) {
      const delivery = textDelivery({ from, text: 'x' }) as unknown as {
        entry: { changes: { value: { messages: Record<string, unknown>[] } }[] }[];
      };
      const message = delivery.entry[0]!.changes[0]!.value.messages[0]!;
      delete message.text;
      message.type = type;
      expect(readDelivery(delivery)[0]).toMatchObject({ content: { kind: 'unsupported', type } });
    }
  });

  it('keeps every message and status of a batched delivery, in order, and ignores other fields', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ kind: fc.constant('text' as const), text: fc.string({ maxLength: 200 }) }),
            fc.record({ kind: fc.constant('status' as const), status: fc.constantFrom('sent', 'read') }),
          ),
          { minLength: 1, maxLength: 12 },
        ),
        (items) => {
          const base = textDelivery({ from, text: '' }) as unknown as {
            entry: { changes: { field: string; value: Record<string, unknown> }[] }[];
          };
          const changes = items.map((item, i) =>
            item.kind === 'text'
              ? textDelivery({ from, text: item.text, id: `wamid.${i}` }).entry[0]!.changes[0]!
              : statusDelivery({ id: `wamid.${i}`, recipient: from, status: item.status }).entry[0]!
                  .changes[0]!,
          );
          base.entry[0]!.changes = [
            ...changes,
            { field: 'account_update', value: { event: 'VERIFIED_ACCOUNT' } },
          ] as never;
          const read = readDelivery(base);
          expect(read.map((r) => r.messageId)).toEqual(items.map((_, i) => `wamid.${i}`));
          for (const [i, r] of read.entries()) {
            const item = items[i]!;
            if (item.kind === 'text')
              expect(r).toMatchObject({ type: 'message', content: { kind: 'text', text: item.text } });
            else expect(r).toMatchObject({ type: 'status', status: item.status });
          }
        },
      ),
    );
  });

  it('refuses a body that is not a WhatsApp delivery, naming what is wrong', () => {
    expect(() => readDelivery({ object: 'page', entry: [] })).toThrow(DeliveryShapeError);
    expect(() => readDelivery({ object: 'page', entry: [] })).toThrow(/object/);
    const bad = textDelivery({ from: 'not-a-number', text: 'x' });
    expect(() => readDelivery(bad)).toThrow(/from/);
    expect(() => readDelivery(null)).toThrow(DeliveryShapeError);
  });
});
