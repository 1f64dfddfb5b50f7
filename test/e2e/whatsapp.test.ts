// End to end: WhatsApp. The messaging service runs as its own process beside the six others, on
// the real NATS and a fresh PostgreSQL; Meta is a fixture Graph API server written here that takes
// the real send and media endpoints, and deliveries are Meta-shaped and signed as Meta signs them.
// People are users made through /v1/admin/users, each with a phone.
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  audioDelivery,
  buttonReplyDelivery,
  documentDelivery,
  freePort,
  type GraphFixture,
  type GraphSentMessage,
  signWebhook,
  startGraphFixture,
  statusDelivery,
  test,
  textDelivery,
} from '@munim/testkit';
import { afterAll, describe, expect } from 'vitest';
import { billToPay as payBill } from '../support/bill-payment.ts';
import { bearerJson, jsonCaller } from '../support/http.ts';
import { startSystem, type TestSystem } from '../support/stack.ts';

const ADMIN_KEY = `admin-${randomBytes(16).toString('hex')}`;
const APP_SECRET = randomBytes(20).toString('hex');
const VERIFY_TOKEN = `verify-${randomBytes(8).toString('hex')}`;
const ACCESS_TOKEN = `EAAG${randomBytes(24).toString('hex')}`;
const tenant = { entityId: `ent-${randomUUID().slice(0, 8)}`, orgId: `org-${randomUUID().slice(0, 8)}` };
const POLICY = `
rules:
  - match: { class: payment, minAmount: 100000 }
    approvers: 1
    roles: [approver, owner]
`;

let sys: TestSystem;
let graph: GraphFixture;
/** Two messaging instances: a delivery may reach either. */
let messagingUrls: string[] = [];
let messagingUrl = '';
const admin = jsonCaller(() => sys.gatewayUrl, bearerJson(ADMIN_KEY));

