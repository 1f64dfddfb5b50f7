import {
  audioDelivery,
  buttonReplyDelivery,
  documentDelivery,
  imageDelivery,
  signedWebhook,
  statusDelivery,
  textDelivery,
  type WebhookDelivery,
  WHATSAPP_TEST_PHONE_NUMBER_ID,
} from '@munim/testkit';
import { describe, expect, it } from 'vitest';
import { WhatsAppAPI } from 'whatsapp-api-js';
import type { PostData } from 'whatsapp-api-js/types';

const APP_SECRET = 'webhook-secret';
const FROM = '919812345678';

/** Runs a signed delivery through whatsapp-api-js's own webhook handler (signature check included). */
async function parse(delivery: WebhookDelivery) {
  const api = new WhatsAppAPI<unknown>({ token: 't', appSecret: APP_SECRET, v: 'v24.0' });
  api.on.message = ({ phoneID, from, message, name }) => ({ kind: 'message', phoneID, from, message, name });
  api.on.status = ({ phoneID, phone, status, id, error }) => ({
    kind: 'status',
    phoneID,
    phone,
    status,
    id,
    error,
  });
  const { body, headers } = signedWebhook(delivery, APP_SECRET);
  return api.post(JSON.parse(body) as PostData, body, headers['x-hub-signature-256']);
}

describe('testkit webhook deliveries', () => {
  it('are Meta-shaped and signed so the library accepts them', async () => {
    const text = textDelivery({ from: FROM, text: 'खर्चा ₹450 चाय', name: 'Asha', timestamp: 1_700_000_000 });
    expect(text).toMatchObject({
      object: 'whatsapp_business_account',
      entry: [
        {
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { phone_number_id: WHATSAPP_TEST_PHONE_NUMBER_ID },
                contacts: [{ profile: { name: 'Asha' }, wa_id: FROM }],
              },
            },
          ],
        },
      ],
    });
    expect(await parse(text)).toMatchObject({
      kind: 'message',
      phoneID: WHATSAPP_TEST_PHONE_NUMBER_ID,
      from: FROM,
      name: 'Asha',
      message: {
        type: 'text',
        text: { body: 'खर्चा ₹450 चाय' },
        timestamp: '1700000000',
        id: expect.stringMatching(/^wamid\./),
      },
    });
  });

  it('carry button replies, voice notes, documents and images', async () => {
    expect(
      await parse(
        buttonReplyDelivery({ from: FROM, buttonId: 'approve:7', title: 'Approve', contextId: 'wamid.ours' }),
      ),
    ).toMatchObject({
      message: {
        type: 'interactive',
        context: { id: 'wamid.ours' },
        interactive: { type: 'button_reply', button_reply: { id: 'approve:7', title: 'Approve' } },
      },
    });
    expect(await parse(audioDelivery({ from: FROM, mediaId: '111', voice: true }))).toMatchObject({
      message: { type: 'audio', audio: { id: '111', voice: true, mime_type: 'audio/ogg; codecs=opus' } },
    });
    expect(
      await parse(
        documentDelivery({
          from: FROM,
          mediaId: '222',
          filename: 'bill.pdf',
          mimeType: 'application/pdf',
          caption: 'March rent',
        }),
      ),
    ).toMatchObject({
      message: {
        type: 'document',
        document: { id: '222', filename: 'bill.pdf', mime_type: 'application/pdf', caption: 'March rent' },
      },
    });
    expect(await parse(imageDelivery({ from: FROM, mediaId: '333' }))).toMatchObject({
      message: { type: 'image', image: { id: '333', mime_type: 'image/jpeg' } },
    });
  });

  it('carry message statuses, with the error of a failed one', async () => {
    expect(await parse(statusDelivery({ id: 'wamid.x', recipient: FROM, status: 'read' }))).toMatchObject({
      kind: 'status',
      phone: FROM,
      status: 'read',
      id: 'wamid.x',
      error: undefined,
    });
    expect(await parse(statusDelivery({ id: 'wamid.y', recipient: FROM, status: 'failed' }))).toMatchObject({
      status: 'failed',
      error: { code: 131026 },
    });
  });

  it('are refused by the library when the body is altered after signing', async () => {
    const api = new WhatsAppAPI({ token: 't', appSecret: APP_SECRET, v: 'v24.0' });
    const { body, headers } = signedWebhook(textDelivery({ from: FROM, text: 'pay 100' }), APP_SECRET);
    const altered = body.replace('pay 100', 'pay 900');
    await expect(
      api.post(JSON.parse(altered) as PostData, altered, headers['x-hub-signature-256']),
    ).rejects.toThrow();
  });
});
