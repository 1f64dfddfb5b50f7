import { z } from 'zod';

/** Answer of `GET /healthz`. */
export const HealthStatusSchema = z.object({ status: z.string() });

/** Answer of `GET /readyz`: whether NATS and each service the gateway needs answered. */
export const ReadinessSchema = HealthStatusSchema.extend({
  nats: z.boolean(),
  services: z.record(z.string(), z.boolean()),
});
