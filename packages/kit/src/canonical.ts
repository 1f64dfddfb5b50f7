import { createHash } from 'node:crypto';

function write(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') {
    // JSON.stringify's own rules for scalars: undefined and functions vanish, NaN becomes null.
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item) => write(item) ?? 'null').join(',')}]`;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(value);
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const text = write(record[key]);
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

/** JSON with object keys sorted at every depth, so equal values have one text. */
export function canonicalJson(value: unknown): string {
  return write(value) ?? 'null';
}

/** SHA-256 (hex) of the canonical JSON of a value: the identity of a call's arguments. */
export function argsHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
