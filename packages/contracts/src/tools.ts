import { z } from 'zod';
import { describedChange } from './tool-description.ts';
import { parseToolName } from './tool-names.ts';

/** MCP tool annotations (hints) as the server reports them. */
export const ToolAnnotationsSchema = z.looseObject({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});
export type ToolAnnotations = z.infer<typeof ToolAnnotationsSchema>;

/** Confirmation tiers: 0 none (reads), 1 confirm, 2 summary of changes, 3 typed. */
export const ConfirmationTierSchema = z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]);
export type ConfirmationTier = z.infer<typeof ConfirmationTierSchema>;

/** Field rules an operator's policy adds to a write tool (exact field names of its input schema). */
export const PolicyWriteRulesSchema = z.strictObject({
  /** Fields that must be present and neither null nor empty. */
  required: z.array(z.string().min(1)).optional(),
  /** Fields that must be non-empty arrays. */
  nonEmpty: z.array(z.string().min(1)).optional(),
  /** Amount fields that must be greater than zero when present. */
  positive: z.array(z.string().min(1)).optional(),
  /** The call is a journal: its lines must balance (debits equal credits). */
  balancedJournal: z.boolean().optional(),
});
export type PolicyWriteRules = z.infer<typeof PolicyWriteRulesSchema>;

/**
 * How a tool was classified and why: by its verb, another word of its name
 * (`name`: a change verb after a conjunction, a word that is only ever a verb, a verb in the
 * server prefix), as a runner of statements the caller writes (`statement`), by its description,
 * an annotation (`readOnlyHint: false` or `destructiveHint: true` from any server, `readOnlyHint:
 * true` only from a server the operator trusts), the operator's policy, or by default (no verb).
 */
export const ToolAccessSchema = z.object({
  kind: z.enum(['read', 'write']),
  reason: z.enum(['verb', 'annotation', 'policy', 'default', 'name', 'statement', 'description']),
  /** In words, for people: which verb, word, description or annotation decided. */
  detail: z.string(),
  /** The verb read from the name, if any. */
  verb: z.string().optional(),
  /** The word, phrase or annotation that decided, as the server wrote it. */
  evidence: z.string().optional(),
  /** Whether the write is destructive (a destructive verb, `destructiveHint: true`, or policy tier 3). */
  destructive: z.boolean(),
  /** Confirmation tier: 0 for reads (and writes the operator's policy exempts). */
  tier: ConfirmationTierSchema,
  /** The MCP server that lists the tool, by its configured name. */
  server: z.string().optional(),
  /** Write rules added by the operator's policy. */
  rules: PolicyWriteRulesSchema.optional(),
});
export type ToolAccess = z.infer<typeof ToolAccessSchema>;

/** A tool of the accounting system as the registry knows it. */
export const ToolDefinitionSchema = z.object({
  name: z.string().min(1).max(128),
  title: z.string().optional(),
  description: z.string().optional(),
  /** The tool's JSON Schema for its arguments, as published by the MCP server. */
  inputSchema: z.record(z.string(), z.unknown()),
  annotations: ToolAnnotationsSchema.optional(),
  isWrite: z.boolean(),
  /** How the registry classified the tool; `isWrite` is `access.kind === 'write'`. */
  access: ToolAccessSchema.optional(),
});
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;

const TIER_OF_CLASS = { destructive: 3, edit: 2, create: 1 } as const;

/** What an operator's policy says of one tool (see the executor's policy file). */
export interface ToolPolicyDecision {
  access?: 'read' | 'write' | undefined;
  tier?: ConfirmationTier | undefined;
  rules?: PolicyWriteRules | undefined;
  /** Names the policy entry, for `ToolAccess.detail`. */
  source?: string | undefined;
}

/** What the classifier knows of a tool beyond its name. */
export interface ClassifyOptions {
  /** The tool's description as the server lists it: it can make a tool a write, never a read. */
  description?: string | undefined;
  /** Whether the operator trusts this server's `readOnlyHint: true`. */
  trustAnnotations?: boolean;
  policy?: ToolPolicyDecision | undefined;
  server?: string;
}

/** One finding that makes a tool a write: why, in words, and the tier it asks for. */
interface Finding {
  reason: Exclude<ToolAccess['reason'], 'policy'>;
  detail: string;
  evidence: string;
  tier: 1 | 2 | 3;
}

const PLACE_WORDS = {
  word: (w: string) => `the word "${w}" is only ever a verb of change`,
  prefix: (w: string) => `the server prefix holds the verb "${w}"`,
} as const;

