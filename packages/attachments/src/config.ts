import { resolve } from 'node:path';
import { ATTACHMENT_MAX_BYTES } from '@munim/contracts';
import type { Database } from '@munim/db';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { Attachments } from './attachments.ts';
import { DEFAULT_BOUNDS, DEFAULT_LIMITS } from './extract.ts';
import { LinkSigner } from './sign.ts';
import { DEFAULT_SLOTS, ExtractionSlots } from './slots.ts';
import { type AttachmentStorage, LocalStorage, S3Storage } from './storage.ts';
import { DEFAULT_ZIP_LIMITS } from './zip-guard.ts';

/** `.data/attachments` at the repository root, beside the other local data of `npm start`. */
const DEFAULT_ATTACHMENTS_DIR = resolve(import.meta.dirname, '..', '..', '..', '.data', 'attachments');

const flag = z.stringbool({
  truthy: ['true', '1'],
  falsy: ['false', '0'],
  case: 'sensitive',
  error: 'must be true or false',
});

/** Attachment settings, read by the gateway (uploads, links) and the agent (reading files for the LLM). */
export const AttachmentsEnvSchema = z.object({
  /** Local storage directory, used when no ATTACHMENTS_S3_BUCKET is set. */
  ATTACHMENTS_DIR: z.string().min(1).default(DEFAULT_ATTACHMENTS_DIR),
  /** Largest upload in bytes (20 MB). */
  ATTACHMENTS_MAX_BYTES: z.coerce.number().int().positive().default(ATTACHMENT_MAX_BYTES),
  /** HMAC key of local download links (at least 32 characters); unset: a random key per process. */
  ATTACHMENTS_SIGNING_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  /** An S3 or S3-compatible bucket; set, attachments are stored there instead of on local disk. */
  ATTACHMENTS_S3_BUCKET: z.string().min(3).max(63).optional(),
  /** The store's URL for S3-compatible stores (MinIO: http://minio:9000); unset: AWS S3. */
  ATTACHMENTS_S3_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  /** The store's URL as browsers reach it, if not ATTACHMENTS_S3_ENDPOINT (download links are signed for it). */
  ATTACHMENTS_S3_PUBLIC_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  ATTACHMENTS_S3_REGION: z.string().min(1).default('us-east-1'),
  /** Unset (with the secret): the AWS SDK's default credential chain. */
  ATTACHMENTS_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  ATTACHMENTS_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Path-style URLs; default true when an endpoint is set (MinIO), false for AWS. */
  ATTACHMENTS_S3_FORCE_PATH_STYLE: flag.optional(),
  /** Key prefix inside the bucket. */
  ATTACHMENTS_S3_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9/_.-]+$/, 'letters, digits and / _ . - only')
    .optional(),
  /** Longest a file's text extraction may take. */
  ATTACHMENTS_EXTRACT_TIMEOUT_MS: z.coerce.number().int().positive().default(DEFAULT_BOUNDS.timeoutMs),
  /** Characters of extracted text kept per file. */
  ATTACHMENTS_EXTRACT_MAX_CHARS: z.coerce.number().int().min(1000).default(DEFAULT_LIMITS.maxChars),
  /** Files read at once per process (each in its own worker thread). */
  ATTACHMENTS_EXTRACT_CONCURRENCY: z.coerce.number().int().positive().default(DEFAULT_SLOTS.concurrency),
  /** Longest an upload waits for a free reader; then it is refused with 503 and Retry-After. */
  ATTACHMENTS_EXTRACT_QUEUE_MS: z.coerce.number().int().positive().default(DEFAULT_SLOTS.maxWaitMs),
  /** Largest total a zip-based file (XLSX, DOCX) may expand to; a larger one is refused with 413. */
  ATTACHMENTS_MAX_UNCOMPRESSED_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(DEFAULT_ZIP_LIMITS.maxUncompressedBytes),
  /** Largest decompressed-to-compressed ratio of one entry (of 1 MB or more) of a zip-based file. */
  ATTACHMENTS_MAX_ZIP_RATIO: z.coerce.number().positive().default(DEFAULT_ZIP_LIMITS.maxRatio),
  /** Most entries a zip-based file may hold. */
  ATTACHMENTS_MAX_ZIP_ENTRIES: z.coerce.number().int().positive().default(DEFAULT_ZIP_LIMITS.maxEntries),
});

/** Both S3 keys or neither: one alone is a mistake, named rather than silently ignored. */
export function checkS3Keys(
  env: Pick<AttachmentsEnv, 'ATTACHMENTS_S3_ACCESS_KEY_ID' | 'ATTACHMENTS_S3_SECRET_ACCESS_KEY'>,
  ctx: z.RefinementCtx,
): void {
  const id = env.ATTACHMENTS_S3_ACCESS_KEY_ID !== undefined;
  const secret = env.ATTACHMENTS_S3_SECRET_ACCESS_KEY !== undefined;
  if (id === secret) return;
  ctx.addIssue({
    code: 'custom',
    path: [id ? 'ATTACHMENTS_S3_SECRET_ACCESS_KEY' : 'ATTACHMENTS_S3_ACCESS_KEY_ID'],
    message: `is required with ${id ? 'ATTACHMENTS_S3_ACCESS_KEY_ID' : 'ATTACHMENTS_S3_SECRET_ACCESS_KEY'}`,
  });
}

export type AttachmentsEnv = z.infer<typeof AttachmentsEnvSchema>;

/** The configured storage: the S3 bucket when one is set, else the local directory. */
export function createStorage(env: AttachmentsEnv): AttachmentStorage {
  if (!env.ATTACHMENTS_S3_BUCKET) return new LocalStorage(env.ATTACHMENTS_DIR);
  return new S3Storage({
    bucket: env.ATTACHMENTS_S3_BUCKET,
    region: env.ATTACHMENTS_S3_REGION,
    endpoint: env.ATTACHMENTS_S3_ENDPOINT,
    accessKeyId: env.ATTACHMENTS_S3_ACCESS_KEY_ID,
    secretAccessKey: env.ATTACHMENTS_S3_SECRET_ACCESS_KEY,
    forcePathStyle: env.ATTACHMENTS_S3_FORCE_PATH_STYLE ?? env.ATTACHMENTS_S3_ENDPOINT !== undefined,
    prefix: env.ATTACHMENTS_S3_PREFIX,
    publicEndpoint: env.ATTACHMENTS_S3_PUBLIC_ENDPOINT,
  });
}

/** The attachments of a service as its environment configures them: storage, link key, extraction bounds and slots. */
export function createAttachments(db: Kysely<Database>, env: AttachmentsEnv): Attachments {
  return new Attachments({
    db,
    storage: createStorage(env),
    signer: new LinkSigner(env.ATTACHMENTS_SIGNING_KEY),
    limits: { ...DEFAULT_LIMITS, maxChars: env.ATTACHMENTS_EXTRACT_MAX_CHARS },
    bounds: { ...DEFAULT_BOUNDS, timeoutMs: env.ATTACHMENTS_EXTRACT_TIMEOUT_MS },
    zipLimits: {
      maxUncompressedBytes: env.ATTACHMENTS_MAX_UNCOMPRESSED_BYTES,
      maxRatio: env.ATTACHMENTS_MAX_ZIP_RATIO,
      maxEntries: env.ATTACHMENTS_MAX_ZIP_ENTRIES,
    },
    slots: new ExtractionSlots({
      concurrency: env.ATTACHMENTS_EXTRACT_CONCURRENCY,
      maxWaitMs: env.ATTACHMENTS_EXTRACT_QUEUE_MS,
    }),
  });
}
