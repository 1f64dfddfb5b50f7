import { freePort, type GraphFixture, signWebhook, startGraphFixture, textDelivery } from '@munim/testkit';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  WhatsAppMediaTooLargeError,
  WhatsAppMessageInvalidError,
  WhatsAppSendError,
} from '../src/whatsapp/errors.ts';
import { WhatsAppGraph, type WhatsAppGraphOptions } from '../src/whatsapp/graph.ts';
import { resolveGraphUrl } from '../src/whatsapp/transport.ts';

const APP_SECRET = 'app-secret-for-tests';
const TO = '919812345678';

let graph: GraphFixture;
const logLines: string[] = [];
const log = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });

function client(overrides: Partial<WhatsAppGraphOptions> = {}): WhatsAppGraph {
  return new WhatsAppGraph({
    graphUrl: graph.url,
    accessToken: graph.accessToken,
    phoneNumberId: graph.phoneNumberId,
    appSecret: APP_SECRET,
    apiVersion: 'v24.0',
    log,
    retry: { attempts: 3, baseMs: 10, maxMs: 2_000 },
    ...overrides,
  });
}

/** The requests to one endpoint made while `run` ran. */
async function requestsDuring(endpoint: string, run: () => Promise<unknown>) {
  const before = graph.requests.length;
  await run();
  return graph.requests.slice(before).filter((r) => r.endpoint === endpoint);
}

beforeAll(async () => {
  graph = await startGraphFixture();
});

afterAll(async () => {
  await graph.close();
  // Nothing this client logged, through retries and failures, carries the token.
  expect(logLines.length).toBeGreaterThan(0);
  expect(logLines.join('\n')).not.toContain(graph.accessToken);
});

describe('WhatsAppGraph sends in the Cloud API shapes', () => {
  it('sends text, as a reply when asked', async () => {
    const wa = client();
    const { messageId } = await wa.sendText(TO, 'Your GST is due on the 20th');
    const { messageId: replyId } = await wa.sendText(`+${TO}`, 'Done', { replyTo: messageId });
    const [first, reply] = (await graph.waitForMessages(2, { to: TO })).slice(-2);
    expect(first?.id).toBe(messageId);
    expect(first?.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: TO,
      type: 'text',
      text: { body: 'Your GST is due on the 20th' },
    });
    expect(reply?.id).toBe(replyId);
    expect(reply?.body).toMatchObject({ to: TO, context: { message_id: messageId }, text: { body: 'Done' } });
  });

  it('sends reply buttons', async () => {
    const { messageId } = await client().sendButtons(TO, 'Record this bill?', [
      { id: 'approve:42', title: 'Approve' },
      { id: 'reject:42', title: 'Reject' },
    ]);
    const message = graph.sent.find((m) => m.id === messageId);
    expect(message?.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: TO,
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: 'Record this bill?' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'approve:42', title: 'Approve' } },
            { type: 'reply', reply: { id: 'reject:42', title: 'Reject' } },
          ],
        },
      },
    });
  });

  it('refuses buttons the Cloud API would reject, before any request', async () => {
    const wa = client();
    const b = (id: string, title: string) => ({ id, title });
    const bad: [string, { id: string; title: string }[]][] = [
      [' ', [b('a', 'A')]],
      ['x'.repeat(1025), [b('a', 'A')]],
      ['Pick one', []],
      ['Pick one', [b('a', 'A'), b('b', 'B'), b('c', 'C'), b('d', 'D')]],
      ['Pick one', [b('a', 'x'.repeat(21))]],
      ['Pick one', [b('x'.repeat(257), 'A')]],
      ['Pick one', [b(' a', 'A')]],
      ['Pick one', [b('a', 'A'), b('a', 'B')]],
      ['Pick one', [b('a', 'Same'), b('b', 'Same')]],
      ['Pick one', [b('a', '  ')]],
    ];
    const made = await requestsDuring('messages', async () => {
      for (const [body, buttons] of bad)
        await expect(wa.sendButtons(TO, body, buttons), JSON.stringify(buttons)).rejects.toThrow(
          WhatsAppMessageInvalidError,
        );
    });
    expect(made).toEqual([]);
  });

  it('uploads a document, then sends it by its media id', async () => {
    const pdf = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 1, 2, 3]);
    const { messageId } = await client().sendDocument(TO, {
      filename: 'ledger-march.pdf',
      mimeType: 'application/pdf',
      content: pdf,
      caption: 'March ledger',
    });
    const upload = graph.uploads.at(-1);
    expect(upload).toMatchObject({ filename: 'ledger-march.pdf', mimeType: 'application/pdf' });
    expect(upload?.bytes).toEqual(pdf);
    const message = graph.sent.find((m) => m.id === messageId);
    expect(message?.body).toMatchObject({
      type: 'document',
      document: { id: upload?.id, filename: 'ledger-march.pdf', caption: 'March ledger' },
    });
    expect(message?.body.document).not.toHaveProperty('link');

    const text = await client().sendDocument(TO, {
      filename: 'note.txt',
      mimeType: 'text/plain',
      content: 'hi ₹',
    });
    expect(new TextDecoder().decode(graph.uploads.at(-1)?.bytes)).toBe('hi ₹');
    expect(graph.sent.find((m) => m.id === text.messageId)?.body).toMatchObject({
      document: { filename: 'note.txt' },
    });
  });

  it('refuses a document type the Cloud API does not take, before uploading', async () => {
    const made = await requestsDuring('media-upload', () =>
      expect(
        client().sendDocument(TO, { filename: 'x.csv', mimeType: 'text/csv', content: 'a,b' }),
      ).rejects.toThrow(WhatsAppMessageInvalidError),
    );
    expect(made).toEqual([]);
  });

  it('sends a template', async () => {
    const { messageId } = await client().sendTemplate(TO, 'daily_summary', 'en_US');
    expect(graph.sent.find((m) => m.id === messageId)?.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: TO,
      type: 'template',
      template: { name: 'daily_summary', language: { code: 'en_US', policy: 'deterministic' } },
    });
  });
});

