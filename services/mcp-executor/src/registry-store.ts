import type { ToolDefinition, ToolsChanged } from '@munim/contracts';
import type { Database } from '@munim/db';
import { type Kysely, sql } from 'kysely';

/** What differs between two listings of the registry. */
export type RegistryDiff = Pick<ToolsChanged, 'added' | 'removed' | 'changed'>;

const fingerprint = (tool: ToolDefinition) =>
  JSON.stringify([
    tool.title,
    tool.description,
    tool.inputSchema,
    tool.annotations,
    tool.isWrite,
    tool.access,
  ]);

/** Tools added, removed and redefined from `before` to `after`. */
export function diffTools(before: readonly ToolDefinition[], after: readonly ToolDefinition[]): RegistryDiff {
  const old = new Map(before.map((t) => [t.name, fingerprint(t)]));
  const now = new Map(after.map((t) => [t.name, fingerprint(t)]));
  // Sorted, so a notice reads the same whatever order the server lists its tools in.
  return {
    added: [...now.keys()].filter((name) => !old.has(name)).sort(),
    removed: [...old.keys()].filter((name) => !now.has(name)).sort(),
    changed: [...now]
      .filter(([name, print]) => old.has(name) && old.get(name) !== print)
      .map(([name]) => name)
      .sort(),
  };
}

/** Whether a diff changes anything. */
export const isEmptyDiff = (diff: RegistryDiff) =>
  diff.added.length + diff.removed.length + diff.changed.length === 0;

/**
 * Writes a listing into `tool_registry`: every listed tool upserted with its
 * definition and `last_seen_at`; tools no longer listed keep their row and an older `last_seen_at`.
 * `groupOf` names the tool's group (null when no group fits: then a group set by hand is kept);
 * usage counts and keywords are left alone.
 */
export async function syncToolRegistry(
  db: Kysely<Database>,
  tools: readonly ToolDefinition[],
  groupOf: (tool: ToolDefinition) => string | null = () => null,
): Promise<void> {
  if (tools.length === 0) return;
  await db
    .insertInto('tool_registry')
    .values(
      tools.map((tool) => ({
        tool_name: tool.name,
        description: tool.description ?? tool.title ?? null,
        input_schema: JSON.stringify(tool.inputSchema),
        annotations: tool.annotations ? JSON.stringify(tool.annotations) : null,
        is_write: tool.isWrite,
        server_name: tool.access?.server ?? null,
        access_reason: tool.access?.reason ?? null,
        access_detail: tool.access?.detail ?? null,
        confirm_tier: tool.access?.tier ?? null,
        tool_group: groupOf(tool),
        last_seen_at: sql<Date>`now()`,
        updated_at: sql<Date>`now()`,
      })),
    )
    .onConflict((oc) =>
      oc.column('tool_name').doUpdateSet((eb) => ({
        description: eb.ref('excluded.description'),
        input_schema: eb.ref('excluded.input_schema'),
        annotations: eb.ref('excluded.annotations'),
        is_write: eb.ref('excluded.is_write'),
        server_name: eb.ref('excluded.server_name'),
        access_reason: eb.ref('excluded.access_reason'),
        access_detail: eb.ref('excluded.access_detail'),
        confirm_tier: eb.ref('excluded.confirm_tier'),
        tool_group: sql<string | null>`coalesce(excluded.tool_group, tool_registry.tool_group)`,
        last_seen_at: eb.ref('excluded.last_seen_at'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}

/**
 * Counts tool calls in memory and adds them to `tool_registry.usage_count` in one statement per
 * flush, so counting costs a call nothing on its path.
 */
export class UsageCounter {
  readonly #db: Kysely<Database>;
  #counts = new Map<string, number>();

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  count(tool: string): void {
    this.#counts.set(tool, (this.#counts.get(tool) ?? 0) + 1);
  }

  /** Adds the pending counts to the table; on failure they are kept for the next flush. */
  async flush(): Promise<void> {
    if (this.#counts.size === 0) return;
    const counts = this.#counts;
    this.#counts = new Map();
    try {
      for (const [tool, n] of counts) {
        await this.#db
          .updateTable('tool_registry')
          .set({ usage_count: sql<number>`usage_count + ${n}` })
          .where('tool_name', '=', tool)
          .execute();
        counts.delete(tool);
      }
    } catch (error) {
      for (const [tool, n] of counts) this.#counts.set(tool, (this.#counts.get(tool) ?? 0) + n);
      throw error;
    }
  }
}