/** A fresh Indian mobile number (digits only, as WhatsApp's wa_id). */
const newNumber = () => `9198${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;

async function person(role: string, ...more: string[]): Promise<{ userId: string; phone: string }> {
  const phone = newNumber();
  const made = await admin('POST', '/v1/admin/users', {
    orgId: tenant.orgId,
    name: `${role} ${randomUUID().slice(0, 4)}`,
    phone: `+${phone}`,
    roles: [role, ...more].map((r) => ({ entityId: tenant.entityId, role: r })),
  });
  expect(made.status).toBe(201);
  return { userId: ((await made.json()) as { userId: string }).userId, phone };
}

test.beforeAll(async ({ database, nats }) => {
  graph = await startGraphFixture({ accessToken: ACCESS_TOKEN });
  const ports = [await freePort(), await freePort()];
  messagingUrls = ports.map((p) => `http://127.0.0.1:${p}`);
  messagingUrl = messagingUrls[0] as string;
  const dir = mkdtempSync(join(tmpdir(), 'munim-whatsapp-'));
  const policyFile = join(dir, 'policy.yaml');
  writeFileSync(policyFile, POLICY);
  sys = await startSystem({
    database,
    nats,
    scale: { messaging: 2 },
    instanceEnv: (service, index) =>
      service === 'messaging' ? { MESSAGING_PORT: String(ports[index - 1]) } : undefined,
    env: {
      GATEWAY_ADMIN_KEYS: ADMIN_KEY,
      APPROVAL_POLICY_FILE: policyFile,
      WHATSAPP_APP_SECRET: APP_SECRET,
      WHATSAPP_VERIFY_TOKEN: VERIFY_TOKEN,
      WHATSAPP_ACCESS_TOKEN: ACCESS_TOKEN,
      WHATSAPP_PHONE_NUMBER_ID: graph.phoneNumberId,
      WHATSAPP_GRAPH_URL: graph.url,
      ATTACHMENTS_DIR: join(dir, 'attachments'),
    },
  });
  // The gateway's readiness does not wait for the optional messaging service: wait for its own.
  const deadline = Date.now() + 30_000;
  for (const url of messagingUrls)
    while ((await fetch(`${url}/readyz`).catch(() => undefined))?.status !== 200) {
      if (Date.now() > deadline)
        throw new Error(`messaging was not ready:\n${sys.logs.slice(-20).join('\n')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
});

afterAll(async () => {
  await sys?.stop();
  await graph?.close();
});

/** Posts a delivery as Meta does: the raw JSON, signed with the app secret. */
async function deliver(
  delivery: unknown,
  opts: { secret?: string; signature?: string | null; instance?: number } = {},
) {
  const body = JSON.stringify(delivery);
  const signature =
    opts.signature === undefined ? signWebhook(body, opts.secret ?? APP_SECRET) : opts.signature;
  return fetch(`${messagingUrls[opts.instance ?? 0]}/v1/channels/whatsapp/webhook`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(signature ? { 'x-hub-signature-256': signature } : {}),
    },
    body,
  });
}

/** The messages sent to a number so far. */
const sentTo = (phone: string) => graph.sent.filter((m) => m.to === phone);

/** Waits for `n` more messages to `phone` than it had when `before` was counted, and returns those. */
async function nextTo(phone: string, before: number, n = 1, timeoutMs = 30_000): Promise<GraphSentMessage[]> {
  const all = await graph.waitForMessages(before + n, { to: phone, timeoutMs });
  return all.slice(before);
}

const textOf = (m: GraphSentMessage | undefined) =>
  String(
    (m?.body.text as { body?: string } | undefined)?.body ??
      (m?.body.interactive as { body?: { text?: string } } | undefined)?.body?.text ??
      '',
  );
const buttonsOf = (m: GraphSentMessage | undefined) =>
  (
    (m?.body.interactive as { action?: { buttons?: { reply: { id: string; title: string } }[] } } | undefined)
      ?.action?.buttons ?? []
  ).map((b) => b.reply);

/** A tap on button `index` of `card` (or, with `buttonId`, a button of another id on that card). */
const tap = (from: string, card: GraphSentMessage | undefined, index: number, buttonId?: string) =>
  buttonReplyDelivery({
    from,
    buttonId: buttonId ?? String(buttonsOf(card)[index]?.id),
    title: String(buttonsOf(card)[index]?.title),
    contextId: String(card?.id),
  });

/** A bill of `amount` from the vendor, and a script paying it when asked `query`. */
const billToPay = (amount: number) => payBill(sys, amount, (reference) => `Paid ${reference}.`);

const paymentsSent = (reference: string) =>
  sys.books.calls().filter((c) => c.tool === 'create_bill_payment' && c.args.Reference === reference);

describe('the webhook', () => {
  test('answers the verification handshake with the challenge, and refuses a wrong token', async () => {
    const ok = await fetch(
      `${messagingUrl}/v1/channels/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`,
    );
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('1158201444');
    const wrong = await fetch(
      `${messagingUrl}/v1/channels/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`,
    );
    expect(wrong.status).toBe(403);
  });

  test('a delivery unsigned, wrongly signed or altered after signing gets 401 and nothing happens', async () => {
    const owner = await person('owner');
    const delivery = textDelivery({ from: owner.phone, text: 'show all invoices' });
    const body = JSON.stringify(delivery);
    const altered = JSON.stringify(textDelivery({ from: owner.phone, text: 'pay everyone' }));
    const calls = [
      await deliver(delivery, { signature: null }),
      await deliver(delivery, { secret: 'not-the-app-secret' }),
      await deliver(delivery, { signature: 'sha256=' }),
      await fetch(`${messagingUrl}/v1/channels/whatsapp/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWebhook(body, APP_SECRET) },
        body: altered,
      }),
    ];
    expect(calls.map((r) => r.status)).toEqual([401, 401, 401, 401]);
    await new Promise((r) => setTimeout(r, 1500));
    expect(sentTo(owner.phone)).toEqual([]);
    const asked = await sys.db.query(
      `select count(*)::int as n from query_routing_logs where entity_id = $1 and actor_via = 'messaging'`,
      [tenant.entityId],
    );
    expect(asked.rows[0].n).toBe(0);
  });

  test('a status callback is recorded, not answered', async () => {
    const owner = await person('owner');
    const id = `wamid.${randomBytes(12).toString('base64')}`;
    expect((await deliver(statusDelivery({ id, recipient: owner.phone, status: 'delivered' }))).status).toBe(
      200,
    );
    await expect
      .poll(
        async () =>
          (await sys.db.query('select status from messaging_statuses where message_id = $1', [id])).rows,
        {
          timeout: 15_000,
        },
      )
      .toEqual([{ status: 'delivered' }]);
    expect(sentTo(owner.phone)).toEqual([]);
  });
});

