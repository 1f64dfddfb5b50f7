import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ATTACHMENT_TYPES } from '@munim/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AttachmentsEnvSchema,
  createStorage,
  detectType,
  extractInWorker,
  InvalidKeyError,
  LinkSigner,
  LocalStorage,
  S3Storage,
  StorageError,
  storageKey,
  suggestMessage,
  UnsupportedTypeError,
} from '../src/index.ts';
import {
  makeCsv,
  makeDisguisedExe,
  makeDocx,
  makePdf,
  makePng,
  makeText,
  makeXls,
  makeXlsx,
  samplesOfEveryType,
  startTestS3,
  type TestS3,
} from '../src/testing.ts';

describe('detectType: by content, not by the client’s word', () => {
  it('recognises every accepted type', async () => {
    const samples = await samplesOfEveryType();
    expect(new Set(samples.map((s) => s.mimeType))).toEqual(new Set(Object.keys(ATTACHMENT_TYPES)));
    for (const { file, mimeType, category } of samples) {
      expect(await detectType(file.bytes, file.type, file.name), file.name).toEqual({ mimeType, category });
      // A client that says nothing specific gets the same answer.
      expect((await detectType(file.bytes, 'application/octet-stream', file.name)).mimeType).toBe(mimeType);
    }
  });

  it('refuses content of another type, whatever it is called', async () => {
    const exe = makeDisguisedExe('invoice.pdf');
    await expect(detectType(exe.bytes, 'application/pdf', exe.name)).rejects.toThrow(UnsupportedTypeError);
    await expect(detectType(exe.bytes, 'application/pdf', exe.name)).rejects.toThrow(
      /application\/x-msdownload/,
    );
    const zip = Buffer.from('504b0304140000000000', 'hex');
    await expect(detectType(zip, 'text/csv', 'data.csv')).rejects.toThrow(UnsupportedTypeError);
    await expect(detectType(Buffer.from([0, 1, 2, 3, 255]), 'text/plain', 'x.txt')).rejects.toThrow(
      /not of an accepted type/,
    );
  });

  it('refuses a file whose content contradicts its declared type', async () => {
    const png = makePng();
    await expect(detectType(png.bytes, 'application/pdf', 'scan.pdf')).rejects.toThrow(
      'declared as application/pdf but the content is image/png',
    );
    const csv = makeCsv();
    await expect(detectType(csv.bytes, 'image/png', 'x.png')).rejects.toThrow(/declared as image\/png/);
    // Windows browsers send CSV as application/vnd.ms-excel.
    expect((await detectType(csv.bytes, 'application/vnd.ms-excel', 'x.csv')).mimeType).toBe('text/csv');
  });
});

