import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { validationError } from '../http-errors.ts';
import { type AdminDeps, HIDDEN, iso, noDatabase } from './shared.ts';

const ToolsQuerySchema = z.strictObject({
  /** Only the tools of this MCP server (its configured name). */
  server: z.string().min(1).max(64).optional(),
  /** Only reads or only writes. */
  kind: z.enum(['read', 'write']).optional(),
});

/**
 * `GET /v1/admin/tools`: the tool registry as the executor classified it — for each tool its
 * server, read or write, why (`verb`, `annotation`, `policy`, `default`, with the detail in words),
 * its confirmation tier, group, usage and when it was last listed.
 */
export function registerTools(admin: FastifyInstance, deps: AdminDeps): void {
  const { db } = deps;
  admin.get('/v1/admin/tools', HIDDEN, async (request, reply) => {
    const query = ToolsQuerySchema.safeParse(request.query ?? {});
    if (!query.success) return reply.code(400).send(validationError(query.error.issues));
    if (!db) return noDatabase(reply, 'The tool registry');
    let select = db
      .selectFrom('tool_registry')
      .select([
        'tool_name',
        'server_name',
        'description',
        'is_write',
        'access_reason',
        'access_detail',
        'confirm_tier',
        'tool_group',
        'usage_count',
        'last_seen_at',
      ])
      .orderBy('server_name')
      .orderBy('tool_name');
    if (query.data.server) select = select.where('server_name', '=', query.data.server);
    if (query.data.kind) select = select.where('is_write', '=', query.data.kind === 'write');
    const rows = await select.execute();
    return {
      tools: rows.map((row) => ({
        name: row.tool_name,
        server: row.server_name,
        description: row.description,
        kind: row.is_write ? 'write' : 'read',
        reason: row.access_reason,
        detail: row.access_detail,
        tier: row.confirm_tier,
        group: row.tool_group,
        usageCount: row.usage_count,
        lastSeenAt: row.last_seen_at ? iso(row.last_seen_at) : null,
      })),
    };
  });
}
