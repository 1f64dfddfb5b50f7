import { z } from 'zod';

/** MCP tool annotations (hints) as the server reports them. */
export const ToolAnnotationsSchema = z.looseObject({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});
export type ToolAnnotations = z.infer<typeof ToolAnnotationsSchema>;

/** A tool of the accounting system as the registry knows it. */
export const ToolDefinitionSchema = z.object({
  name: z.string().min(1).max(128),
  title: z.string().optional(),
  description: z.string().optional(),
  /** The tool's JSON Schema for its arguments, as published by the MCP server. */
  inputSchema: z.record(z.string(), z.unknown()),
  annotations: ToolAnnotationsSchema.optional(),
  isWrite: z.boolean(),
});
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;

/** Name prefixes that make a tool a write tool (DESIGN §3.5). */
export const WRITE_TOOL_PREFIXES = [
  'create_',
  'update_',
  'delete_',
  'void_',
  'approve_',
  'send_',
  'file_',
  'import_',
  'merge_',
  'adjust_',
  'reconcile_',
] as const;

/** DESIGN §3.5: a write tool is one named with a write prefix or annotated `readOnlyHint: false`. */
export function isWriteTool(name: string, annotations?: ToolAnnotations): boolean {
  if (annotations?.readOnlyHint === false) return true;
  return WRITE_TOOL_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/** Confirmation tiers of seed 000 §7.1. */
export const ConfirmationTierSchema = z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]);
export type ConfirmationTier = z.infer<typeof ConfirmationTierSchema>;
