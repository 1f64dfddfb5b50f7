import { accessSync, constants, readFileSync } from 'node:fs';
import { NKEY_SEED } from '@munim/bus';
import { z } from 'zod';

/** A path the process can read now; `looksRight` checks what it holds (never echoed: it may be a secret). */
const readableFile = (looksRight?: (text: string) => boolean, expected?: string) =>
  z
    .string()
    .refine(
      (path) => {
        try {
          accessSync(path, constants.R_OK);
          return true;
        } catch {
          return false;
        }
      },
      { error: 'cannot be read (no such file, or no permission)', abort: true },
    )
    .refine((path) => !looksRight || looksRight(readFileSync(path, 'utf8')), {
      error: `does not hold ${expected}`,
    })
    .optional();

/** The NATS authentication and TLS variables every service reads (all optional). */
export const NatsAuthEnv = z.object({
  /** A JWT + nkey `.creds` file (NATS decentralised auth). */
  NATS_CREDS_FILE: readableFile(
    (text) => text.includes('BEGIN NATS USER JWT') && NKEY_SEED.test(text),
    'a NATS user JWT and its nkey seed (a .creds file)',
  ),
  /** A file holding an nkey seed (`SU…`). */
  NATS_NKEY_SEED_FILE: readableFile((text) => NKEY_SEED.test(text), 'an nkey seed (SU…)'),
  NATS_USER: z.string().optional(),
  NATS_PASSWORD: z.string().optional(),
  NATS_TOKEN: z.string().optional(),
  /** CA certificate(s) the server's certificate is checked against; implies TLS. */
  NATS_TLS_CA_FILE: readableFile(),
  /** Client certificate and its key, for servers that verify clients; implies TLS. */
  NATS_TLS_CERT_FILE: readableFile(),
  NATS_TLS_KEY_FILE: readableFile(),
});

/** Refuses combinations that cannot be meant: half a user/password or certificate pair, two ways to log in. */
export function checkNatsAuth(env: z.infer<typeof NatsAuthEnv>, ctx: z.RefinementCtx): void {
  const fail = (variable: string, message: string) =>
    ctx.addIssue({ code: 'custom', path: [variable], message });
  if (env.NATS_PASSWORD !== undefined && env.NATS_USER === undefined)
    fail('NATS_PASSWORD', 'is set without NATS_USER');
  if (env.NATS_USER !== undefined && env.NATS_PASSWORD === undefined)
    fail('NATS_USER', 'is set without NATS_PASSWORD');
  if (env.NATS_TLS_CERT_FILE !== undefined && env.NATS_TLS_KEY_FILE === undefined)
    fail('NATS_TLS_CERT_FILE', 'is set without NATS_TLS_KEY_FILE');
  if (env.NATS_TLS_KEY_FILE !== undefined && env.NATS_TLS_CERT_FILE === undefined)
    fail('NATS_TLS_KEY_FILE', 'is set without NATS_TLS_CERT_FILE');
  const ways = (['NATS_CREDS_FILE', 'NATS_NKEY_SEED_FILE', 'NATS_USER', 'NATS_TOKEN'] as const).filter(
    (name) => env[name] !== undefined,
  );
  for (const extra of ways.slice(1))
    fail(extra, `is set together with ${ways[0]}: give one way to authenticate to NATS`);
}
