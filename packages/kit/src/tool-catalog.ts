import type { Bus } from '@munim/bus';
import type { RequestScope, ToolDefinition } from '@munim/contracts';

export interface ToolCatalog {
  /** The registry, from cache when fresh; fetched from the MCP executor otherwise. */
  list(scope: RequestScope, traceparent?: string): Promise<ToolDefinition[]>;
  /** Looks one tool up, refetching once (at most once a second) when the name is unknown. */
  find(name: string, scope: RequestScope, traceparent?: string): Promise<ToolDefinition | undefined>;
  invalidate(): void;
}

/** A cached view of the MCP executor's tool registry, shared by the services that need tool definitions. */
export function createToolCatalog(bus: Bus, opts: { ttlMs: number; timeoutMs: number }): ToolCatalog {
  let cached: { at: number; tools: ToolDefinition[]; byName: Map<string, ToolDefinition> } | undefined;
  let pending: Promise<ToolDefinition[]> | undefined;
  let lastMissRefresh = 0;

  const fetchTools = (scope: RequestScope, traceparent?: string) => {
    pending ??= bus
      .request('toolsList', scope, {}, { timeoutMs: opts.timeoutMs, traceparent })
      .then(({ tools }) => {
        cached = { at: Date.now(), tools, byName: new Map(tools.map((t) => [t.name, t])) };
        return tools;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };

  return {
    async list(scope, traceparent) {
      if (cached && Date.now() - cached.at < opts.ttlMs) return cached.tools;
      // A short executor outage should not fail every caller: a stale registry beats none.
      const stale = cached;
      return fetchTools(scope, traceparent).catch((error: unknown) => {
        if (stale) return stale.tools;
        throw error;
      });
    },
    async find(name, scope, traceparent) {
      await this.list(scope, traceparent);
      const hit = cached?.byName.get(name);
      if (hit || Date.now() - lastMissRefresh < 1000) return hit;
      lastMissRefresh = Date.now();
      await fetchTools(scope, traceparent);
      return cached?.byName.get(name);
    },
    invalidate() {
      cached = undefined;
    },
  };
}
