import { readFileSync } from 'node:fs';
import {
  type ConfirmationTier,
  type PolicyWriteRules,
  PolicyWriteRulesSchema,
  type ToolPolicyDecision,
} from '@munim/contracts';
import picomatch from 'picomatch';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** The tool policy file is unreadable or malformed; the message names the entry. */
export class ToolPolicyError extends Error {
  override name = 'ToolPolicyError';
}

const GlobSchema = z.string().min(1).max(200);

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
  })
  .refine((e) => e.access !== undefined || e.tier !== undefined || e.rules !== undefined, {
    message: 'says nothing: give access, tier or rules',
  })
  .refine((e) => e.access !== 'read' || (e.tier === undefined && e.rules === undefined), {
    message: 'a read has no tier or rules',
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

interface CompiledEntry {
  source: string;
  tool: (name: string) => boolean;
  server: (name: string) => boolean;
  access?: 'read' | 'write' | undefined;
  tier?: ConfirmationTier | undefined;
  rules?: PolicyWriteRules | undefined;
}

const glob = (pattern: string) => picomatch(pattern, { dot: true, nocase: false });

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

/**
 * The operator's tool policy (`TOOL_POLICY_FILE`, JSON or YAML). Entries apply in order: for each
 * of access, tier and rules, the first entry matching the tool (and server) that sets it decides.
 */
export class ToolPolicy {
  readonly #entries: CompiledEntry[];
  readonly #trusted: ((server: string) => boolean)[];

  private constructor(file: ToolPolicyFile) {
    this.#entries = (file.tools ?? []).map((entry, i) => ({
      source: `tools[${i}] "${entry.match}"`,
      tool: glob(entry.match),
      server: entry.server ? glob(entry.server) : () => true,
      access: entry.access,
      tier: entry.tier,
      rules: entry.rules,
    }));
    this.#trusted = Object.entries(file.servers ?? {})
      .filter(([, server]) => server.trustAnnotations === true)
      .map(([pattern]) => glob(pattern));
  }

  /** No policy: names and untrusted annotations decide. */
  static readonly none = new ToolPolicy({});

  /** Parses a policy's text (YAML, of which JSON is a part); throws a ToolPolicyError naming the bad entry. */
  static parse(text: string): ToolPolicy {
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
    return new ToolPolicy(parsed.data);
  }

  /** Reads and parses a policy file. */
  static load(path: string): ToolPolicy {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new ToolPolicyError(
        `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): ${path}`,
        {
          cause: error,
        },
      );
    }
    return ToolPolicy.parse(text);
  }

  /** Whether the operator trusts this server's annotations. */
  trusts(server: string): boolean {
    return this.#trusted.some((match) => match(server));
  }

  /** What the policy says of a tool of a server (by the server's own name for it). */
  decide(server: string, tool: string): ToolPolicyDecision | undefined {
    const decision: ToolPolicyDecision = {};
    const sources: string[] = [];
    for (const entry of this.#entries) {
      if (!entry.server(server) || !entry.tool(tool)) continue;
      let used = false;
      if (decision.access === undefined && entry.access !== undefined) {
        decision.access = entry.access;
        used = true;
      }
      if (decision.tier === undefined && entry.tier !== undefined) {
        decision.tier = entry.tier;
        used = true;
      }
      if (decision.rules === undefined && entry.rules !== undefined) {
        decision.rules = entry.rules;
        used = true;
      }
      if (used) sources.push(entry.source);
    }
    if (sources.length === 0) return undefined;
    return { ...decision, source: sources.join(', ') };
  }
}