describe('WhatsAppGraph retries', () => {
  it('waits out a 429 with Retry-After and then sends once', async () => {
    graph.failNext(1, { status: 429, code: 130429, retryAfter: 1, endpoint: 'messages' });
    const sentBefore = graph.sent.length;
    const started = Date.now();
    let messageId = '';
    const made = await requestsDuring('messages', async () => {
      ({ messageId } = await client().sendText(TO, 'after the limit'));
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(made.map((r) => r.status)).toEqual([429, 200]);
    expect(graph.sent.slice(sentBefore).map((m) => m.id)).toEqual([messageId]);
  });

  it('retries a rate-limit code under a 400, and a 5xx', async () => {
    graph.failNext(1, { status: 400, code: 131056, endpoint: 'messages' });
    graph.failNext(1, { status: 503, endpoint: 'messages' });
    const made = await requestsDuring('messages', () => client().sendText(TO, 'eventually'));
    expect(made.map((r) => r.status)).toEqual([400, 503, 200]);
  });

  it('does not retry a validation error', async () => {
    graph.failNext(1, { status: 400, code: 100, message: 'Invalid parameter', endpoint: 'messages' });
    let error: unknown;
    const made = await requestsDuring('messages', async () => {
      error = await client()
        .sendText(TO, 'bad')
        .catch((e: unknown) => e);
    });
    expect(made.map((r) => r.status)).toEqual([400]);
    expect(error).toBeInstanceOf(WhatsAppSendError);
    expect(error).toMatchObject({ name: 'WhatsAppSendError', status: 400, code: 100, attempts: 1 });
    expect((error as Error).message).toContain('Invalid parameter');
  });

  it('gives up after its attempts with the last status', async () => {
    graph.failNext(3, { status: 500, endpoint: 'messages' });
    const error = await client()
      .sendText(TO, 'down')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'WhatsAppSendError', status: 500, code: 131000, attempts: 3 });
  });

  it('leaves a Retry-After longer than its longest wait to the caller', async () => {
    graph.failNext(1, { status: 429, code: 130429, retryAfter: 60, endpoint: 'messages' });
    const error = await client()
      .sendText(TO, 'later')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, attempts: 1, retryAfterMs: 60_000 });
  });

  it('retries network errors and throws with the cause', async () => {
    const closed = await freePort();
    const error = await client({ graphUrl: `http://127.0.0.1:${closed}` })
      .sendText(TO, 'nobody home')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WhatsAppSendError);
    expect(error).toMatchObject({ attempts: 3, status: undefined });
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('does not retry a refused token, nor name it', async () => {
    const wrongToken = 'EAAG-wrong-token-value';
    let error: unknown;
    const made = await requestsDuring('messages', async () => {
      error = await client({ accessToken: wrongToken })
        .sendText(TO, 'who am I')
        .catch((e: unknown) => e);
    });
    expect(made.map((r) => r.status)).toEqual([401]);
    expect(error).toMatchObject({ status: 401, code: 190 });
    expect(String(error)).not.toContain(wrongToken);
    expect(JSON.stringify(error)).not.toContain(wrongToken);
  });
});

