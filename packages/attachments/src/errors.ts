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
