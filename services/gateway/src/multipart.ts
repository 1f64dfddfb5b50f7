import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { HttpRefusal, httpError } from './http-errors.ts';

/** One uploaded `file` and the text fields sent with it. */
export interface FileUpload {
  fields: Record<string, string>;
  bytes: Buffer;
  filename: string;
  mimeType: string;
}

/** How one endpoint takes its `file`; the messages are its 4xx answers, each naming `file`. */
export interface FileUploadRules {
  /** The largest file, in bytes: a larger one is cut off as it streams and refused with 413. */
  maxBytes: number;
  /** The file's name when the client gave none. */
  defaultFilename: string;
  /** The 400 message when the body is not multipart/form-data. */
  notMultipart: string;
  /** The 400 message when no file (or an empty one) was sent. */
  missing: string;
  /** A file under another field name: refused with a 400 naming that field, or read and ignored. */
  otherFiles: 'refuse' | 'ignore';
  /** The 415 message for a declared type the endpoint does not take; undefined takes it. */
  refuseType?: (mimeType: string) => string | undefined;
}

/** A byte limit as a 413 says it (`20 MB`, `2.5 MB`). */
export const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

const fileError = (message: string) => httpError('BAD_REQUEST', message, { field: 'file' });

/** Drains a file part that will not be used, so the rest of the form can be read. */
const discard = (file: MultipartFile) => file.toBuffer().catch(() => undefined);

/**
 * Reads a multipart form with one `file` (and up to 10 text fields), enforcing its type and size
 * as it streams. Throws an HttpRefusal (400, 413 or 415) for what the rules do not take.
 */
export async function readFileUpload(request: FastifyRequest, rules: FileUploadRules): Promise<FileUpload> {
  if (!request.isMultipart()) throw new HttpRefusal(400, fileError(rules.notMultipart));
  const fields: Record<string, string> = {};
  let upload: Omit<FileUpload, 'fields'> | undefined;
  for await (const part of request.parts({ limits: { fileSize: rules.maxBytes, files: 1, fields: 10 } })) {
    if (part.type === 'field') {
      fields[part.fieldname] = String(part.value);
      continue;
    }
    const file = part as MultipartFile;
    if (file.fieldname !== 'file') {
      await discard(file);
      if (rules.otherFiles === 'ignore') continue;
      throw new HttpRefusal(
        400,
        httpError('BAD_REQUEST', `${file.fieldname}: is not a known field (send the file as file)`, {
          field: file.fieldname,
        }),
      );
    }
    const refused = rules.refuseType?.(file.mimetype);
    if (refused !== undefined) {
      await discard(file);
      throw new HttpRefusal(415, fileError(refused));
    }
    let bytes: Buffer;
    try {
      bytes = await file.toBuffer();
    } catch {
      throw new HttpRefusal(413, fileError(`file: larger than ${megabytes(rules.maxBytes)}`));
    }
    upload = { bytes, filename: file.filename || rules.defaultFilename, mimeType: file.mimetype };
  }
  if (!upload || upload.bytes.length === 0) throw new HttpRefusal(400, fileError(rules.missing));
  return { ...upload, fields };
}
