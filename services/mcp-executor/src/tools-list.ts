import { HandlerError } from '@munim/bus';
import type { ToolList } from '@munim/contracts';
import { UNAVAILABLE } from './call.ts';
import type { ServerPool } from './pool.ts';

/** Answers `toolsList`: every tool of the registry, or MCP_UNAVAILABLE before the first listing. */
export function toolsListHandler(pool: ServerPool): () => Promise<ToolList> {
  return async () => {
    if (!pool.registry.loaded) throw new HandlerError('MCP_UNAVAILABLE', UNAVAILABLE);
    return { tools: pool.registry.list() };
  };
}
