import type { MultipartFile } from '@fastify/multipart';
import type { HttpError as HttpErrorBody } from '@munim/contracts';
import type { FastifyRequest } from 'fastify';
import OpenAI, { toFile } from 'openai';
import { httpError } from './http-errors.ts';

/** Audio formats of seed 003 §6.2 (plus the WAV spellings browsers and tools use). */
export const AUDIO_TYPES: readonly string[] = [
  'audio/webm',
  'audio/ogg',
  'audio/mp3',
  'audio/mpeg',
  'audio/mp4',
  'audio/m4a',
  'audio/x-m4a',
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/flac',
  'video/webm',
];

export interface TranscriberConfig {
  baseURL: string | undefined;
  apiKey: string | undefined;
  model: string;
  maxBytes: number;
}

/** A transcription failed or could not be attempted; `status` and `body` are the HTTP answer. */
export class TranscriptionError extends Error {
  override name = 'TranscriptionError';
  readonly status: number;
  readonly body: HttpErrorBody;
  constructor(status: number, body: HttpErrorBody, options?: ErrorOptions) {
    super(body.error.message, options);
    this.status = status;
    this.body = body;
  }
}

export interface AudioUpload {
  fields: Record<string, string>;
  bytes: Buffer;
  filename: string;
  mimeType: string;
}

/** Reads a multipart request holding one audio `file` (and text fields), enforcing type and size. */
export async function readAudio(request: FastifyRequest, maxBytes: number): Promise<AudioUpload> {
  if (!request.isMultipart()) {
    throw new TranscriptionError(
      400,
      httpError('BAD_REQUEST', 'body: must be multipart/form-data with a file', { field: 'file' }),
    );
  }
  const fields: Record<string, string> = {};
  let upload: AudioUpload | undefined;
  for await (const part of request.parts({ limits: { fileSize: maxBytes, files: 1, fields: 10 } })) {
    if (part.type === 'field') {
      fields[part.fieldname] = String(part.value);
      continue;
    }
    const file = part as MultipartFile;
    if (file.fieldname !== 'file') {
      await file.toBuffer().catch(() => undefined);
      continue;
    }
    if (!AUDIO_TYPES.includes(file.mimetype)) {
      await file.toBuffer().catch(() => undefined);
      throw new TranscriptionError(
        415,
        httpError(
          'BAD_REQUEST',
          `file: ${file.mimetype} is not a supported audio type (${AUDIO_TYPES.join(', ')})`,
          {
            field: 'file',
          },
        ),
      );
    }
    let bytes: Buffer;
    try {
      bytes = await file.toBuffer();
    } catch {
      throw new TranscriptionError(
        413,
        httpError('BAD_REQUEST', `file: larger than ${Math.round(maxBytes / 1024 / 1024)} MB`, {
          field: 'file',
        }),
      );
    }
    upload = { fields, bytes, filename: file.filename || 'audio', mimeType: file.mimetype };
  }
  if (!upload || upload.bytes.length === 0) {
    throw new TranscriptionError(
      400,
      httpError('BAD_REQUEST', 'file: an audio file is required', { field: 'file' }),
    );
  }
  return { ...upload, fields };
}

/** Speech to text through any OpenAI-compatible `/audio/transcriptions` (seed 003 §6.2). */
export function createTranscriber(config: TranscriberConfig) {
  const client = config.baseURL
    ? new OpenAI({
        baseURL: config.baseURL,
        apiKey: config.apiKey ?? 'not-needed',
        maxRetries: 2,
        timeout: 60_000,
      })
    : undefined;
  return {
    async transcribe(upload: AudioUpload): Promise<string> {
      if (!client) {
        throw new TranscriptionError(
          503,
          httpError(
            'NO_MODEL_CONFIGURED',
            'Speech to text is not configured (set STT_BASE_URL or OPENAI_BASE_URL).',
          ),
        );
      }
      try {
        const result = await client.audio.transcriptions.create({
          file: await toFile(upload.bytes, upload.filename, { type: upload.mimeType }),
          model: config.model,
        });
        return result.text.trim();
      } catch (error) {
        throw new TranscriptionError(
          502,
          httpError(
            'LLM_UNAVAILABLE',
            'The speech-to-text service could not transcribe the audio right now.',
          ),
          { cause: error },
        );
      }
    },
  };
}