describe('extraction with the types’ parsers, in a bounded worker', () => {
  it('reads a PDF’s text per page', async () => {
    const pdf = await makePdf(['Bank statement April 2026', 'Closing balance 48200']);
    const result = await extractInWorker(pdf.bytes, 'application/pdf');
    expect(result.status).toBe('done');
    expect(result.text).toContain('[Page 1]');
    expect(result.text).toContain('Bank statement April 2026');
    expect(result.text).toContain('Closing balance 48200');
    expect(result.details.pages).toBe(1);
  });

  it('renders XLSX, XLS and CSV as compact tables with their row counts', async () => {
    for (const file of [await makeXlsx(), makeXls(), makeCsv()]) {
      const type = await detectType(file.bytes, file.type, file.name);
      const result = await extractInWorker(file.bytes, type.mimeType);
      expect(result.status, file.name).toBe('done');
      expect(result.details.rows, file.name).toBe(3);
      expect(result.details.columns).toEqual(['Invoice', 'Customer', 'Date', 'Amount']);
      expect(result.text).toContain('3 data rows; columns: Invoice | Customer | Date | Amount');
      expect(result.text).toContain('INV-9002 | Globex Traders | 2026-04-03 | 8300');
      expect(result.text).toContain('INV-9003 | Initech Supplies');
    }
  });

  it('caps rows and characters, saying so', async () => {
    const rows = [['Invoice', 'Amount'], ...Array.from({ length: 50 }, (_, i) => [`INV-${i}`, i * 10])];
    const file = await makeXlsx(rows, 'many.xlsx');
    const result = await extractInWorker(
      file.bytes,
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      {
        maxChars: 100_000,
        maxRows: 10,
        maxPages: 1,
      },
    );
    expect(result.details).toMatchObject({ rows: 50, truncated: true });
    expect(result.text).toContain('INV-9');
    expect(result.text).not.toContain('INV-10 ');
    expect(result.text).toContain('… 40 more rows not shown');
    const long = makeText('lorem ipsum '.repeat(1000));
    const cut = await extractInWorker(long.bytes, 'text/plain', { maxChars: 1000, maxRows: 10, maxPages: 1 });
    expect(cut.details.truncated).toBe(true);
    expect(cut.text?.length).toBeLessThan(1100);
  });

  it('reads a DOCX’s paragraphs and tables, and plain text as it is', async () => {
    const docx = await makeDocx(['Service agreement with Acme Corp', 'Fee payable monthly']);
    const result = await extractInWorker(
      docx.bytes,
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    expect(result.status).toBe('done');
    expect(result.text).toContain('Service agreement with Acme Corp');
    expect(result.text).toContain('Consulting');
    const txt = await extractInWorker(makeText('\uFEFFPay Acme 5000 on Friday').bytes, 'text/plain');
    expect(txt.text).toBe('Pay Acme 5000 on Friday');
  });

  it('records a failure instead of throwing: a broken file, a timeout', async () => {
    const broken = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 0x41)]);
    const result = await extractInWorker(broken, 'application/pdf');
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^could not read the file/);
    const big = await makeXlsx(
      [['A'], ...Array.from({ length: 20_000 }, (_, i) => [`row ${i}`])],
      'big.xlsx',
    );
    const slow = await extractInWorker(
      big.bytes,
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      undefined,
      {
        timeoutMs: 5,
        maxMemoryMb: 256,
      },
    );
    expect(slow).toMatchObject({ status: 'failed', error: 'could not read the file within 0 s' });
  });

  it('skips images: they go to the model as images', async () => {
    expect((await extractInWorker(makePng().bytes, 'image/png')).status).toBe('skipped');
  });
});

describe('suggested messages', () => {
  it('follow the category and content', () => {
    const base = { status: 'done' as const, text: '' };
    expect(
      suggestMessage({
        ...base,
        filename: 'sales.xlsx',
        category: 'spreadsheet',
        details: { rows: 12, columns: ['Invoice No', 'Amount'] },
      }),
    ).toBe('Review the 12 rows in sales.xlsx and record them as invoices?');
    expect(
      suggestMessage({
        ...base,
        filename: 'data.csv',
        category: 'spreadsheet',
        details: { rows: 1, columns: ['a'] },
      }),
    ).toBe('Summarise the 1 row in data.csv?');
    expect(
      suggestMessage({
        ...base,
        filename: 'receipt.png',
        category: 'image',
        status: 'skipped',
        text: null,
        details: {},
      }),
    ).toBe('What does this receipt show?');
    expect(
      suggestMessage({
        ...base,
        filename: 'IMG_1.jpg',
        category: 'image',
        status: 'skipped',
        text: null,
        details: {},
      }),
    ).toBe('What does this image show?');
    expect(
      suggestMessage({
        ...base,
        filename: 'april.pdf',
        category: 'pdf',
        text: 'Bank Statement for April',
        details: {},
      }),
    ).toBe('Reconcile the statement in april.pdf with my books?');
    expect(
      suggestMessage({
        ...base,
        filename: 'x.pdf',
        category: 'pdf',
        status: 'failed',
        text: null,
        details: {},
      }),
    ).toBe("I couldn't read x.pdf. What would you like me to do with it?");
    expect(
      suggestMessage({ ...base, filename: 'notes.txt', category: 'document', text: 'hello', details: {} }),
    ).toBe('Summarise notes.txt?');
  });
});