/** Every finding of the name, the description and the annotations that makes the tool a write. */
function findings(name: string, annotations: ToolAnnotations | undefined, description?: string): Finding[] {
  const parts = parseToolName(name);
  const out: Finding[] = [];
  if (parts.statement)
    out.push({
      reason: 'statement',
      detail: `it runs statements the caller writes (the word "${parts.statement}")`,
      evidence: parts.statement,
      tier: 3,
    });
  for (const change of parts.changes) {
    const tier = TIER_OF_CLASS[change.verbClass];
    if (change.place === 'verb')
      out.push({
        reason: 'verb',
        detail: `its verb "${change.word}" is not a read verb`,
        evidence: change.word,
        tier,
      });
    else if (change.place === 'conjunction')
      out.push({
        reason: 'name',
        detail: `after "${change.after}" its name names a second action, "${change.word}"`,
        evidence: change.word,
        tier,
      });
    else
      out.push({
        reason: 'name',
        detail: PLACE_WORDS[change.place](change.word),
        evidence: change.word,
        tier,
      });
  }
  // A description makes a read a write; for a write its name already shows, it raises the tier
  // only to a typed confirmation (a destructive change, a statement run): names say the action better.
  const named = out.length > 0;
  if (annotations?.destructiveHint === true)
    out.push({
      reason: 'annotation',
      detail: 'the server annotates it destructiveHint: true',
      evidence: 'destructiveHint: true',
      tier: 3,
    });
  if (annotations?.readOnlyHint === false)
    out.push({
      reason: 'annotation',
      detail: 'the server annotates it readOnlyHint: false',
      evidence: 'readOnlyHint: false',
      tier: 1,
    });
  const said = describedChange(description);
  if (said)
    out.push({
      reason: 'description',
      detail:
        said.kind === 'statement'
          ? `its description says it runs a statement the caller supplies: "${said.phrase}"`
          : `its description says it changes something ("${said.word}"): "${said.phrase}"`,
      evidence: said.phrase,
      tier: named && said.verbClass !== 'destructive' ? 1 : TIER_OF_CLASS[said.verbClass],
    });
  if (parts.mainVerb === undefined && out.length === 0)
    out.push({
      reason: 'default',
      detail: 'its name has no verb munim knows, so it is treated as a write',
      evidence: parts.words.join(' '),
      tier: 1,
    });
  return out;
}

/**
 * Classifies a tool, failing closed (docs/mcp-servers.md). A read must be proven: its verb is a read verb,
 * nothing else in its name (server prefix included) names a change, it does not run statements the
 * caller writes, its description does not say it changes anything, and no annotation says it writes
 * — or the operator's policy says it is a read, or a server the operator trusts annotates it
 * `readOnlyHint: true` (and nothing says it is destructive or changes something). Every other tool
 * writes; its tier is the policy's, else the highest any finding asks for (3 for a destructive verb,
 * a statement runner or `destructiveHint: true`, 2 for an edit, 1 for any other write).
 */
export function classifyTool(
  name: string,
  annotations?: ToolAnnotations,
  opts: ClassifyOptions = {},
): ToolAccess {
  const parts = parseToolName(name);
  const { policy } = opts;
  const extra = {
    ...(parts.verb ? { verb: parts.verb } : {}),
    ...(opts.server ? { server: opts.server } : {}),
    ...(policy?.rules ? { rules: policy.rules } : {}),
  };
  const found = findings(name, annotations, opts.description);
  const policySource = policy?.source ?? 'an entry';
  if (policy?.access === 'read')
    return {
      kind: 'read',
      reason: 'policy',
      detail: `the tool policy (${policySource}) says read`,
      destructive: false,
      tier: 0,
      ...extra,
    };
  const stricter = found.filter((f) => f.reason === 'annotation' || f.reason === 'description');
  if (annotations?.readOnlyHint === true && opts.trustAnnotations && stricter.length === 0 && !policy?.access)
    return {
      kind: 'read',
      reason: 'annotation',
      detail: 'a trusted server annotates it readOnlyHint: true',
      evidence: 'readOnlyHint: true',
      destructive: false,
      tier: 0,
      ...extra,
    };
  if (found.length === 0 && !policy?.access)
    return {
      kind: 'read',
      reason: 'verb',
      detail: `its verb "${parts.mainVerb}" is a read verb and nothing else names a change`,
      evidence: parts.mainVerb ?? '',
      destructive: false,
      tier: 0,
      ...extra,
    };
  const [first] = found;
  let reason: ToolAccess['reason'] = first?.reason ?? 'policy';
  let detail = first?.detail ?? '';
  if (policy?.access === 'write') {
    reason = 'policy';
    detail = `the tool policy (${policySource}) says write${first ? `; also ${first.detail}` : ''}`;
  }
  if (annotations?.readOnlyHint === true && !opts.trustAnnotations)
    detail += ' (readOnlyHint: true ignored: server not trusted)';
  const byFindings = Math.max(1, ...found.map((f) => f.tier)) as 1 | 2 | 3;
  const tier: ConfirmationTier = policy?.tier ?? byFindings;
  const destructive = tier === 3 || byFindings === 3;
  if (policy?.tier !== undefined && reason !== 'policy')
    detail += `; tier ${tier} from the tool policy (${policySource})`;
  return {
    kind: 'write',
    reason,
    detail,
    ...(first ? { evidence: first.evidence } : {}),
    destructive,
    tier,
    ...extra,
  };
}

/**
 * Whether a tool is a write (docs/mcp-servers.md), by name, annotations and (when given) description alone — no trusted servers, no
 * policy. Where the registry's definition is at hand, its `isWrite` is the decision.
 */
export function isWriteTool(name: string, annotations?: ToolAnnotations, description?: string): boolean {
  return classifyTool(name, annotations, { description }).kind === 'write';
}

/**
 * Whether a tool call of a finished request was a write: as the registry classified it when the
 * call was made (its `write`), else by its name — so the router's cache and learning, and the
 * agent's guardrails, use the executor's one decision.
 */
export function isWriteResult(result: { tool: string; write?: boolean | undefined }): boolean {
  return result.write ?? isWriteTool(result.tool);
}
