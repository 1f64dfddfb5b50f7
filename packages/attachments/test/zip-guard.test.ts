// Zip-based uploads are checked before any parser decompresses them: by their
// central directory in the service, then by decompressing without keeping in the extraction worker,
// so neither an honest nor a lying zip bomb reaches SheetJS or mammoth; and extractions run a few
// at a time per process.
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import {
  ArchiveRefusedError,
  checkZip,
  ExtractionBusyError,
  ExtractionSlots,
  extractInWorker,
  isZip,
  verifyZip,
} from '../src/index.ts';
import { makeDocx, makeXlsx, makeZipBomb } from '../src/testing.ts';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** The refusal `promise` rejects with. */
async function refusal(promise: Promise<unknown>): Promise<ArchiveRefusedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ArchiveRefusedError);
  return error as ArchiveRefusedError;
}

describe('the central directory check', () => {
  it('refuses XLSX- and DOCX-shaped bombs that expand to gigabytes, naming the limit', async () => {
    for (const shape of ['xlsx', 'docx'] as const) {
      const bomb = makeZipBomb({ shape });
      expect(bomb.bytes.length).toBeLessThan(3 * 1024 * 1024);
      expect(isZip(bomb.bytes)).toBe(true);
      const error = await refusal(checkZip(bomb.bytes));
      expect(error.reason).toBe('size');
      expect(error.message).toBe('the archive expands to 2.0 GB when decompressed; the limit is 50 MB');
    }
  });

  it('refuses an entry compressed beyond any real document, under the size limit', async () => {
    const bomb = makeZipBomb({ entries: 1, entryMib: 8 });
    const error = await refusal(checkZip(bomb.bytes));
    expect(error.reason).toBe('ratio');
    expect(error.message).toMatch(
      /^xl\/worksheets\/sheet1\.xml in the archive is compressed \d+ times; the limit is 100 times$/,
    );
    await expect(
      checkZip(bomb.bytes, { maxUncompressedBytes: 50 * 1024 * 1024, maxRatio: 2000, maxEntries: 10 }),
    ).resolves.toBeUndefined();
  });

  it('refuses too many entries, and an archive it cannot read', async () => {
    const many = zipSync(
      Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}.xml`, new Uint8Array([i])])),
    );
    const error = await refusal(
      checkZip(many, { maxUncompressedBytes: 1024, maxRatio: 100, maxEntries: 20 }),
    );
    expect(error).toMatchObject({
      reason: 'entries',
      message: 'the archive holds 30 entries; the limit is 20',
    });

    const junk = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(500, 7)]);
    expect((await refusal(checkZip(junk))).reason).toBe('unreadable');
  });

  it('lets real XLSX and DOCX files through, and they are still read', async () => {
    for (const [file, type, text] of [
      [await makeXlsx(), XLSX_TYPE, 'INV-9002 | Globex Traders'],
      [await makeDocx(['Service agreement with Acme Corp']), DOCX_TYPE, 'Service agreement'],
    ] as const) {
      await expect(checkZip(file.bytes)).resolves.toBeUndefined();
      await expect(verifyZip(file.bytes)).resolves.toBeUndefined();
      const extraction = await extractInWorker(file.bytes, type);
      expect(extraction.status, file.name).toBe('done');
      expect(extraction.text).toContain(text);
    }
  });
});

describe('the check of real sizes in the worker', () => {
  it('stops an archive that declares less than it expands to, before the parser gets it', async () => {
    // 1 GiB of zeros declared as 1000 bytes: the central directory check believes it.
    const liar = makeZipBomb({ shape: 'docx', entries: 1, declaredBytes: 1000 });
    await expect(checkZip(liar.bytes)).resolves.toBeUndefined();
    const error = await refusal(verifyZip(liar.bytes));
    expect(error).toMatchObject({
      reason: 'size',
      message: 'word/document.xml in the archive expands to more than the 1000 bytes it declares',
    });
    const inWorker = await refusal(extractInWorker(liar.bytes, DOCX_TYPE));
    expect(inWorker.reason).toBe('size');
  });

  it('stops at the total limit when every entry tells the truth about a size the check never saw', async () => {
    const bomb = makeZipBomb({ entries: 3, entryMib: 1 });
    const error = await refusal(
      verifyZip(bomb.bytes, { maxUncompressedBytes: 2 * 1024 * 1024, maxRatio: 100, maxEntries: 10 }),
    );
    expect(error.reason).toBe('size');
    expect(error.message).toMatch(
      /^the archive expands to more than 2(\.\d)? MB when decompressed; the limit is 2 MB$/,
    );
  });
});

describe('extraction slots', () => {
  const deferred = () => Promise.withResolvers<void>();

  it('runs at most `concurrency` tasks at once, the next ones in order as slots free up', async () => {
    const slots = new ExtractionSlots({ concurrency: 2, maxWaitMs: 60_000 });
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      slots.run(async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect([slots.running, slots.waiting]).toEqual([2, 2]);
    gates[1]?.resolve();
    await expect(runs[1]).resolves.toBe(1);
    expect(started).toEqual([0, 1, 2]);
    for (const gate of gates) gate.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect([slots.running, slots.waiting]).toEqual([0, 0]);
  });

  it('refuses a task that waited too long, and one that finds the queue full', async () => {
    const slots = new ExtractionSlots({ concurrency: 1, maxWaitMs: 50, maxQueue: 1 });
    const gate = deferred();
    const running = slots.run(() => gate.promise);
    const waited = slots.run(async () => 'never');
    const full = slots.run(async () => 'never');
    await expect(full).rejects.toBeInstanceOf(ExtractionBusyError);
    const busy = await waited.catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(ExtractionBusyError);
    expect((busy as ExtractionBusyError).retryAfterSeconds).toBe(1);
    expect(slots.waiting).toBe(0);
    gate.resolve();
    await running;
    // A task that failed frees its slot too.
    await expect(slots.run(() => Promise.reject(new Error('parser broke')))).rejects.toThrow('parser broke');
    await expect(slots.run(async () => 'ran')).resolves.toBe('ran');
  });
});
