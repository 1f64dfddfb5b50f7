import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { InvalidKeyError, StorageError } from './errors.ts';

export interface StoredObject {
  key: string;
  mimeType: string;
  filename: string;
}

/** Where attachment bytes live: a local directory, or a bucket of any S3-compatible store. */
export interface AttachmentStorage {
  readonly kind: 'local' | 's3';
  put(key: string, bytes: Uint8Array, mimeType: string): Promise<void>;
  get(key: string): Promise<Buffer>;
  delete(key: string): Promise<void>;
  /** A presigned GET of the store itself; null when the gateway must serve the bytes (local). */
  presignedUrl(object: StoredObject, expiresInSeconds: number): Promise<string | null>;
}

/** Keys are made by the service (`ab/<uuid>`), never from user input; this guards that they stay so. */
const KEY = /^[a-z0-9]{2}\/[a-z0-9-]{8,64}$/;

function checkKey(key: string): string {
  if (!KEY.test(key)) throw new InvalidKeyError(`invalid storage key ${JSON.stringify(key)}`);
  return key;
}

/** The storage key of an attachment id: two-character fan-out keeps directories small. */
export function storageKey(attachmentId: string): string {
  return checkKey(`${attachmentId.slice(0, 2)}/${attachmentId}`);
}

function asciiName(filename: string): string {
  return filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
}

/** `Content-Disposition` naming the file, safe for any characters in the name. */
export function contentDisposition(filename: string): string {
  return `attachment; filename="${asciiName(filename)}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** Files under one directory, written atomically (temp file, then rename), readable only by this user. */
export class LocalStorage implements AttachmentStorage {
  readonly kind = 'local' as const;
  readonly dir: string;

  constructor(dir: string) {
    this.dir = resolve(dir);
  }

  #path(key: string): string {
    const path = resolve(this.dir, checkKey(key));
    if (!path.startsWith(this.dir + sep)) throw new InvalidKeyError('storage key escapes the directory');
    return path;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const path = this.#path(key);
    const temp = `${path}.${process.pid}.partial`;
    try {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      await writeFile(temp, bytes, { mode: 0o600 });
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw new StorageError(`could not store the file in ${this.dir}`, { cause: error });
    }
  }

  async get(key: string): Promise<Buffer> {
    try {
      return await readFile(this.#path(key));
    } catch (error) {
      throw new StorageError('could not read the stored file', { cause: error });
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true });
  }

  async presignedUrl(): Promise<null> {
    return null;
  }
}

export interface S3Settings {
  bucket: string;
  region: string;
  endpoint?: string | undefined;
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  /** Path-style URLs (`endpoint/bucket/key`), as MinIO and most S3-compatible stores want. */
  forcePathStyle: boolean;
  /** Prepended to every key, so one bucket can hold several deployments. */
  prefix?: string | undefined;
  /** The store's address as browsers reach it, when it differs (MinIO inside compose): links are signed for it. */
  publicEndpoint?: string | undefined;
}

/** A bucket of AWS S3 or any S3-compatible store (MinIO, R2, Ceph …), through the AWS SDK. */
export class S3Storage implements AttachmentStorage {
  readonly kind = 's3' as const;
  readonly #client: S3Client;
  readonly #signing: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;

  constructor(settings: S3Settings) {
    const config: S3ClientConfig = {
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      // Without explicit keys the SDK's default chain applies (environment, profile, instance role).
      ...(settings.accessKeyId && settings.secretAccessKey
        ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
        : {}),
    };
    this.#client = new S3Client(config);
    // Signing is offline; the host is part of the signature, so a link is signed for the public one.
    this.#signing = settings.publicEndpoint
      ? new S3Client({ ...config, endpoint: settings.publicEndpoint })
      : this.#client;
    this.#bucket = settings.bucket;
    this.#prefix = settings.prefix ? `${settings.prefix.replace(/\/+$/, '')}/` : '';
  }

  #key(key: string): string {
    return `${this.#prefix}${checkKey(key)}`;
  }

  async put(key: string, bytes: Uint8Array, mimeType: string): Promise<void> {
    try {
      await this.#client.send(
        new PutObjectCommand({
          Bucket: this.#bucket,
          Key: this.#key(key),
          Body: bytes,
          ContentType: mimeType,
          ContentLength: bytes.byteLength,
        }),
      );
    } catch (error) {
      throw new StorageError(`could not store the file in bucket ${this.#bucket}`, { cause: error });
    }
  }

  async get(key: string): Promise<Buffer> {
    try {
      const object = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: this.#key(key) }),
      );
      if (!object.Body) throw new StorageError('the stored file has no body');
      return Buffer.from(await object.Body.transformToByteArray());
    } catch (error) {
      if (error instanceof StorageError) throw error;
      throw new StorageError(`could not read the file from bucket ${this.#bucket}`, { cause: error });
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#key(key) }));
    } catch (error) {
      throw new StorageError(`could not delete the file from bucket ${this.#bucket}`, { cause: error });
    }
  }

  presignedUrl(object: StoredObject, expiresInSeconds: number): Promise<string> {
    return getSignedUrl(
      this.#signing,
      new GetObjectCommand({
        Bucket: this.#bucket,
        Key: this.#key(object.key),
        ResponseContentType: object.mimeType,
        // ASCII only: some S3-compatible stores verify `'` and `*` in a signed query wrongly.
        ResponseContentDisposition: `attachment; filename="${asciiName(object.filename)}"`,
      }),
      { expiresIn: expiresInSeconds },
    );
  }
}
