import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LinkSigner } from '@munim/attachments';
import {
  makeCsv,
  makeDisguisedExe,
  makePng,
  makeText,
  makeXlsx,
  type SampleFile,
  samplesOfEveryType,
  startTestS3,
  type TestS3,
} from '@munim/attachments/testing';
import type { Attachment } from '@munim/contracts';
import type { Database } from '@munim/db';
import { test } from '@munim/testkit';
import type { Kysely } from 'kysely';
import { afterAll, describe, expect } from 'vitest';
import { loadEnv } from '../src/env.ts';
import {
  connectedOf,
  type GatewayTestbed,
  gatewayTestbed,
  insertConversation,
  postQuery,
  readSse,
} from './helpers.ts';
import { download, form } from './uploads.ts';

const SIGNING_KEY = 's'.repeat(40);
const KEY_A = 'attach-key-a-0123456789abcdef';
const KEY_B = 'attach-key-b-0123456789abcdef';
const A = { entityId: 'ent-att-a', orgId: 'org-att-a' };
let bed: GatewayTestbed;
let db: Kysely<Database>;
let dir: string;
let open: { url: string };
let authed: { url: string };
let onS3: { url: string };
let s3: TestS3;
let backend: GatewayTestbed['backend'];

test.beforeAll(async ({ nats, db: fileDb }) => {
  bed = await gatewayTestbed({ nats, db: fileDb }, () => 'Read it.');
  ({ db, backend } = bed);
  dir = mkdtempSync(join(tmpdir(), 'munim-gw-att-'));
  s3 = await startTestS3();
  const local = { ATTACHMENTS_DIR: dir, ATTACHMENTS_SIGNING_KEY: SIGNING_KEY };
  open = await bed.startGateway(local);
  authed = await bed.startGateway({
    ...local,
    GATEWAY_API_KEYS: `${KEY_A}:${A.entityId}:${A.orgId},${KEY_B}:ent-att-b:org-att-b`,
  });
  onS3 = await bed.startGateway(s3.env);
});

