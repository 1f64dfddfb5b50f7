import { createHash } from 'node:crypto';
import type { Database, PinnedToolDefinition, ToolPinState } from '@munim/db';
import { type Kysely, sql } from 'kysely';
import type { ListedTool } from './registry.ts';

/** What a listing says of one tool's pin. */
export interface PinVerdict {
  /** `pinned`: the server lists the definition an operator trusts; otherwise the tool is withheld. */
  state: ToolPinState;
  /** The hash of the definition listed now. */
  hash: string;
  /** The tool was first pinned by this listing, on a server that had pins already. */
  added: boolean;
}

/** Where pins are kept: PostgreSQL for the system, memory for an executor without a database. */
export interface PinStore {
  /**
   * Records what a server lists now: a tool never seen is pinned at its listed definition, any
   * other keeps its pin. Returns each tool's verdict by its name on the server.
   */
  record(server: string, tools: readonly ListedTool[]): Promise<Map<string, PinVerdict>>;
}

/** Object keys sorted at every depth, so the order a server writes them in is no change. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
  );
}

/** A listed tool's wire definition: the name, title, description, input schema and annotations it was listed with. */
export function wireDefinition(tool: ListedTool): PinnedToolDefinition {
  return canonical({
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.inputSchema,
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
  }) as PinnedToolDefinition;
}

/** The SHA-256 (hex) of a wire definition's canonical JSON. */
export const definitionHash = (definition: PinnedToolDefinition): string =>
  createHash('sha256')
    .update(JSON.stringify(canonical(definition)))
    .digest('hex');

/** One entry per name, the first listed winning (a server listing a name twice defines it once). */
function hashed(tools: readonly ListedTool[]) {
  const byName = new Map<string, { definition: PinnedToolDefinition; hash: string }>();
  for (const tool of tools) {
    if (byName.has(tool.name)) continue;
    const definition = wireDefinition(tool);
    byName.set(tool.name, { definition, hash: definitionHash(definition) });
  }
  return byName;
}

/**
 * Pins kept in this process only: without a database nobody can accept a change, so a changed
 * tool stays withheld until the executor restarts (and pins what it finds then).
 */
export class MemoryPins implements PinStore {
  readonly #servers = new Map<string, Map<string, string>>();

  async record(server: string, tools: readonly ListedTool[]): Promise<Map<string, PinVerdict>> {
    let pins = this.#servers.get(server);
    const first = pins === undefined;
    pins ??= new Map();
    this.#servers.set(server, pins);
    const verdicts = new Map<string, PinVerdict>();
    for (const [name, { hash }] of hashed(tools)) {
      const pinned = pins.get(name);
      if (pinned === undefined) pins.set(name, hash);
      verdicts.set(name, {
        state: pinned === undefined || pinned === hash ? 'pinned' : 'changed',
        hash,
        added: pinned === undefined && !first,
      });
    }
    return verdicts;
  }
}

/**
 * Pins in `tool_pins`, shared by every executor instance and the admin API: one statement per
 * listing inserts new tools pinned and updates what the others list now; the database derives
 * each state, so instances and operators see the same.
 */
export class PgPins implements PinStore {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async record(server: string, tools: readonly ListedTool[]): Promise<Map<string, PinVerdict>> {
    const rows = [...hashed(tools)].map(([name, { definition, hash }]) => ({ name, hash, definition }));
    const verdicts = new Map<string, PinVerdict>();
    if (rows.length === 0) return verdicts;
    // `prior` reads the table as it was before this statement: zero means this is the server's first listing.
    const { rows: result } = await sql<{
      tool_name: string;
      listed_hash: string;
      state: ToolPinState;
      inserted: boolean;
      prior: number;
    }>`
      with prior as (select count(*)::int as n from tool_pins where server_name = ${server}),
      up as (
        insert into tool_pins (server_name, tool_name, pinned_hash, pinned_definition, listed_hash, listed_definition)
        select ${server}, t.name, t.hash, t.definition, t.hash, t.definition
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as t(name text, hash text, definition jsonb)
        on conflict (server_name, tool_name) do update
          set listed_hash = excluded.listed_hash,
              listed_definition = excluded.listed_definition,
              listed_at = now()
        returning tool_name, listed_hash, state, (xmax = 0) as inserted
      )
      select up.*, prior.n as prior from up cross join prior`.execute(this.#db);
    for (const row of result) {
      verdicts.set(row.tool_name, {
        state: row.state,
        hash: row.listed_hash,
        added: row.inserted && row.prior > 0,
      });
    }
    return verdicts;
  }
}