describe('who is writing', () => {
  test('an unknown number gets one polite message, and nothing reaches the pipeline', async () => {
    const stranger = newNumber();
    expect((await deliver(textDelivery({ from: stranger, text: 'what is my cash balance?' }))).status).toBe(
      200,
    );
    const [refusal] = await nextTo(stranger, 0);
    expect(textOf(refusal)).toMatch(/not registered/i);
    // Again: no second message (one refusal a day), and no request ever.
    expect((await deliver(textDelivery({ from: stranger, text: 'hello?' }))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2000));
    expect(sentTo(stranger)).toHaveLength(1);
    const asked = await sys.db.query(
      `select count(*)::int as n from query_routing_logs where query like '%cash balance%'`,
    );
    expect(asked.rows[0].n).toBe(0);
  });
});

describe('who is writing, by role', () => {
  test('a viewer can ask, and cannot write: no card, nothing written', async () => {
    const viewer = await person('viewer');
    sys.llm?.script({ match: 'viewer balance', turns: [{ content: 'Cash in bank: ₹4,50,000.00.' }] });
    expect((await deliver(textDelivery({ from: viewer.phone, text: 'viewer balance' }))).status).toBe(200);
    const [answer] = await nextTo(viewer.phone, 0);
    // The model's figure is not in the books: munim's grounding adds a warning after it.
    expect(textOf(answer).startsWith('Cash in bank: ₹4,50,000.00.')).toBe(true);
    const bill = billToPay(5_000);
    expect((await deliver(textDelivery({ from: viewer.phone, text: bill.query }))).status).toBe(200);
    const [refusal] = await nextTo(viewer.phone, 1);
    expect(buttonsOf(refusal)).toEqual([]);
    expect(textOf(refusal)).toMatch(/only read|view/i);
    expect(paymentsSent(bill.reference)).toHaveLength(0);
  });
});

