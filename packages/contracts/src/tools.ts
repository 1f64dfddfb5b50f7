import { z } from 'zod';
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

/** Confirmation tiers of seed 000 §7.1: 0 none (reads), 1 confirm, 2 summary of changes, 3 typed. */
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
 * How a tool was classified (DESIGN §3.5) and why: by its verb, an annotation (a `readOnlyHint`
 * of `false` from any server, `true` only from a server the operator trusts), the operator's
 * policy, or by default (no read verb: a write).
 */
export const ToolAccessSchema = z.object({
  kind: z.enum(['read', 'write']),
  reason: z.enum(['verb', 'annotation', 'policy', 'default']),
  /** In words, for people: which verb, annotation or policy entry decided. */
  detail: z.string(),
  /** The verb read from the name, if any. */
  verb: z.string().optional(),
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

/**
 * Classifies a tool, failing closed (DESIGN §3.5): a read only when its verb is a read verb, the
 * policy says so, or a trusted server annotates it `readOnlyHint: true`; every other tool writes.
 * A `readOnlyHint: false` makes any tool a write. Tier: the policy's, else 3 for a destructive
 * verb or `destructiveHint: true`, 2 for an edit, 1 for any other write.
 */
export function classifyTool(
  name: string,
  annotations?: ToolAnnotations,
  opts: { trustAnnotations?: boolean; policy?: ToolPolicyDecision | undefined; server?: string } = {},
): ToolAccess {
  const parts = parseToolName(name);
  const { policy } = opts;
  const verbText = parts.verb ? `the verb "${parts.verb}"` : 'no verb munim knows';
  const extra = {
    ...(parts.verb ? { verb: parts.verb } : {}),
    ...(opts.server ? { server: opts.server } : {}),
    ...(policy?.rules ? { rules: policy.rules } : {}),
  };
  let kind: 'read' | 'write';
  let reason: ToolAccess['reason'];
  let detail: string;
  if (policy?.access) {
    kind = policy.access;
    reason = 'policy';
    detail = `the tool policy (${policy.source ?? 'an entry'}) says ${kind}`;
  } else if (annotations?.readOnlyHint === true && opts.trustAnnotations) {
    kind = 'read';
    reason = 'annotation';
    detail = 'a trusted server annotates it readOnlyHint: true';
  } else if (parts.verbClass === 'read' && annotations?.readOnlyHint === false) {
    kind = 'write';
    reason = 'annotation';
    detail = `the server annotates it readOnlyHint: false, whatever its verb "${parts.verb}" says`;
  } else if (parts.verbClass === 'read') {
    kind = 'read';
    reason = 'verb';
    detail = `its verb "${parts.verb}" is a read verb`;
  } else {
    kind = 'write';
    reason = parts.verb ? 'verb' : 'default';
    detail = parts.verb
      ? `${verbText} is not a read verb`
      : 'its name has no verb munim knows, so it is treated as a write';
    if (annotations?.readOnlyHint === true) detail += ' (readOnlyHint: true ignored: server not trusted)';
  }
  if (kind === 'read') return { kind, reason, detail, destructive: false, tier: 0, ...extra };
  const byVerb =
    parts.verbClass && parts.verbClass !== 'read' ? TIER_OF_CLASS[parts.verbClass] : (1 as const);
  const byHint = annotations?.destructiveHint === true ? 3 : 1;
  const tier: ConfirmationTier = policy?.tier ?? (Math.max(byVerb, byHint) as 1 | 2 | 3);
  const destructive =
    tier === 3 || parts.verbClass === 'destructive' || annotations?.destructiveHint === true;
  if (policy?.tier !== undefined && reason !== 'policy')
    detail += `; tier ${tier} from the tool policy (${policy.source ?? 'an entry'})`;
  return { kind, reason, detail, destructive, tier, ...extra };
}

/**
 * DESIGN §3.5, by name and annotations alone (no trusted servers, no policy): a read only when the
 * name's verb is a read verb and no `readOnlyHint: false` says otherwise.
 */
export function isWriteTool(name: string, annotations?: ToolAnnotations): boolean {
  return classifyTool(name, annotations).kind === 'write';
}
