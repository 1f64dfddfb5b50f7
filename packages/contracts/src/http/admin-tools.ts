import { z } from 'zod';

/** `GET /v1/admin/tools?server=&kind=`: the tool registry, optionally narrowed. */
export const ToolRegistryQuerySchema = z.strictObject({
  /** Only the tools of this MCP server (its configured name). */
  server: z.string().min(1).max(64).optional(),
  /** Only reads or only writes. */
  kind: z.enum(['read', 'write']).optional(),
});

/** `/v1/admin/tools/:server/:tool/…`: one tool of one server, by the server's own name for it. */
export const ToolPinParamsSchema = z.strictObject({
  server: z.string().min(1).max(64),
  tool: z.string().min(1).max(128),
});

/**
 * `POST /v1/admin/tools/:server/:tool/accept` (or `/refuse`): the decision binds to the definition
 * the operator reviewed, named by its hash as `GET /v1/admin/tools/changes` showed it.
 */
export const ToolPinDecisionSchema = z.strictObject({
  hash: z
    .string()
    .regex(
      /^[0-9a-f]{64}$/,
      'must be the definition hash shown by GET /v1/admin/tools/changes (64 hex digits)',
    ),
});