describe('WhatsAppGraph media download', () => {
  const bytes = new Uint8Array(5_000).map((_, i) => i % 251);

  it('downloads a file with its type and hash', async () => {
    const mediaId = graph.addMedia(bytes, 'image/jpeg');
    const media = await client().downloadMedia(mediaId, 10_000);
    expect(media.bytes).toEqual(bytes);
    expect(media.mimeType).toBe('image/jpeg');
    expect(media.sha256).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });

  it('refuses a file over the cap by its reported size, before downloading it', async () => {
    const mediaId = graph.addMedia(bytes, 'application/pdf');
    const downloads = await requestsDuring('media-download', () =>
      expect(client().downloadMedia(mediaId, 4_999)).rejects.toThrow(WhatsAppMediaTooLargeError),
    );
    expect(downloads).toEqual([]);
  });

  it('refuses a file over the cap when Graph under-reports it, by length or while reading', async () => {
    const declared = graph.addMedia(bytes, 'application/pdf', { reportedSize: 100 });
    await expect(client().downloadMedia(declared, 1_000)).rejects.toThrow(WhatsAppMediaTooLargeError);
    const chunked = graph.addMedia(bytes, 'application/pdf', { reportedSize: 100, chunked: true });
    await expect(client().downloadMedia(chunked, 1_000)).rejects.toThrow(WhatsAppMediaTooLargeError);
    const whole = await client().downloadMedia(chunked, 5_000);
    expect(whole.bytes).toEqual(bytes);
  });

  it('refuses a malformed media id and reports an unknown one', async () => {
    await expect(client().downloadMedia('../123/messages', 1_000)).rejects.toThrow(
      WhatsAppMessageInvalidError,
    );
    await expect(client().downloadMedia('999', 1_000)).rejects.toMatchObject({
      name: 'WhatsAppSendError',
      status: 404,
    });
  });

  it('rebases Graph URLs and fetches other http(s) URLs as given, nothing else', () => {
    expect(resolveGraphUrl('https://graph.facebook.com/v24.0/1/messages?a=1', 'http://h:1/graph/').href).toBe(
      'http://h:1/graph/v24.0/1/messages?a=1',
    );
    const media = 'https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1';
    expect(resolveGraphUrl(new URL(media), 'http://h:1').href).toBe(media);
    expect(() => resolveGraphUrl('file:///etc/passwd', 'http://h:1')).toThrow(WhatsAppSendError);
  });
});

describe('WhatsAppGraph webhook checks', () => {
  const body = JSON.stringify(textDelivery({ from: TO, text: '₹12,500 का बिल भरना है' }));

  it('accepts a body Meta signed, non-ASCII text included', async () => {
    const wa = client();
    expect(await wa.verifySignature(body, signWebhook(body, APP_SECRET))).toBe(true);
    expect(
      await wa.verifySignature(body, signWebhook(body, APP_SECRET).toUpperCase().replace('SHA256', 'sha256')),
    ).toBe(true);
  });

  it('refuses unsigned, wrongly signed, altered and malformed', async () => {
    const wa = client();
    const good = signWebhook(body, APP_SECRET);
    const hex = good.slice('sha256='.length);
    expect(await wa.verifySignature(body, undefined)).toBe(false);
    expect(await wa.verifySignature(body, signWebhook(body, 'another-secret'))).toBe(false);
    expect(await wa.verifySignature(body.replace('12,500', '21,500'), good)).toBe(false);
    for (const header of [
      '',
      'sha256=',
      hex,
      `sha1=${hex}`,
      `xsha256=${hex}`,
      `sha256=${hex}00`,
      `sha256=${'z'.repeat(64)}`,
    ])
      expect(await wa.verifySignature(body, header), header).toBe(false);
  });

  it('answers the subscription handshake only to our token', () => {
    const wa = client();
    const params = {
      'hub.mode': 'subscribe',
      'hub.verify_token': 'verify-me',
      'hub.challenge': '1158201444',
    };
    expect(wa.verifyHandshake(params, 'verify-me')).toBe('1158201444');
    expect(wa.verifyHandshake(params, 'verify-you')).toBeNull();
    expect(wa.verifyHandshake({ ...params, 'hub.mode': 'unsubscribe' }, 'verify-me')).toBeNull();
    expect(
      wa.verifyHandshake({ 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-me' }, 'verify-me'),
    ).toBeNull();
    expect(wa.verifyHandshake({ ...params, 'hub.verify_token': '' }, '')).toBeNull();
  });

  it('refuses a configuration without naming its secrets', () => {
    expect(() => client({ phoneNumberId: '12/../34', accessToken: '' })).toThrow(
      /phoneNumberId.*accessToken|accessToken.*phoneNumberId/,
    );
  });
});
