import { z } from 'zod';
import { ErrorCodeSchema } from '../errors.ts';

/** JSON error body of every 4xx/5xx HTTP answer. */
export const HttpErrorSchema = z.object({
  error: z.object({
    code: ErrorCodeSchema,
    message: z.string(),
    /** The offending field, dotted (e.g. `mcqResponse.value`), when one field is at fault. */
    field: z.string().optional(),
    issues: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  }),
});
export type HttpError = z.infer<typeof HttpErrorSchema>;
