import { AttachmentsEnvSchema, checkS3Keys } from '@munim/attachments';
import { BaseEnvSchema, DatabaseUrlSchema, parseEnv } from '@munim/kit';
import { z } from 'zod';

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** The settings that switch WhatsApp on: all of them, or none (the service is then off). */
export const WHATSAPP_REQUIRED = [
  'WHATSAPP_APP_SECRET',
  'WHATSAPP_VERIFY_TOKEN',
  'WHATSAPP_ACCESS_TOKEN',
  'WHATSAPP_PHONE_NUMBER_ID',
] as const;

const EnvObjectSchema = BaseEnvSchema.extend({
  /** Port of the webhook and the probes. */
  MESSAGING_PORT: z.coerce.number().int().min(0).max(65_535).default(8090),
  /**
   * Address to listen on. Deliveries are authenticated by their signature, but the default stays
   * loopback: a deployment behind a proxy or ingress sets 0.0.0.0.
   */
  MESSAGING_HOST: z.string().min(1).default('127.0.0.1'),
  /** The app secret that signs deliveries (`X-Hub-Signature-256`); never logged. */
  WHATSAPP_APP_SECRET: z.string().min(8, 'must be the app secret (at least 8 characters)').optional(),
  /** The token Meta echoes in the webhook verification handshake. */
  WHATSAPP_VERIFY_TOKEN: z.string().min(8, 'must be at least 8 characters').optional(),
  /** A system user's access token for the Cloud API; never logged. */
  WHATSAPP_ACCESS_TOKEN: z.string().min(8, 'must be an access token').optional(),
  /** The business number's phone number id (not the number itself). */
  WHATSAPP_PHONE_NUMBER_ID: z
    .string()
    .regex(/^[0-9]{1,32}$/, 'must be the numeric phone number id')
    .optional(),
  /** The Graph API base URL (a proxy, or a test's fixture). */
  WHATSAPP_GRAPH_URL: httpUrl.default('https://graph.facebook.com'),
  /** Graph API version of the calls. */
  WHATSAPP_API_VERSION: z
    .string()
    .regex(/^v[0-9]+\.[0-9]+$/, 'must look like v24.0')
    .default('v24.0'),
  /**
   * An approved message template sent instead when the person's 24-hour window is closed (e.g. an
   * approval card to an approver who has not written today); unset: nothing is sent, and it is logged.
   */
  WHATSAPP_TEMPLATE_NAME: z.string().min(1).max(512).optional(),
  WHATSAPP_TEMPLATE_LANGUAGE: z.string().min(2).max(15).default('en'),
  /** People, conversations and the delivery log; required when WhatsApp is on. */
  DATABASE_URL: DatabaseUrlSchema.optional(),
  /** Longest one question may take to be answered before the person is told it is still running. */
  MESSAGING_ANSWER_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  /** Messages handled at once by one instance. */
  MESSAGING_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  /** Speech to text for voice notes: any OpenAI-compatible `/audio/transcriptions`; defaults to OPENAI_*. */
  STT_BASE_URL: httpUrl.optional(),
  STT_API_KEY: z.string().min(1).optional(),
  STT_MODEL: z.string().min(1).default('gpt-4o-mini-transcribe'),
  /** Longest voice note, in bytes (the gateway's limit for audio). */
  STT_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(25 * 1024 * 1024),
  OPENAI_BASE_URL: httpUrl.optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  /** Where documents and photos sent from a phone are kept: the gateway's attachment settings. */
  ...AttachmentsEnvSchema.shape,
});
type EnvObject = z.infer<typeof EnvObjectSchema>;

/** WhatsApp is on with all four settings and a database, off with none; anything between is a mistake. */
function checkWhatsApp(env: EnvObject, ctx: z.RefinementCtx): void {
  const set = WHATSAPP_REQUIRED.filter((name) => env[name] !== undefined);
  if (set.length === 0) return;
  for (const name of WHATSAPP_REQUIRED)
    if (env[name] === undefined)
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `is required with ${set.join(', ')} (WhatsApp needs all of ${WHATSAPP_REQUIRED.join(', ')})`,
      });
  if (env.DATABASE_URL === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['DATABASE_URL'],
      message: 'is required with WhatsApp (senders are looked up among the users)',
    });
}

export const EnvSchema = EnvObjectSchema.superRefine(checkS3Keys).superRefine(checkWhatsApp);
export type Env = z.infer<typeof EnvSchema>;

export const loadEnv = (source: NodeJS.ProcessEnv = process.env): Env => parseEnv(EnvSchema, source);

/** Whether the environment switches WhatsApp on. */
export const whatsAppOn = (env: Env): boolean => env.WHATSAPP_APP_SECRET !== undefined;