describe('signed links', () => {
  it('verify the id and expiry they were made for, and nothing else', () => {
    const signer = new LinkSigner('k'.repeat(32));
    const exp = Math.floor(Date.now() / 1000) + 60;
    const sig = signer.sign('a', exp);
    expect(sig).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signer.verify('a', exp, sig)).toBe('ok');
    expect(signer.verify('b', exp, sig)).toBe('invalid');
    expect(signer.verify('a', exp + 1, sig)).toBe('invalid');
    expect(
      signer.verify(
        'a',
        exp,
        `${sig.slice(0, -1)}A` === sig ? `${sig.slice(0, -1)}B` : `${sig.slice(0, -1)}A`,
      ),
    ).toBe('invalid');
    expect(signer.verify('a', exp, sig, (exp + 1) * 1000)).toBe('expired');
    expect(new LinkSigner('j'.repeat(32)).verify('a', exp, sig)).toBe('invalid');
  });
});

describe('local storage', () => {
  const dir = mkdtempSync(join(tmpdir(), 'munim-att-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps, returns and deletes bytes under its directory only', async () => {
    const storage = new LocalStorage(dir);
    const key = storageKey('0f8c3a4e-1111-4222-8333-944455556666');
    expect(key).toBe('0f/0f8c3a4e-1111-4222-8333-944455556666');
    await storage.put(key, Buffer.from('hello'));
    expect((await storage.get(key)).toString()).toBe('hello');
    await storage.delete(key);
    await expect(storage.get(key)).rejects.toThrow(StorageError);
    await expect(storage.put('../etc/passwd', Buffer.from('x'))).rejects.toThrow(InvalidKeyError);
    expect(await storage.presignedUrl()).toBeNull();
  });
});

describe('S3-compatible storage through the AWS SDK (a real S3 server on loopback)', () => {
  let s3: TestS3;

  beforeAll(async () => {
    s3 = await startTestS3('munim-test');
  });
  afterAll(async () => {
    await s3?.close();
  });

  it('stores, reads, presigns and deletes', async () => {
    const env = AttachmentsEnvSchema.parse({
      ...s3.env,
      ATTACHMENTS_S3_PREFIX: 'tenant-files',
    });
    const storage = createStorage(env);
    expect(storage).toBeInstanceOf(S3Storage);
    const pdf = await makePdf(['stored in s3']);
    const key = storageKey('ab3c3a4e-1111-4222-8333-944455556666');
    await storage.put(key, pdf.bytes, 'application/pdf');
    expect(Buffer.compare(await storage.get(key), pdf.bytes)).toBe(0);
    // The object is where the prefix says, as seen over the S3 protocol itself.
    expect(await s3.keys('tenant-files/')).toEqual([`tenant-files/${key}`]);

    const url = await storage.presignedUrl(
      { key, mimeType: 'application/pdf', filename: 'Q1 report ₹.pdf' },
      3600,
    );
    expect(url).toContain('X-Amz-Signature=');
    expect(url).toContain('X-Amz-Expires=3600');
    const res = await fetch(url!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="Q1 report _.pdf"');
    expect(Buffer.compare(Buffer.from(await res.arrayBuffer()), pdf.bytes)).toBe(0);
    const tampered = url!.replace(
      /X-Amz-Signature=([0-9a-f])/,
      (_m, c: string) => `X-Amz-Signature=${c === '0' ? '1' : '0'}`,
    );
    expect((await fetch(tampered)).status).toBe(403);

    await storage.delete(key);
    await expect(storage.get(key)).rejects.toThrow(StorageError);
  });

  it('signs links for the address browsers use when it differs from the service’s', async () => {
    const publicEndpoint = s3.endpoint.replace('127.0.0.1', 'localhost');
    const storage = createStorage(
      AttachmentsEnvSchema.parse({ ...s3.env, ATTACHMENTS_S3_PUBLIC_ENDPOINT: publicEndpoint }),
    );
    const key = storageKey('cd3c3a4e-1111-4222-8333-944455556666');
    await storage.put(key, Buffer.from('hello'), 'text/plain');
    const url = await storage.presignedUrl({ key, mimeType: 'text/plain', filename: 'a.txt' }, 60);
    expect(url?.startsWith(`${publicEndpoint}/munim-test/${key}?`)).toBe(true);
    const res = await fetch(url!);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello');
  });
});
