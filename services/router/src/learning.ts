/** Attempts and successes of one intent on the fast path, over all its confidence buckets. */
export interface IntentOutcomes {
  attempts: number;
  successes: number;
}

export interface ThresholdRules {
  /** The threshold without enough history (0.85 by default). */
  defaultThreshold: number;
  min: number;
  max: number;
  step: number;
}

export const DEFAULT_RULES: Omit<ThresholdRules, 'defaultThreshold'> = { min: 0.7, max: 0.95, step: 0.05 };

/** Occurrences of one LLM-path query after which an intent is suggested for it. */
export const SUGGEST_AFTER = 10;

/**
 * Whether an LLM-path pattern is worth suggesting as an intent: asked often enough ({@link SUGGEST_AFTER}),
 * and not a question whose answers users rejected (a mean feedback score below zero).
 */
export function worthSuggesting(pattern: { occurrences: number; avgFeedbackScore: number | null }): boolean {
  return pattern.occurrences >= SUGGEST_AFTER && (pattern.avgFeedbackScore ?? 0) >= 0;
}

/**
 * An intent that answers well earns a lower threshold, one that fails a higher: more than 90 %
 * success over 20+ attempts lowers the threshold by a step (not below `min`); under 70 % over 10+
 * attempts raises it (not above `max`); else the default.
 */
export function adaptiveThreshold(outcomes: IntentOutcomes | undefined, rules: ThresholdRules): number {
  const { defaultThreshold, min, max, step } = rules;
  if (!outcomes || outcomes.attempts === 0) return defaultThreshold;
  const rate = outcomes.successes / outcomes.attempts;
  const round = (n: number) => Math.round(n * 100) / 100;
  if (rate > 0.9 && outcomes.attempts >= 20) return round(Math.max(min, defaultThreshold - step));
  if (rate < 0.7 && outcomes.attempts >= 10) return round(Math.min(max, defaultThreshold + step));
  return defaultThreshold;
}

/** The 0.05 confidence bucket a confidence falls in, for counting outcomes: 0.87 → 0.85. */
export function confidenceBucket(confidence: number): number {
  const clamped = Math.min(1, Math.max(0, confidence));
  // The epsilon keeps 0.85 in its own bucket despite binary floating point (0.85 * 20 = 16.999…).
  return Math.round(Math.floor(clamped * 20 + 1e-9) * 5) / 100;
}

/** A readable, unique-enough name for an intent suggested from a query. */
export function suggestedIntentName(queryNormalized: string, hash: string): string {
  const slug = queryNormalized
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40);
  return `suggested_${slug || 'query'}_${hash.slice(0, 8)}`;
}
