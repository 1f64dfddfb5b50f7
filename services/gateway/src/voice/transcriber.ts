import { createSpeechToText } from '@munim/kit';
import type { FastifyRequest } from 'fastify';
import { HttpRefusal, httpError } from '../http-errors.ts';
import { type FileUpload, readFileUpload } from '../multipart.ts';

/** Audio formats the transcription endpoints take (plus the WAV spellings browsers and tools use). */
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
class TranscriptionError extends HttpRefusal {
  override name = 'TranscriptionError';
}

/** Reads a multipart request holding one audio `file` (and text fields), enforcing type and size. */
export function readAudio(request: FastifyRequest, maxBytes: number): Promise<FileUpload> {
  return readFileUpload(request, {
    maxBytes,
    defaultFilename: 'audio',
    notMultipart: 'body: must be multipart/form-data with a file',
    missing: 'file: an audio file is required',
    otherFiles: 'ignore',
    refuseType: (mimeType) =>
      AUDIO_TYPES.includes(mimeType)
        ? undefined
        : `file: ${mimeType} is not a supported audio type (${AUDIO_TYPES.join(', ')})`,
  });
}

/** Speech to text through any OpenAI-compatible `/audio/transcriptions`. */
export function createTranscriber(config: TranscriberConfig) {
  const transcribe = config.baseURL
    ? createSpeechToText({ baseURL: config.baseURL, apiKey: config.apiKey, model: config.model })
    : undefined;
  return {
    async transcribe(upload: FileUpload): Promise<string> {
      if (!transcribe) {
        throw new TranscriptionError(
          503,
          httpError(
            'NO_MODEL_CONFIGURED',
            'Speech to text is not configured (set STT_BASE_URL or OPENAI_BASE_URL).',
          ),
        );
      }
      try {
        return await transcribe(upload);
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
