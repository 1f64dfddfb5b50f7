/** Whether `value` is a plain object (not null, not an array): what a JSON record parses to. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}
