import OpenAI, { toFile } from 'openai';
import { outboundFetch } from './outbound.ts';

/** Where speech is turned into text: any OpenAI-compatible `/audio/transcriptions`. */
export interface SpeechToTextConfig {
  baseURL: string;
  apiKey?: string | undefined;
  model: string;
}

/** Speech to text: the transcript of one recording (trimmed; empty when nothing was said). */
export type Transcribe = (audio: {
  bytes: Uint8Array;
  filename: string;
  mimeType: string;
}) => Promise<string>;

/** A transcriber for `config`; the gateway's voice routes and the messaging service's voice notes share it. */
export function createSpeechToText(config: SpeechToTextConfig): Transcribe {
  const client = new OpenAI({
    // Redirects refused: the key and the recording never go to an address nobody configured.
    fetch: outboundFetch(),
    baseURL: config.baseURL,
    apiKey: config.apiKey ?? 'not-needed',
    maxRetries: 2,
    timeout: 60_000,
  });
  return async ({ bytes, filename, mimeType }) => {
    const result = await client.audio.transcriptions.create({
      file: await toFile(bytes, filename, { type: mimeType }),
      model: config.model,
    });
    return result.text.trim();
  };
}
