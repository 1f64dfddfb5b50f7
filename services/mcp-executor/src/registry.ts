import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type ToolDefinition, ToolDefinitionSchema } from '@munim/contracts';
import type { Logger } from '@munim/kit';
import { ToolPolicy } from './policy.ts';

/** A tool as `tools/list` reports it. */
export interface ListedTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown> | undefined;
}

const MAX_PAGES = 100;

/** Every tool of the server, following `nextCursor` until the last page. */
export async function listAllTools(client: Client, timeoutMs: number): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    tools.push(...(result.tools as ListedTool[]));
    cursor = result.nextCursor;
    // A server repeating a cursor would loop forever.
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return tools;
}

/**
 * The registry's view of one listed tool, classified by its name, its annotations (trusted only
 * as the policy says) and the operator's policy for its server; undefined when the entry is unusable.
 * A tier 0 the policy gives a destructive tool without `allowUnconfirmedDestructive` is refused and
 * logged as an error.
 */
export function toDefinition(
  tool: ListedTool,
  server = 'mcp',
  policy: ToolPolicy = ToolPolicy.none,
  log?: Pick<Logger, 'error'>,
): ToolDefinition | undefined {
  const raw = tool.annotations;
  const parsed = ToolDefinitionSchema.safeParse({
    name: tool.name,
    title: tool.title ?? (typeof raw?.title === 'string' ? raw.title : undefined),
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: raw,
    isWrite: true,
  });
  if (!parsed.success || typeof tool.name !== 'string') return undefined;
  const { access, refused } = policy.classify(tool.name, parsed.data.annotations, {
    description: parsed.data.description,
    server,
  });
  if (refused)
    log?.error(
      { server, tool: tool.name, entry: refused, tier: access.tier },
      'tool policy refused: tier 0 for a destructive tool without allowUnconfirmedDestructive; it keeps its tier',
    );
  return { ...parsed.data, isWrite: access.kind === 'write', access };
}

/** The tools of the MCP server, held in memory and replaced as a whole on each refresh. */
export class ToolRegistry {
  #tools = new Map<string, ToolDefinition>();
  #loadedAt: number | undefined;

  /** Whether a listing has ever succeeded. */
  get loaded(): boolean {
    return this.#loadedAt !== undefined;
  }

  /** When the current listing was taken (epoch ms), if any. */
  get loadedAt(): number | undefined {
    return this.#loadedAt;
  }

  list(): ToolDefinition[] {
    return [...this.#tools.values()];
  }

  get(name: string): ToolDefinition | undefined {
    return this.#tools.get(name);
  }

  /** Replaces the registry with definitions made elsewhere (several servers, renamed tools). */
  replaceDefinitions(definitions: readonly ToolDefinition[]): void {
    this.#tools = new Map(definitions.map((d) => [d.name, d]));
    this.#loadedAt = Date.now();
  }

  /** Replaces the registry; returns the names of entries that were skipped as unusable. */
  replace(tools: readonly ListedTool[], server?: string, policy?: ToolPolicy): string[] {
    const next = new Map<string, ToolDefinition>();
    const skipped: string[] = [];
    for (const tool of tools) {
      const definition = toDefinition(tool, server, policy);
      if (definition) next.set(definition.name, definition);
      else skipped.push(String(tool.name));
    }
    this.#tools = next;
    this.#loadedAt = Date.now();
    return skipped;
  }
}