afterAll(async () => {
  try {
    await bed?.close();
  } finally {
    await s3?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
});

async function upload(
  base: string,
  file: (SampleFile & { declared?: string }) | undefined,
  fields: Record<string, string> = A,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${base}/v1/attachments`, { method: 'POST', body: form(fields, file), headers });
  return {
    status: res.status,
    body: (await res.json()) as Attachment & { error: { field?: string; message: string } },
  };
}

async function rowCount() {
  const row = await db
    .selectFrom('attachments')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('POST /v1/attachments', () => {
  test('takes every accepted type, reads it, suggests a message and signs a link to the same bytes', async () => {
    // What is read from each sample (by file name) and the message suggested for it.
    const read: Record<string, { text?: string; suggested: string }> = {
      'invoice-7781.pdf': {
        text: 'Tax invoice INV-7781',
        suggested: 'Read the invoice in invoice-7781.pdf and record it?',
      },
      'sales.xlsx': {
        text: 'INV-9002 | Globex Traders | 2026-04-03 | 8300',
        suggested: 'Review the 3 rows in sales.xlsx and record them as invoices?',
      },
      'legacy.xls': {
        text: 'INV-9003 | Initech Supplies',
        suggested: 'Review the 3 rows in legacy.xls and record them as invoices?',
      },
      'contract.docx': { text: 'Service agreement with Acme Corp', suggested: 'Summarise contract.docx?' },
      'payments.csv': {
        text: 'INV-9001 | Acme Corp',
        suggested: 'Review the 3 rows in payments.csv and record them as invoices?',
      },
      'notes.txt': {
        text: 'Call Acme about the April payment',
        suggested: 'Read the payment in notes.txt and record it?',
      },
      'receipt.png': { suggested: 'What does this receipt show?' },
      'photo.jpg': { suggested: 'What does this image show?' },
      'pixel.gif': { suggested: 'What does this image show?' },
      'pixel.webp': { suggested: 'What does this image show?' },
    };
    const files = await samplesOfEveryType();
    expect(files.map((f) => f.file.name).sort()).toEqual(Object.keys(read).sort());
    for (const { file, category } of files) {
      const { text, suggested } = read[file.name] as { text?: string; suggested: string };
      const { status, body } = await upload(open.url, file);
      expect(status, `${file.name}: ${JSON.stringify(body)}`).toBe(201);
      expect(body).toMatchObject({
        filename: file.name,
        mimeType: file.type,
        category,
        sizeBytes: file.bytes.length,
        conversationId: null,
        suggestedMessage: suggested,
      });
      expect(body.extracted.status).toBe(text ? 'done' : 'skipped');
      if (text) expect(body.extracted.preview).toContain(text);
      const expires = Date.parse(body.expiresAt) - Date.now();
      expect(expires).toBeGreaterThan(3590_000);
      expect(expires).toBeLessThanOrEqual(3600_000);
      expect(body.url).toMatch(new RegExp(`^/v1/attachments/${body.id}/content\\?exp=\\d+&sig=`));
      const { res, bytes } = await download(open.url, body.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain(file.type);
      expect(res.headers.get('content-disposition')).toContain(`filename="${file.name}"`);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.compare(bytes, file.bytes)).toBe(0);
    }
    // Stored on local disk under the configured directory.
    expect(readdirSync(dir).length).toBeGreaterThan(0);
    const rows = await db.selectFrom('attachments').selectAll().where('entity_id', '=', A.entityId).execute();
    expect(rows).toHaveLength(files.length);
    for (const row of rows) {
      expect(row.storage).toBe('local');
      expect(row.org_id).toBe(A.orgId);
      expect(row.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  test('refuses a link that expired or was tampered with', async () => {
    const { body } = await upload(open.url, makeText('secret plans'));
    const past = Math.floor(Date.now() / 1000) - 5;
    const expired = `/v1/attachments/${body.id}/content?exp=${past}&sig=${new LinkSigner(SIGNING_KEY).sign(body.id, past)}`;
    const gone = await download(open.url, expired);
    expect(gone.res.status).toBe(403);
    expect(JSON.parse(gone.bytes.toString())).toMatchObject({ error: { code: 'FORBIDDEN', field: 'exp' } });
    const later = body.url.replace(/exp=(\d+)/, (_m, exp: string) => `exp=${Number(exp) + 3600}`);
    const forged = await download(open.url, later);
    expect(forged.res.status).toBe(403);
    expect(JSON.parse(forged.bytes.toString())).toMatchObject({ error: { field: 'sig' } });
    const otherFile = await upload(open.url, makeText('other'));
    const swapped = body.url.replace(body.id, otherFile.body.id);
    expect((await download(open.url, swapped)).res.status).toBe(403);
    // Signed by another gateway's key: refused.
    const foreign = `/v1/attachments/${body.id}/content?exp=${past + 600}&sig=${new LinkSigner('x'.repeat(40)).sign(body.id, past + 600)}`;
    expect((await download(open.url, foreign)).res.status).toBe(403);
    expect((await download(open.url, `/v1/attachments/${body.id}/content`)).res.status).toBe(400);
  });

  test('refuses what it cannot take with a clear 4xx naming the field, and keeps nothing', async () => {
    const before = await rowCount();
    const files = readdirSync(dir, { recursive: true }).length;
    const png = makePng();
    const cases: [
      (SampleFile & { declared?: string }) | undefined,
      Record<string, string>,
      number,
      string,
      RegExp,
    ][] = [
      [makeDisguisedExe('invoice.pdf'), A, 415, 'file', /application\/x-msdownload/],
      [makeDisguisedExe('report.txt'), A, 415, 'file', /not an accepted type/],
      [
        { ...png, declared: 'application/pdf', name: 'scan.pdf' },
        A,
        415,
        'file',
        /declared as application\/pdf/,
      ],
      [
        { bytes: Buffer.from('504b03040a0000000000', 'hex'), name: 'x.xlsx', type: 'application/zip' },
        A,
        415,
        'file',
        /application\/zip/,
      ],
      [undefined, A, 400, 'file', /a file is required/],
      [makeText('x'), { orgId: A.orgId }, 400, 'entityId', /entityId: is required/],
      [makeText('x'), { ...A, color: 'red' }, 400, 'color', /not a known field/],
      [makeText('x'), { ...A, conversationId: 'bad id!' }, 400, 'conversationId', /only letters/],
    ];
    for (const [file, fields, status, field, message] of cases) {
      const { status: got, body } = await upload(open.url, file, fields);
      expect(got, JSON.stringify(body)).toBe(status);
      expect(body.error.field).toBe(field);
      expect(body.error.message).toMatch(message);
    }
    expect(await rowCount()).toBe(before);
    expect(readdirSync(dir, { recursive: true }).length).toBe(files);
  });

  test('refuses a file over 20 MB with 413, before storing anything', async () => {
    expect(loadEnv({}).ATTACHMENTS_MAX_BYTES).toBe(20 * 1024 * 1024);
    const before = await rowCount();
    const big = makeText('a'.repeat(20 * 1024 * 1024 + 1), 'big.txt');
    const { status, body } = await upload(open.url, big);
    expect(status).toBe(413);
    expect(body.error).toMatchObject({ field: 'file', message: 'file: larger than 20 MB' });
    const exact = makeText('b'.repeat(20 * 1024 * 1024), 'exact.txt');
    expect((await upload(open.url, exact)).status).toBe(201);
    expect(await rowCount()).toBe(before + 1);
  });

  test('scopes attachments to the tenant of the credentials: others get 404, a foreign conversation too', async () => {
    const auth = (key: string) => ({ authorization: `Bearer ${key}` });
    const mine = await upload(authed.url, makeCsv(), {}, auth(KEY_A));
    expect(mine.status).toBe(201);
    const row = await db
      .selectFrom('attachments')
      .selectAll()
      .where('id', '=', mine.body.id)
      .executeTakeFirst();
    expect(row).toMatchObject({ entity_id: A.entityId, org_id: A.orgId });
    // Acting for another tenant than the key's: 403 naming the field.
    const other = await upload(
      authed.url,
      makeCsv(),
      { entityId: 'ent-att-b', orgId: 'org-att-b' },
      auth(KEY_A),
    );
    expect(other.status).toBe(403);
    expect(other.body.error.field).toBe('entityId');
    expect(
      (await fetch(`${authed.url}/v1/attachments`, { method: 'POST', body: form({}, makeCsv()) })).status,
    ).toBe(401);

    const get = (key: string, id = mine.body.id) =>
      fetch(`${authed.url}/v1/attachments/${id}`, { headers: auth(key) });
    const own = await get(KEY_A);
    expect(own.status).toBe(200);
    const view = (await own.json()) as Attachment;
    expect(view).toMatchObject({ id: mine.body.id, filename: 'payments.csv', category: 'spreadsheet' });
    expect(Buffer.compare((await download(authed.url, view.url)).bytes, makeCsv().bytes)).toBe(0);
    const theirs = await get(KEY_B);
    expect(theirs.status).toBe(404);
    expect(await theirs.json()).toMatchObject({ error: { code: 'NOT_FOUND', field: 'attachmentId' } });
    expect((await get(KEY_A, randomUUID())).status).toBe(404);
    expect((await get(KEY_A, 'not-a-uuid')).status).toBe(400);
    expect(
      (
        await fetch(`${authed.url}/v1/attachments/${mine.body.id}`, {
          method: 'DELETE',
          headers: auth(KEY_B),
        })
      ).status,
    ).toBe(404);

    const foreign = randomUUID();
    await insertConversation(db, { id: foreign, entityId: 'ent-att-b', orgId: 'org-att-b', chatNumber: 1 });
    const into = await upload(authed.url, makeCsv(), { conversationId: foreign }, auth(KEY_A));
    expect(into.status).toBe(404);
    expect(into.body.error.field).toBe('conversationId');
  });

  test('deletes the record and the stored file', async () => {
    const { body } = await upload(open.url, makeText('to be deleted'));
    expect(readdirSync(join(dir, body.id.slice(0, 2)))).toContain(body.id);
    const res = await fetch(`${open.url}/v1/attachments/${body.id}?entityId=${A.entityId}&orgId=${A.orgId}`, {
      method: 'DELETE',
    });
    expect(res.status).toBe(204);
    expect(readdirSync(join(dir, body.id.slice(0, 2)))).not.toContain(body.id);
    expect(
      (await fetch(`${open.url}/v1/attachments/${body.id}?entityId=${A.entityId}&orgId=${A.orgId}`)).status,
    ).toBe(404);
    expect((await download(open.url, body.url)).res.status).toBe(404);
  });

  test('answers 503 when the storage cannot be written or read, and records nothing', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'munim-gw-att-broken-'));
    const blocker = join(elsewhere, 'not-a-directory');
    writeFileSync(blocker, '');
    const broken = await bed.startGateway({ ATTACHMENTS_DIR: join(blocker, 'files') });
    const before = await rowCount();
    const { status, body } = await upload(broken.url, makeText('nowhere to go'));
    expect(status).toBe(503);
    expect(body.error).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringMatching(/storage/),
    });
    expect(await rowCount()).toBe(before);
    rmSync(elsewhere, { recursive: true, force: true });

    const stored = await upload(open.url, makeText('then lost'));
    rmSync(join(dir, stored.body.id.slice(0, 2), stored.body.id));
    const lost = await download(open.url, stored.body.url);
    expect(lost.res.status).toBe(503);
    expect(JSON.parse(lost.bytes.toString())).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE' } });
  });

  test('stores in an S3-compatible bucket when configured, with presigned links', async () => {
    const file = await makeXlsx();
    const { status, body } = await upload(onS3.url, file);
    expect(status).toBe(201);
    expect(body.extracted.preview).toContain('INV-9001 | Acme Corp');
    expect(body.url).toContain(`${s3.endpoint}/${s3.bucket}/${body.id.slice(0, 2)}/${body.id}?`);
    expect(body.url).toContain('X-Amz-Expires=3600');
    expect(await s3.keys()).toContain(`${body.id.slice(0, 2)}/${body.id}`);
    const res = await fetch(body.url);
    expect(res.status).toBe(200);
    expect(Buffer.compare(Buffer.from(await res.arrayBuffer()), file.bytes)).toBe(0);
    const row = await db
      .selectFrom('attachments')
      .select(['storage'])
      .where('id', '=', body.id)
      .executeTakeFirst();
    expect(row?.storage).toBe('s3');
    // Nothing was written to local disk by this gateway.
    expect(readdirSync(dir, { recursive: true })).not.toContain(`${body.id.slice(0, 2)}/${body.id}`);
    const del = await fetch(`${onS3.url}/v1/attachments/${body.id}?entityId=${A.entityId}&orgId=${A.orgId}`, {
      method: 'DELETE',
    });
    expect(del.status).toBe(204);
    expect(await s3.keys()).not.toContain(`${body.id.slice(0, 2)}/${body.id}`);
  });
});

describe('POST /v1/query with attachmentIds', () => {
  test('passes the checked ids on and binds unscoped files to the conversation', async () => {
    const { body: file } = await upload(open.url, await makeXlsx());
    const res = await postQuery(open.url, { query: 'record these', ...A, attachmentIds: [file.id] });
    expect(res.status).toBe(200);
    const { events } = await readSse(res);
    const { requestId, conversationId } = connectedOf(events);
    expect(events.at(-1)?.event).toBe('complete');
    const received = backend.received.find((r) => r.message.requestId === requestId);
    expect(received?.message.data.attachmentIds).toEqual([file.id]);
    const row = await db
      .selectFrom('attachments')
      .select(['conversation_id'])
      .where('id', '=', file.id)
      .executeTakeFirst();
    expect(row?.conversation_id).toBe(conversationId);

    // Now it belongs to that conversation: another one may not use it.
    const elsewhere = await postQuery(open.url, { query: 'and again', ...A, attachmentIds: [file.id] });
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.json()).toMatchObject({ error: { field: 'attachmentIds' } });
    const same = await postQuery(open.url, {
      query: 'and again',
      ...A,
      conversationId,
      attachmentIds: [file.id],
    });
    expect(same.status).toBe(200);
    await readSse(same);
  });

  test('refuses ids that are unknown, another tenant’s, malformed or too many, and submits nothing', async () => {
    const { body: theirs } = await upload(open.url, makeCsv(), { entityId: 'ent-z', orgId: 'org-z' });
    const submitted = backend.received.length;
    const cases: [unknown, number, RegExp][] = [
      [[randomUUID()], 404, /no attachment/],
      [[theirs.id], 404, /no attachment/],
      [['nope'], 400, /attachment id/],
      [[], 400, /at least one/],
      [Array.from({ length: 6 }, () => randomUUID()), 400, /at most 5/],
    ];
    for (const [attachmentIds, status, message] of cases) {
      const res = await postQuery(open.url, { query: 'read it', ...A, attachmentIds });
      expect(res.status, JSON.stringify(attachmentIds)).toBe(status);
      const body = (await res.json()) as { error: { field: string; message: string } };
      expect(body.error.field.startsWith('attachmentIds')).toBe(true);
      expect(body.error.message).toMatch(message);
    }
    expect(backend.received.length).toBe(submitted);
  });
});
