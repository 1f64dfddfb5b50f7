import { z } from 'zod';

/** Quota settings, read by the gateway (queries and tokens) and the agent (tokens). */
export const QuotaEnvSchema = z.object({
  /** Queries one tenant (entity + org) may make per window; unset: no limit. */
  QUOTA_QUERIES_PER_WINDOW: z.coerce.number().int().positive().optional(),
  /** Model tokens one tenant may spend per window; unset: no limit. */
  QUOTA_TOKENS_PER_WINDOW: z.coerce.number().int().positive().optional(),
  /** Length of a quota window, aligned to the epoch; every gateway and agent must use the same. */
  QUOTA_WINDOW_MS: z.coerce.number().int().min(1000).default(3_600_000),
  /**
   * What a quota check does when the usage table cannot be reached: `refuse` (the default) turns the
   * query or model call away, so an outage of the store is never a way past the quotas; `admit` lets
   * it through uncounted (logged), for deployments that prefer answering to limiting.
   */
  QUOTA_STORE_UNREACHABLE: z.enum(['refuse', 'admit']).default('refuse'),
});
export type QuotaEnv = z.infer<typeof QuotaEnvSchema>;

const amount = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** A length of time in words, rounded up: `45 seconds`, `23 minutes`, `3 hours`, `2 days`. */
export function durationText(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 90) return amount(seconds, 'second');
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 90) return amount(minutes, 'minute');
  const hours = Math.ceil(minutes / 60);
  return hours < 48 ? amount(hours, 'hour') : amount(Math.ceil(hours / 24), 'day');
}

/** A window's length after "per": `hour`, `day`, `30 minutes`. */
function perText(ms: number): string {
  for (const [unit, length] of [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
    ['second', 1000],
  ] as const) {
    if (ms === length) return unit;
  }
  return durationText(ms);
}

export interface QuotaFacts {
  kind: 'queries' | 'tokens';
  limit: number;
  windowMs: number;
  /** When the current window ends, in ms since the epoch. */
  resetsAt: number;
  now: number;
}

/**
 * Why a tenant is refused, fit for the user and naming the quota, its size and when it resets:
 * "The query quota of this organisation is used up (100 queries per hour); it resets in 23 minutes
 * (at 14:00 UTC)."
 */
export function quotaMessage(facts: QuotaFacts): string {
  const what = facts.kind === 'queries' ? 'query quota' : 'model token quota';
  const unit = facts.kind === 'queries' ? 'queries' : 'model tokens';
  const at = new Date(facts.resetsAt).toISOString();
  const when =
    facts.resetsAt - facts.now < 86_400_000 ? at.slice(11, 16) : `${at.slice(0, 10)} ${at.slice(11, 16)}`;
  return (
    `The ${what} of this organisation is used up (${facts.limit.toLocaleString('en-US')} ${unit} per ` +
    `${perText(facts.windowMs)}); it resets in ${durationText(facts.resetsAt - facts.now)} (at ${when} UTC).`
  );
}

/** What the quota checks say while the usage table cannot be reached and they refuse. */
export const QUOTA_STORE_UNREACHABLE_MESSAGE =
  'Usage quotas cannot be checked right now (their store is not reachable); please try again in a minute.';

/**
 * Tokens a text costs by estimate, for endpoints that report no usage: one token per four
 * characters (rounded up), the common rule of thumb for English with OpenAI-style tokenizers. Hindi
 * and other scripts cost more per character, so they are counted at one token per character.
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const ch of text) {
    if ((ch.codePointAt(0) ?? 0) < 0x80) ascii += 1;
    else other += 1;
  }
  return Math.ceil(ascii / 4) + other;
}
