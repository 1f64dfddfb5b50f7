import { ToolRegistryQuerySchema } from '@munim/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { GatewayContext } from '../../context.ts';
import { HIDDEN } from '../../plugins/openapi.ts';
import type { ZodTypeProvider } from '../../plugins/validation.ts';
import { noDatabase } from '../../tenant.ts';
import { iso } from './shared.ts';

/**
 * `GET /v1/admin/tools`: the tool registry as the executor classified it — for each tool its
 * server, read or write, why (`verb`, `annotation`, `policy`, `default`, with the detail in words),
 * its confirmation tier, group, usage and when it was last listed.
 */
export const toolRoutes: FastifyPluginAsync<Pick<GatewayContext, 'db'>> = async (admin, { db }) => {
  const schema = { ...HIDDEN, querystring: ToolRegistryQuerySchema };
  admin.withTypeProvider<ZodTypeProvider>().get('/v1/admin/tools', { schema }, async (request) => {
    const { query } = request;
    if (!db) throw noDatabase('The tool registry');
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
    if (query.server) select = select.where('server_name', '=', query.server);
    if (query.kind) select = select.where('is_write', '=', query.kind === 'write');
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
};
