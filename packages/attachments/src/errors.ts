/** The file's content is not one of the accepted types, or does not match what it claims to be. */
export class UnsupportedTypeError extends Error {
  override name = 'UnsupportedTypeError';
}

/** The storage could not keep or return a file. */
export class StorageError extends Error {
  override name = 'StorageError';
}

/** A storage key that could escape its directory or bucket prefix. */
export class InvalidKeyError extends Error {
  override name = 'InvalidKeyError';
}

/** Why an archive (XLSX, DOCX) is not read: what it would expand to, or that it cannot be read at all. */
export type ArchiveRefusal = 'size' | 'ratio' | 'entries' | 'unreadable';

/**
 * An archive refused before any parser sees it: larger than the limit once decompressed, compressed
 * beyond any real document, with too many entries, or unreadable. The message names the limit.
 */
export class ArchiveRefusedError extends Error {
  override name = 'ArchiveRefusedError';
  readonly reason: ArchiveRefusal;
  constructor(reason: ArchiveRefusal, message: string, options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
  }
}

/** Every extraction slot stayed taken for as long as an upload may wait; try again later. */
export class ExtractionBusyError extends Error {
  override name = 'ExtractionBusyError';
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super('Too many files are being read right now; try again shortly.');
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
