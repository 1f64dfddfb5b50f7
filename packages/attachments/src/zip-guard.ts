import { Buffer } from 'node:buffer';
import type { Readable } from 'node:stream';
import { type Entry, fromBufferPromise, type ZipFile } from 'yauzl';
import { ArchiveRefusedError } from './errors.ts';

/** What a zip-based upload (XLSX, DOCX) may hold; checked before any parser decompresses it. */
export interface ZipLimits {
  /** Total size of the entries once decompressed. */
  maxUncompressedBytes: number;
  /** Decompressed size over compressed size of one entry (of at least a megabyte). */
  maxRatio: number;
  /** Entries in the archive. */
  maxEntries: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxUncompressedBytes: 50 * 1024 * 1024,
  maxRatio: 100,
  maxEntries: 10_000,
};

/** Smaller entries may compress as much as they like: a sheet of repeated empty cells does, and costs nothing. */
const RATIO_FLOOR_BYTES = 1024 * 1024;

/** A size as a refusal says it: `1000 bytes`, `12 KB`, `50 MB`, `2.0 GB`. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  const mb = bytes / 1024 / 1024;
  return mb >= 1024 ? `${(mb / 1024).toFixed(1)} GB` : `${Math.round(mb * 10) / 10} MB`;
}

/** A zip archive by its first bytes (a local file header, or the end record of an empty archive). */
export function isZip(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 4 &&
    bytes[0] === 0x50 &&
    bytes[1] === 0x4b &&
    ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6))
  );
}

const unreadable = (error: unknown) =>
  new ArchiveRefusedError(
    'unreadable',
    `the archive cannot be read (${error instanceof Error ? error.message.slice(0, 200) : String(error)})`,
    { cause: error },
  );

async function open(bytes: Uint8Array): Promise<ZipFile> {
  try {
    return await fromBufferPromise(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
      lazyEntries: true,
      validateEntrySizes: true,
    });
  } catch (error) {
    throw unreadable(error);
  }
}

async function eachEntry(zip: ZipFile, visit: (entry: Entry) => Promise<void> | void): Promise<void> {
  const entries = zip.eachEntry();
  for (;;) {
    let next: IteratorResult<Entry>;
    try {
      next = await entries.next();
    } catch (error) {
      throw unreadable(error);
    }
    if (next.done) return;
    await visit(next.value);
  }
}

function tooLarge(bytes: number, limits: ZipLimits, atLeast = false): ArchiveRefusedError {
  return new ArchiveRefusedError(
    'size',
    `the archive expands to ${atLeast ? 'more than ' : ''}${sizeText(bytes)} when decompressed; the limit is ${sizeText(limits.maxUncompressedBytes)}`,
  );
}

/**
 * Checks a zip archive by its central directory alone (nothing is decompressed): its entries, their
 * total decompressed size and how far each is compressed. Throws an ArchiveRefusedError naming the
 * limit that is passed, or saying the archive cannot be read.
 */
export async function checkZip(bytes: Uint8Array, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<void> {
  const zip = await open(bytes);
  try {
    if (zip.entryCount > limits.maxEntries) {
      throw new ArchiveRefusedError(
        'entries',
        `the archive holds ${zip.entryCount} entries; the limit is ${limits.maxEntries}`,
      );
    }
    let total = 0;
    let worst: { name: string; ratio: number } | undefined;
    await eachEntry(zip, (entry) => {
      total += entry.uncompressedSize;
      if (entry.uncompressedSize < RATIO_FLOOR_BYTES) return;
      const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
      if (ratio > (worst?.ratio ?? 0)) worst = { name: entry.fileName, ratio };
    });
    if (total > limits.maxUncompressedBytes) throw tooLarge(total, limits);
    if (worst && worst.ratio > limits.maxRatio) {
      throw new ArchiveRefusedError(
        'ratio',
        `${worst.name.slice(0, 100)} in the archive is compressed ${Math.round(worst.ratio)} times; the limit is ${limits.maxRatio} times`,
      );
    }
  } finally {
    zip.close();
  }
}

/**
 * Decompresses every entry without keeping it, to prove the sizes the central directory declares
 * (which {@link checkZip} trusted): an entry that yields more than it declared, or a total past the
 * limit, stops at once. Run where the parser runs (the extraction worker), just before it.
 */
export async function verifyZip(bytes: Uint8Array, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<void> {
  const zip = await open(bytes);
  let total = 0;
  try {
    await eachEntry(zip, async (entry) => {
      // Neither parser decodes these either (encrypted, or an unknown method): nothing to expand.
      if (!entry.canDecodeFileData()) return;
      let stream: Readable;
      try {
        stream = await zip.openReadStreamPromise(entry);
      } catch (error) {
        throw unreadable(error);
      }
      try {
        for await (const chunk of stream) {
          total += (chunk as Buffer).byteLength;
          if (total > limits.maxUncompressedBytes) throw tooLarge(total, limits, true);
        }
      } catch (error) {
        if (error instanceof ArchiveRefusedError) throw error;
        // yauzl stops an entry that yields more than its declared size.
        if (error instanceof Error && error.message.startsWith('too many bytes')) {
          throw new ArchiveRefusedError(
            'size',
            `${entry.fileName.slice(0, 100)} in the archive expands to more than the ${sizeText(entry.uncompressedSize)} it declares`,
          );
        }
        throw unreadable(error);
      } finally {
        stream.destroy();
      }
    });
  } finally {
    zip.close();
  }
}
