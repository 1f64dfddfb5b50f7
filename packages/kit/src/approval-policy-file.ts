import { readFileSync } from 'node:fs';
import { type ApprovalPolicy, ApprovalPolicyError, parseApprovalPolicy } from '@munim/contracts';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** The operator's approval policy and the file it came from. */
export interface ApprovalPolicyFile {
  path: string;
  policy: ApprovalPolicy;
}

/**
 * Reads an approval policy file (YAML, of which JSON is a part); throws an
 * {@link ApprovalPolicyError} naming the path when it cannot be read or parsed, or the entry that
 * is wrong (`rules[2].match.class: unknown class "paymnet" …`).
 */
export function loadApprovalPolicyFile(path: string): ApprovalPolicyFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ApprovalPolicyError(`cannot be read (${code}): ${path}`, { cause: error });
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new ApprovalPolicyError(`${path} is not valid JSON or YAML: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    return { path, policy: parseApprovalPolicy(raw) };
  } catch (error) {
    if (!(error instanceof ApprovalPolicyError)) throw error;
    throw new ApprovalPolicyError(`${path}: ${error.message}`, { cause: error });
  }
}

/**
 * `APPROVAL_POLICY_FILE` in a service's environment: read and checked when the service starts, so
 * a bad file stops it with a message naming the variable and the entry.
 */
export const ApprovalPolicyFileEnv = z
  .string()
  .min(1)
  .transform((path, ctx) => {
    try {
      return loadApprovalPolicyFile(path);
    } catch (error) {
      if (!(error instanceof ApprovalPolicyError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message });
      return z.NEVER;
    }
  });
