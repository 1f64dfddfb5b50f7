// Defined in subjects/metrics.ts before HTTP shapes had a folder; re-exported to list the family here.
export { HealthMetricsQuerySchema, HealthMetricsSchema } from '../subjects/metrics.ts';