describe('questions in, answers out', () => {
  test('a question is answered through the pipeline, as the person its number names', async () => {
    const owner = await person('owner');
    sys.llm?.script({
      match: 'kitna profit hua',
      turns: [{ content: 'Is saal ka profit **₹12,34,567.00** hai.' }],
    });
    const id = `wamid.${randomBytes(12).toString('base64')}`;
    expect((await deliver(textDelivery({ from: owner.phone, id, text: 'kitna profit hua?' }))).status).toBe(
      200,
    );
    const [answer] = await nextTo(owner.phone, 0);
    // The model's figure is not in the books: munim's grounding adds a warning after it.
    expect(textOf(answer).startsWith('Is saal ka profit *₹12,34,567.00* hai.')).toBe(true);
    const logged = await sys.db.query(
      `select actor_user_id, actor_via from query_routing_logs where query = 'kitna profit hua?'`,
    );
    expect(logged.rows).toEqual([{ actor_user_id: owner.userId, actor_via: 'messaging' }]);

    // The same delivery again (Meta retries): answered once.
    expect((await deliver(textDelivery({ from: owner.phone, id, text: 'kitna profit hua?' }))).status).toBe(
      200,
    );
    await new Promise((r) => setTimeout(r, 2500));
    expect(sentTo(owner.phone)).toHaveLength(1);
  });

  test('one new delivery posted to both instances at once is answered once', async () => {
    const owner = await person('owner');
    sys.llm?.script({ match: 'sales this month', turns: [{ content: 'Sales this month: ₹8,20,000.00.' }] });
    const delivery = textDelivery({ from: owner.phone, text: 'sales this month' });
    const posted = await Promise.all([
      deliver(delivery, { instance: 0 }),
      deliver(delivery, { instance: 1 }),
    ]);
    expect(posted.map((r) => r.status)).toEqual([200, 200]);
    const [answer] = await nextTo(owner.phone, 0);
    // The model's figure is not in the books: munim's grounding adds a warning after it.
    expect(textOf(answer).startsWith('Sales this month: ₹8,20,000.00.')).toBe(true);
    await new Promise((r) => setTimeout(r, 2500));
    expect(sentTo(owner.phone)).toHaveLength(1);
  });

  test('a send the Graph API refuses for its rate limit is retried after Retry-After, and arrives once', async () => {
    const owner = await person('owner');
    sys.llm?.script({ match: 'gst this month', turns: [{ content: 'GST payable: ₹36,000.00.' }] });
    graph.failNext(1, {
      status: 429,
      code: 130429,
      message: 'Rate limit hit',
      retryAfter: 1,
      endpoint: 'messages',
    });
    expect((await deliver(textDelivery({ from: owner.phone, text: 'gst this month' }))).status).toBe(200);
    const [answer] = await nextTo(owner.phone, 0);
    // The model's figure is not in the books: munim's grounding adds a warning after it.
    expect(textOf(answer).startsWith('GST payable: ₹36,000.00.')).toBe(true);
    expect(
      graph.requests.filter((r) => r.endpoint === 'messages' && r.status === 429).length,
    ).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 1500));
    expect(sentTo(owner.phone)).toHaveLength(1);
  });

  test('a long list becomes a short list a phone can read, and the whole list a CSV file', async () => {
    const owner = await person('owner');
    const rows = Array.from(
      { length: 40 },
      (_, i) => `| INV-${1000 + i} | Customer ${i} | ₹${(i + 1) * 1000},00.00 |`,
    ).join('\n');
    sys.llm?.script({
      match: 'list every invoice',
      turns: [{ content: `**Invoices**\n\n| Number | Customer | Amount |\n|---|---|---|\n${rows}` }],
    });
    expect((await deliver(textDelivery({ from: owner.phone, text: 'list every invoice' }))).status).toBe(200);
    const replies = await nextTo(owner.phone, 0, 2);
    const text = textOf(replies[0]);
    expect(text).not.toMatch(/\|---|\| INV/);
    expect(text.split('\n').filter((l) => l.includes('INV-'))).toHaveLength(10);
    expect(text).toMatch(/30 more/);
    expect(replies[1]?.type).toBe('document');
    const upload = graph.uploads.at(-1);
    expect(upload?.filename).toMatch(/\.csv$/);
    expect(
      Buffer.from(upload?.bytes ?? [])
        .toString('utf8')
        .split('\n')
        .filter((l) => l.includes('INV-')),
    ).toHaveLength(40);
  });

  test('a voice note (OGG/Opus) is transcribed by munim’s speech to text and answered', async () => {
    const owner = await person('owner');
    const dir = mkdtempSync(join(tmpdir(), 'munim-voice-note-'));
    execFileSync('espeak-ng', ['-w', join(dir, 'q.wav'), 'show all invoices']);
    execFileSync('opusenc', ['--quiet', join(dir, 'q.wav'), join(dir, 'q.ogg')]);
    const ogg = readFileSync(join(dir, 'q.ogg'));
    expect(ogg.subarray(0, 4).toString()).toBe('OggS');
    sys.llm?.transcribeAs((upload) =>
      Buffer.from(upload.bytes).subarray(0, 4).toString() === 'OggS' ? 'show all invoices' : '',
    );
    sys.llm?.script({ match: 'show all invoices', turns: [{ content: 'You have 12 invoices.' }] });
    const mediaId = graph.addMedia(ogg, 'audio/ogg; codecs=opus');
    expect((await deliver(audioDelivery({ from: owner.phone, mediaId }))).status).toBe(200);
    const replies = await nextTo(owner.phone, 0, 2);
    expect(textOf(replies[0])).toContain('show all invoices');
    expect(textOf(replies[1])).toBe('You have 12 invoices.');
    const heard = sys.llm?.transcriptions.at(-1);
    expect(heard?.mimeType).toBe('audio/ogg');
    expect(heard?.bytes.length).toBe(ogg.length);
  });

  test('a document becomes an attachment of the question', async () => {
    const owner = await person('owner');
    const csv = 'Item,Amount\nCement,45000\nSteel,120000\n';
    sys.llm?.script({ match: 'supplier bill', turns: [{ content: 'The bill totals ₹1,65,000.00.' }] });
    const mediaId = graph.addMedia(csv, 'text/csv');
    expect(
      (
        await deliver(
          documentDelivery({
            from: owner.phone,
            mediaId,
            filename: 'bill.csv',
            mimeType: 'text/csv',
            caption: 'supplier bill',
          }),
        )
      ).status,
    ).toBe(200);
    const [answer] = await nextTo(owner.phone, 0);
    expect(textOf(answer)).toBe('The bill totals ₹1,65,000.00.');
    const stored = await sys.db.query(
      'select filename, entity_id from attachments where entity_id = $1 and filename = $2',
      [tenant.entityId, 'bill.csv'],
    );
    expect(stored.rows).toHaveLength(1);
  });
});

