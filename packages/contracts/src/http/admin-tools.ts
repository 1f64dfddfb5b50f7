import { z } from 'zod';

/** `GET /v1/admin/tools?server=&kind=`: the tool registry, optionally narrowed. */
export const ToolRegistryQuerySchema = z.strictObject({
  /** Only the tools of this MCP server (its configured name). */
  server: z.string().min(1).max(64).optional(),
  /** Only reads or only writes. */
  kind: z.enum(['read', 'write']).optional(),
});
