/** Messages travel as UTF-8 JSON. */
export const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The JSON in `bytes`, or undefined when it is not JSON. */
export function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch {
    return undefined;
  }
}
