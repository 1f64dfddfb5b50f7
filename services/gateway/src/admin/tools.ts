import { ToolRegistryQuerySchema } from '@munim/contracts';
import type { FastifyPluginAsync } from 'fastify';
import { sql } from 'kysely';
import type { GatewayContext } from '../context.ts';
import { noDatabase } from '../http-errors.ts';
import { HIDDEN } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import { iso } from './shared.ts';

/**
 * `GET /v1/admin/tools`: the tool registry as the executor classified it — for each tool its
 * server, read or write, why (`verb`, `annotation`, `policy`, `default`, with the detail in words),
 * its confirmation tier, group, usage, when it was last listed, and its pin: `pinned` (offered),
 * `changed` (withheld: its server lists another definition, awaiting review) or `refused`
 * (withheld: an operator refused the listed definition), with the hash of the listed definition.
 */
export const toolRoutes: FastifyPluginAsync<Pick<GatewayContext, 'db'>> = async (admin, { db }) => {
  const schema = { ...HIDDEN, querystring: ToolRegistryQuerySchema };
  admin.withTypeProvider<ZodTypeProvider>().get('/v1/admin/tools', { schema }, async (request) => {
    const { query } = request;
    if (!db) throw noDatabase('The tool registry');
    let select = db
      .selectFrom('tool_registry as r')
      // A tool is pinned under its server's own name for it; the registry may show it as `<server>__<name>`.
      .leftJoin('tool_pins as p', (join) =>
        join
          .onRef('p.server_name', '=', 'r.server_name')
          .on((eb) =>
            eb.or([
              eb('p.tool_name', '=', eb.ref('r.tool_name')),
              eb(sql<string>`p.server_name || '__' || p.tool_name`, '=', eb.ref('r.tool_name')),
            ]),
          ),
      )
      .select([
        'r.tool_name',
        'r.server_name',
        'r.description',
        'r.is_write',
        'r.access_reason',
        'r.access_detail',
        'r.confirm_tier',
        'r.tool_group',
        'r.usage_count',
        'r.last_seen_at',
        'p.state as pin_state',
        'p.listed_hash as pin_hash',
      ])
      .orderBy('r.server_name')
      .orderBy('r.tool_name');
    if (query.server) select = select.where('r.server_name', '=', query.server);
    if (query.kind) select = select.where('r.is_write', '=', query.kind === 'write');
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
        pin: row.pin_state && row.pin_hash ? { state: row.pin_state, hash: row.pin_hash } : null,
      })),
    };
  });
};
