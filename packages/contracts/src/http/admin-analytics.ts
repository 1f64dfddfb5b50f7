import { z } from 'zod';
import { IdSchema } from '../envelope.ts';

const DEFAULT_WINDOW_MS = 7 * 24 * 3600_000;
const MAX_WINDOW_MS = 366 * 24 * 3600_000;

/**
 * `GET /v1/admin/analytics?from=&to=` (ISO timestamps; default the last 7 days, at most 366), an
 * optional entity and an optional org; parsed into the window as dates.
 */
export const AnalyticsQuerySchema = z
  .object({
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    entityId: IdSchema.optional(),
    orgId: IdSchema.optional(),
  })
  .strict()
  .transform((q) => {
    const to = q.to ? new Date(q.to) : new Date();
    const from = q.from ? new Date(q.from) : new Date(to.getTime() - DEFAULT_WINDOW_MS);
    return { from, to, entityId: q.entityId, orgId: q.orgId };
  })
  .refine((q) => q.from < q.to, { message: 'must be before to', path: ['from'] })
  .refine((q) => q.to.getTime() - q.from.getTime() <= MAX_WINDOW_MS, {
    message: 'the window must be at most 366 days',
    path: ['from'],
  });
