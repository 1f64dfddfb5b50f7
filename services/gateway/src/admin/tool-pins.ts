import { type ToolPinChanged, ToolPinDecisionSchema, ToolPinParamsSchema } from '@munim/contracts';
import type { ToolPinRow } from '@munim/db';
import type { FastifyPluginAsync } from 'fastify';
import { sql } from 'kysely';
import type { GatewayContext } from '../context.ts';
import { HttpRefusal, httpError, noDatabase } from '../http-errors.ts';
import { HIDDEN } from '../plugins/openapi.ts';
import type { ZodTypeProvider } from '../plugins/validation.ts';
import { iso } from './shared.ts';

const PARTS = ['name', 'title', 'description', 'inputSchema', 'annotations'] as const;

/** Which parts of a wire definition differ between two versions, in the order an operator reads them. */
function differs(before: ToolPinRow['pinned_definition'], after: ToolPinRow['listed_definition']): string[] {
  return PARTS.filter((part) => JSON.stringify(before[part]) !== JSON.stringify(after[part]));
}

/** A tool's pin as the admin API shows it: what is trusted, what the server lists now, what was refused. */
function toChange(row: ToolPinRow) {
  return {
    server: row.server_name,
    tool: row.tool_name,
    state: row.state,
    differs: differs(row.pinned_definition, row.listed_definition),
    pinned: {
      hash: row.pinned_hash,
      definition: row.pinned_definition,
      since: iso(row.pinned_at),
      acceptedBy: row.accepted_by,
    },
    listed: { hash: row.listed_hash, definition: row.listed_definition, at: iso(row.listed_at) },
    refused:
      row.refused_hash && row.refused_at
        ? { hash: row.refused_hash, by: row.refused_by, at: iso(row.refused_at) }
        : null,
  };
}

const short = (hash: string) => `${hash.slice(0, 12)}…`;

/**
 * Changed tool definitions: a server that changes what a pinned tool does or says cannot change
 * it silently (see docs/mcp-servers.md). `GET /v1/admin/tools/changes` shows,
 * for every tool whose server lists another definition than the pinned one, both definitions and
 * what differs; `POST /v1/admin/tools/:server/:tool/accept` pins the listed definition, and
 * `/refuse` keeps the tool withheld, each bound to the hash of the definition the operator
 * reviewed. A decision is announced with `toolPinChanged`, so every executor reloads at once.
 */
export const toolPinRoutes: FastifyPluginAsync<GatewayContext> = async (app, ctx) => {
  const { db } = ctx;
  const admin = app.withTypeProvider<ZodTypeProvider>();
  const noPins = () => noDatabase('Tool pins');
  const one = { ...HIDDEN, params: ToolPinParamsSchema, body: ToolPinDecisionSchema };

  admin.get('/v1/admin/tools/changes', { schema: HIDDEN }, async () => {
    if (!db) throw noPins();
    const rows = await db
      .selectFrom('tool_pins')
      .selectAll()
      .where('state', '<>', 'pinned')
      .orderBy('server_name')
      .orderBy('tool_name')
      .execute();
    return { changes: rows.map(toChange) };
  });

  /** Why a decision on `hash` found nothing to decide: no such pin, or another definition listed now. */
  const refusal = async (server: string, tool: string, hash: string): Promise<HttpRefusal> => {
    const row = await db
      ?.selectFrom('tool_pins')
      .selectAll()
      .where('server_name', '=', server)
      .where('tool_name', '=', tool)
      .executeTakeFirst();
    if (!row) {
      return new HttpRefusal(
        404,
        httpError(
          'NOT_FOUND',
          `The server "${server}" has never listed a tool "${tool}" (GET /v1/admin/tools lists the tools).`,
          { field: 'tool' },
        ),
      );
    }
    if (row.state === 'pinned' && row.pinned_hash === hash) {
      return new HttpRefusal(
        409,
        httpError(
          'CONFLICT',
          `The tool "${tool}" of the server "${server}" has no change awaiting review: it is listed with its pinned definition.`,
          { field: 'hash' },
        ),
      );
    }
    return new HttpRefusal(
      409,
      httpError(
        'CONFLICT',
        `The server "${server}" now lists a definition of "${tool}" with hash ${short(row.listed_hash)}, not ` +
          `the reviewed ${short(hash)}: review it again (GET /v1/admin/tools/changes).`,
        { field: 'hash' },
      ),
    );
  };

  const announce = (data: ToolPinChanged, by: string) => {
    ctx.bus.broadcast('toolPinChanged', data);
    ctx.log.info({ ...data, by }, `changed tool definition ${data.reason}`);
  };

  // Accept pins the listed definition; refuse keeps the tool withheld. Either is bound to the
  // definition reviewed: it applies only while the server lists exactly that hash.
  for (const [action, reason] of [
    ['accept', 'accepted'],
    ['refuse', 'refused'],
  ] as const) {
    admin.post(`/v1/admin/tools/:server/:tool/${action}`, { schema: one }, async (request) => {
      if (!db) throw noPins();
      const { server, tool } = request.params;
      const { hash } = request.body;
      const by = request.principal?.id ?? 'admin';
      const pending = db
        .updateTable('tool_pins')
        .where('server_name', '=', server)
        .where('tool_name', '=', tool)
        .where('listed_hash', '=', hash)
        .where('state', '<>', 'pinned');
      const decided =
        reason === 'accepted'
          ? pending.set((eb) => ({
              pinned_hash: eb.ref('listed_hash'),
              pinned_definition: sql<string>`listed_definition`,
              pinned_at: sql<Date>`now()`,
              accepted_by: by,
              refused_hash: null,
              refused_by: null,
              refused_at: null,
            }))
          : pending.set({ refused_hash: hash, refused_by: by, refused_at: sql<Date>`now()` });
      const row = await decided.returningAll().executeTakeFirst();
      if (!row) throw await refusal(server, tool, hash);
      announce({ reason, server, tool }, by);
      return toChange(row);
    });
  }
};
