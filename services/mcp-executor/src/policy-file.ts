import { readFileSync } from 'node:fs';
import { PolicyWriteRulesSchema } from '@munim/contracts';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** The tool policy file is unreadable or malformed; the message names the entry. */
export class ToolPolicyError extends Error {
  override name = 'ToolPolicyError';
}

// Negation and extglobs have no specificity one can state, and tool names never hold these characters.
const GlobSchema = z
  .string()
  .min(1)
  .max(200)
  .refine((pattern) => !/^!|[()|]/.test(pattern), {
    message: 'negation (!…) and extglobs (@(…), +(…), a|b) are not supported: use *, ?, […] and {a,b}',
  });

const ToolEntrySchema = z
  .strictObject({
    /** A tool name or glob (`*`, `?`, `{a,b}`), as the server lists it. */
    match: GlobSchema,
    /** The server (its name in MCP_SERVERS, `mcp` for MCP_SERVER_URL) or a glob; any when absent. */
    server: GlobSchema.optional(),
    access: z.enum(['read', 'write']).optional(),
    /** 0 exempts the write from confirmation; 1 confirm; 2 summary of changes; 3 typed. */
    tier: z.literal([0, 1, 2, 3], { error: 'must be 0 (no confirmation), 1, 2 or 3' }).optional(),
    rules: PolicyWriteRulesSchema.optional(),
    /** Lets this entry give tier 0 (or a read) to a destructive tool, which is refused otherwise. */
    allowUnconfirmedDestructive: z.boolean().optional(),
  })
  .refine((e) => e.access !== undefined || e.tier !== undefined || e.rules !== undefined, {
    message: 'says nothing: give access, tier or rules',
  })
  .refine((e) => e.access !== 'read' || (e.tier === undefined && e.rules === undefined), {
    message: 'a read has no tier or rules',
  })
  .refine((e) => e.allowUnconfirmedDestructive !== true || e.access === 'read' || e.tier === 0, {
    message: 'allowUnconfirmedDestructive: true is for an entry giving tier 0 or access read',
  });

const ServerEntrySchema = z.strictObject({
  /** Take this server's `readOnlyHint: true` as true (MCP: only for servers you trust). */
  trustAnnotations: z.boolean().optional(),
});

/** The operator's tool policy: which servers' annotations to trust, and per tool read/write, tier, rules. */
export const ToolPolicySchema = z.strictObject({
  servers: z.record(GlobSchema, ServerEntrySchema).optional(),
  tools: z.array(ToolEntrySchema).optional(),
});
export type ToolPolicyFile = z.infer<typeof ToolPolicySchema>;

/** Names an entry for people: `tools[2] (match "post_*")`. */
function entryName(file: unknown, path: readonly PropertyKey[]): string {
  const [section, index] = path;
  if (section === 'tools' && typeof index === 'number') {
    const entry = (file as { tools?: unknown[] }).tools?.[index] as { match?: unknown } | undefined;
    return typeof entry?.match === 'string' ? `tools[${index}] (match "${entry.match}")` : `tools[${index}]`;
  }
  if (section === 'servers' && typeof index === 'string') return `servers."${index}"`;
  return String(section ?? 'the file');
}

/** Parses a policy's text (YAML, of which JSON is a part); throws a ToolPolicyError naming the bad entry. */
export function parsePolicyText(text: string): ToolPolicyFile {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new ToolPolicyError(`is not valid JSON or YAML: ${(error as Error).message}`, { cause: error });
  }
  const parsed = ToolPolicySchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = entryName(raw, issue?.path ?? []);
    const field = issue && issue.path.length > 2 ? `${issue.path.slice(2).join('.')}: ` : '';
    throw new ToolPolicyError(`${where}: ${field}${issue?.message ?? 'is invalid'}`);
  }
  return parsed.data;
}

/** Reads a policy file's text; throws a ToolPolicyError naming the path when it cannot. */
export function readPolicyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ToolPolicyError(
      `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): ${path}`,
      {
        cause: error,
      },
    );
  }
}