describe('confirmations and approvals by reply', () => {
  test('a payment is confirmed by its button, and runs once', async () => {
    const maker = await person('maker');
    const bill = billToPay(20_000);
    expect((await deliver(textDelivery({ from: maker.phone, text: bill.query }))).status).toBe(200);
    const [card] = await nextTo(maker.phone, 0);
    const buttons = buttonsOf(card);
    expect(buttons.map((b) => b.title)).toEqual(['Confirm', 'Cancel']);
    expect(textOf(card)).not.toMatch(/```|\|---/);
    expect(paymentsSent(bill.reference)).toHaveLength(0);
    const confirm = tap(maker.phone, card, 0);
    expect((await deliver(confirm)).status).toBe(200);
    await nextTo(maker.phone, 1);
    expect(paymentsSent(bill.reference)).toHaveLength(1);
    // The same tap delivered again runs nothing more.
    expect((await deliver(confirm)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2000));
    expect(paymentsSent(bill.reference)).toHaveLength(1);
  });

  test('a “haan” typed instead of tapped confirms the last proposal, and only it', async () => {
    const maker = await person('maker');
    const first = billToPay(7_000);
    expect((await deliver(textDelivery({ from: maker.phone, text: first.query }))).status).toBe(200);
    await nextTo(maker.phone, 0);
    const second = billToPay(8_000);
    expect((await deliver(textDelivery({ from: maker.phone, text: second.query }))).status).toBe(200);
    await nextTo(maker.phone, 1);
    expect((await deliver(textDelivery({ from: maker.phone, text: 'haan' }))).status).toBe(200);
    await nextTo(maker.phone, 2);
    expect(paymentsSent(second.reference)).toHaveLength(1);
    expect(paymentsSent(first.reference)).toHaveLength(0);
  });

  test('a button from an older card never confirms a newer action', async () => {
    const maker = await person('maker');
    const first = billToPay(11_000);
    expect((await deliver(textDelivery({ from: maker.phone, text: first.query }))).status).toBe(200);
    const [oldCard] = await nextTo(maker.phone, 0);
    const second = billToPay(12_000);
    expect((await deliver(textDelivery({ from: maker.phone, text: second.query }))).status).toBe(200);
    await nextTo(maker.phone, 1);
    const oldConfirm = buttonsOf(oldCard)[0];
    expect((await deliver(tap(maker.phone, oldCard, 0))).status).toBe(200);
    const [refusal] = await nextTo(maker.phone, 2);
    expect(textOf(refusal)).toMatch(/older message|nothing was done/i);
    expect(paymentsSent(first.reference)).toHaveLength(0);
    expect(paymentsSent(second.reference)).toHaveLength(0);
    // A button naming the newer action but tapped on the older card is refused as well.
    const forged = tap(maker.phone, oldCard, 0, String(oldConfirm?.id).replace(/:.*/, ':not-this-card'));
    expect((await deliver(forged)).status).toBe(200);
    const [again] = await nextTo(maker.phone, 3);
    expect(textOf(again)).toMatch(/nothing was done/i);
    expect(paymentsSent(second.reference)).toHaveLength(0);
  });

  test('a tier-3 change asks for the typed word, and the word confirms it', async () => {
    const owner = await person('owner');
    const invoice = sys.books.store.invoices.find((i) => i.Status === 'AUTHORISED');
    expect(invoice).toBeDefined();
    const query = `void invoice ${invoice?.InvoiceNumber}`;
    sys.llm?.script({
      match: query,
      turns: [
        { toolCalls: [{ name: 'void_invoice', arguments: { InvoiceId: invoice?.InvoiceId } }] },
        { content: 'Voided.' },
      ],
    });
    expect((await deliver(textDelivery({ from: owner.phone, text: query }))).status).toBe(200);
    const card = (await nextTo(owner.phone, 0, 1)).at(-1);
    const word = /type \*([A-Z0-9-]+)\*/.exec(textOf(card))?.[1];
    expect(word, textOf(card)).toBeDefined();
    expect(buttonsOf(card).map((b) => b.title)).toEqual(['Cancel']);
    const before = sentTo(owner.phone).length;
    expect((await deliver(textDelivery({ from: owner.phone, text: word?.toLowerCase() ?? '' }))).status).toBe(
      200,
    );
    await nextTo(owner.phone, before);
    expect(
      sys.books.calls().filter((c) => c.tool === 'void_invoice' && c.args.InvoiceId === invoice?.InvoiceId),
    ).toHaveLength(1);
  });

  test('a write waiting for another person reaches approvers by phone, and an approver’s button runs it once', async () => {
    const maker = await person('maker');
    const approver = await person('approver');
    // One who never wrote is outside the 24-hour window: with no template configured, nothing is sent to them.
    const silent = await person('approver');
    // The approver wrote today, so the card may be sent to them.
    expect((await deliver(textDelivery({ from: approver.phone, text: 'hi' }))).status).toBe(200);
    sys.llm?.script({ match: 'hi', repeat: true, turns: [{ content: 'Hello!' }] });
    await nextTo(approver.phone, 0);
    const bill = billToPay(2_00_000);
    expect((await deliver(textDelivery({ from: maker.phone, text: bill.query }))).status).toBe(200);
    const [card] = await nextTo(maker.phone, 0);
    expect((await deliver(tap(maker.phone, card, 0))).status).toBe(200);
    const [waiting] = await nextTo(maker.phone, 1);
    expect(textOf(waiting)).toMatch(/approv/i);
    const [approvalCard] = await nextTo(approver.phone, 1);
    expect(buttonsOf(approvalCard).map((b) => b.title)).toEqual(['Approve', 'Reject']);
    expect(textOf(approvalCard)).toMatch(/Approval needed/);
    expect(sentTo(silent.phone)).toEqual([]);
    expect(paymentsSent(bill.reference)).toHaveLength(0);
    // The maker cannot use an approver's card (it is not theirs).
    expect((await deliver(tap(maker.phone, approvalCard, 0))).status).toBe(200);
    await nextTo(maker.phone, 2);
    expect(paymentsSent(bill.reference)).toHaveLength(0);
    expect((await deliver(tap(approver.phone, approvalCard, 0))).status).toBe(200);
    await nextTo(approver.phone, 2);
    expect(paymentsSent(bill.reference)).toHaveLength(1);
    // The maker, who asked from WhatsApp, is told what it came to.
    const [news] = await nextTo(maker.phone, 3);
    expect(textOf(news)).toMatch(/^Update on your request:/);
  });
});
