import { isRecord } from '@munim/contracts';

/** The parts of an MCP `tools/call` result the executor reads. */
export interface CallResultLike {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  toolResult?: unknown;
}

interface ContentItem {
  type?: unknown;
  text?: unknown;
  mimeType?: unknown;
  resource?: { uri?: unknown; mimeType?: unknown; text?: unknown };
}

function contentItems(result: CallResultLike): ContentItem[] {
  return Array.isArray(result.content) ? (result.content as ContentItem[]) : [];
}

/** The text parts of a result, joined. */
export function resultText(result: CallResultLike): string {
  return contentItems(result)
    .filter((item) => item.type === 'text' && typeof item.text === 'string')
    .map((item) => item.text as string)
    .join('\n');
}

/** The text parsed as JSON when it looks like and parses as JSON, else the text itself. */
export function parseJsonOrText(text: string): unknown {
  const trimmed = text.trim();
  if (!/^[[{"]|^-?\d|^(true|false|null)$/.test(trimmed)) return text;
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}

/**
 * The value of a successful tool result: `structuredContent` when present, else the text
 * content parsed as JSON when it parses, else the text. Binary parts are described, not copied.
 */
export function extractResult(result: CallResultLike): unknown {
  if (result.structuredContent !== undefined && result.structuredContent !== null)
    return result.structuredContent;
  if (result.toolResult !== undefined) return result.toolResult;
  const items = contentItems(result);
  const texts = items.filter((item) => item.type === 'text' && typeof item.text === 'string');
  if (texts.length === items.length) return texts.length === 0 ? null : parseJsonOrText(resultText(result));
  // Mixed content: keep text parts (parsed when JSON) and describe the others without their bytes.
  return items.map((item) => {
    if (item.type === 'text' && typeof item.text === 'string') return parseJsonOrText(item.text);
    if (item.type === 'resource' && item.resource) {
      return {
        type: 'resource',
        uri: item.resource.uri,
        mimeType: item.resource.mimeType,
        text: item.resource.text,
      };
    }
    return { type: item.type, mimeType: item.mimeType };
  });
}

/** Marker fields added to a truncated result (a truncated result keeps its item count). */
export interface TruncationInfo {
  truncated: true;
  total_items: number;
  shown_items: number;
}

type Path = (string | number)[];

function jsonLength(value: unknown): number {
  return JSON.stringify(value)?.length ?? 0;
}

/** The paths of the arrays reachable through plain objects (depth-bounded), in key order. */
function arrayPaths(value: unknown, path: Path = [], depth = 0, out: Path[] = []): Path[] {
  if (Array.isArray(value)) out.push(path);
  else if (isRecord(value) && depth <= 4)
    for (const [key, child] of Object.entries(value)) arrayPaths(child, [...path, key], depth + 1, out);
  return out;
}

/**
 * The path of the largest array reachable through plain objects (depth-bounded), by the length
 * of its JSON; the first of equals. One array is the largest without measuring it.
 */
function largestArrayPath(value: unknown): { path: Path } | undefined {
  const paths = arrayPaths(value);
  if (paths.length <= 1) return paths[0] ? { path: paths[0] } : undefined;
  let best: { path: Path; size: number } | undefined;
  for (const path of paths) {
    const size = jsonLength(getAt(value, path));
    if (!best || size > best.size) best = { path, size };
  }
  return best;
}

/**
 * How many records a result holds: a list's items (the largest array in it, as truncation finds
 * it; a truncated list counts what was shown), else one record; nothing for an empty result.
 */
export function recordCount(value: unknown): number {
  if (value === undefined || value === null || value === '') return 0;
  const list = largestArrayPath(value);
  return list ? (getAt(value, list.path) as unknown[]).length : 1;
}

function getAt(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], value);
}

function setAt(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const node = value as Record<string, unknown>;
  return { ...node, [head as string]: setAt(node[head as string], rest, replacement) };
}

/**
 * Bounds a result's JSON to `maxChars`. An array, or the largest array inside an object, keeps
 * as many leading items as fit and the result gains `{ truncated, total_items, shown_items }`;
 * a bare array becomes `{ items, … }`. Anything else is cut as text.
 */
export function truncateResult(value: unknown, maxChars: number): { value: unknown; truncated: boolean } {
  if (jsonLength(value) <= maxChars) return { value, truncated: false };

  const found = largestArrayPath(value);
  if (found) {
    const items = getAt(value, found.path) as unknown[];
    const build = (shown: number) => {
      const info: TruncationInfo = { truncated: true, total_items: items.length, shown_items: shown };
      const slice = items.slice(0, shown);
      if (found.path.length === 0) return { items: slice, ...info };
      return { ...(setAt(value, found.path, slice) as Record<string, unknown>), ...info };
    };
    if (jsonLength(build(0)) <= maxChars) {
      // Largest n whose rendering fits; the length grows with n, so binary search.
      let lo = 0;
      let hi = items.length;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (jsonLength(build(mid)) <= maxChars) lo = mid;
        else hi = mid - 1;
      }
      return { value: build(lo), truncated: true };
    }
  }

  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const note = ` … [truncated: ${text.length} characters in all]`;
  let keep = Math.max(0, maxChars - note.length - 2);
  let cut = `${text.slice(0, keep)}${note}`;
  // Escapes make the JSON longer than the text; shrink until it fits.
  while (keep > 0 && jsonLength(cut) > maxChars) {
    keep = Math.max(0, keep - (jsonLength(cut) - maxChars));
    cut = `${text.slice(0, keep)}${note}`;
  }
  return { value: cut, truncated: true };
}
