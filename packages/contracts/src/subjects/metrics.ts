import { z } from 'zod';
import { IdSchema } from '../envelope.ts';

// HTTP shapes of the gateway's health monitor.

/** `GET /v1/metrics/health?from=&to=`: a window (default the last 24 hours) of the caller's tenant. */
export const HealthMetricsQuerySchema = z
  .object({
    from: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('Start of the window (default: the last 24 hours).'),
    to: z.iso.datetime({ offset: true }).optional().describe('End of the window; default now.'),
    entityId: IdSchema.optional().describe(
      'The entity; required without auth, must be the credential’s with it.',
    ),
    orgId: IdSchema.optional().describe(
      'The organisation; required without auth, must be the credential’s with it.',
    ),
  })
  .strict();
export type HealthMetricsQuery = z.infer<typeof HealthMetricsQuerySchema>;

/** A rate with what it was computed from; `value` is null when nothing was counted. */
export const RateSchema = z.object({
  value: z.number().nullable(),
  numerator: z.number().int(),
  denominator: z.number().int(),
});
export type Rate = z.infer<typeof RateSchema>;

/** Percentiles of one stage's duration in milliseconds; null when the stage never ran. */
export const StageLatencySchema = z.object({
  p50: z.number().nullable(),
  p95: z.number().nullable(),
  count: z.number().int(),
});

export const HealthMetricsSchema = z.object({
  from: z.string(),
  to: z.string(),
  entityId: z.string(),
  orgId: z.string(),
  /** Requests that started in the window. */
  queries: z.number().int(),
  /** Of them, those that ended (`complete` or `error`). */
  finished: z.number().int(),
  rates: z.object({
    /** Write validations blocked / all write validations. Should be above 0: it is catching errors. */
    writeValidationBlock: RateSchema,
    /** Requests whose blocked write later passed validation / requests with a blocked write. */
    selfCorrectionSuccess: RateSchema,
    /** Executed writes (after a passed validation) that failed / executed writes. Should be near 0. */
    writeFailureAfterValidation: RateSchema,
    /** Routed requests on the fast path / routed requests. */
    fastPathHit: RateSchema,
    /** Routed requests answered from the response cache / routed requests. */
    cacheHit: RateSchema,
  }),
  /** Mean LLM tokens per finished request. */
  llmTokensPerQuery: z.object({
    input: z.number().nullable(),
    output: z.number().nullable(),
    total: z.number().nullable(),
  }),
  /** Duration per stage: the whole request, routing, each write validation, each tool call, answering. */
  latencyMs: z.object({
    total: StageLatencySchema,
    routing: StageLatencySchema,
    validation: StageLatencySchema,
    tool: StageLatencySchema,
    response: StageLatencySchema,
  }),
});
export type HealthMetrics = z.infer<typeof HealthMetricsSchema>;
