import { type FieldIssue, isRecord } from '@munim/contracts';
import { jsonrepair } from 'jsonrepair';
import { jsonType } from './schema.ts';

/** The arguments of a call as an object, or the one issue that makes them unusable. */
export type ParsedArgs =
  | { ok: true; args: Record<string, unknown>; repaired: boolean }
  | { ok: false; issue: FieldIssue };

function notAnObject(value: unknown, repaired: boolean): ParsedArgs {
  return {
    ok: false,
    issue: {
      field: '(arguments)',
      expected: 'a JSON object of named fields',
      received: jsonType(value),
      code: 'invalid_type',
      message: `The arguments must be a JSON object of named fields, but ${repaired ? 'after repair they are' : 'they are'} ${jsonType(value) === 'array' ? 'an array' : `a ${jsonType(value)}`}.`,
    },
  };
}

function fromText(text: string): ParsedArgs {
  if (text.trim() === '') return { ok: true, args: {}, repaired: false };
  let value: unknown;
  let repaired = false;
  try {
    value = JSON.parse(text);
  } catch {
    try {
      value = JSON.parse(jsonrepair(text));
      repaired = true;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return {
        ok: false,
        issue: {
          field: '(arguments)',
          expected: 'a JSON object of named fields',
          received: 'text that is not JSON',
          code: 'invalid_json',
          message: `The arguments are not valid JSON and could not be repaired (${reason}). Send them as one JSON object, e.g. {"Field": "value"}.`,
        },
      };
    }
  }
  if (value === null) return { ok: true, args: {}, repaired };
  return isRecord(value) ? { ok: true, args: value, repaired } : notAnObject(value, repaired);
}

/**
 * The call's arguments: parsed `args` as given (null or absent meaning `{}`), or `rawArgs`
 * (the LLM's text) parsed, repaired with jsonrepair when it is not valid JSON.
 */
export function parseArgs(args: unknown, rawArgs: string | undefined): ParsedArgs {
  if (args === undefined || args === null)
    return rawArgs === undefined ? { ok: true, args: {}, repaired: false } : fromText(rawArgs);
  if (typeof args === 'string') return fromText(args);
  return isRecord(args) ? { ok: true, args, repaired: false } : notAnObject(args, false);
}
