import { HandlerError, RequestFailedError } from '@munim/bus';
import type { Message, RequestScope, ToolDefinition } from '@munim/contracts';
import type { Logger } from '@munim/kit';
import { buildContainers, type Container } from './containers.ts';

/** What the validator derives from one registry list. */
export interface DerivedRegistry {
  registry: readonly ToolDefinition[];
  containers: Container[];
  names: ReadonlySet<string>;
  byName: ReadonlyMap<string, ToolDefinition>;
}

/**
 * Containers and names derived from the registry, rebuilt only when the registry array changes
 * (a refresh of the catalog yields a new one).
 */
export function registryView(): (registry: readonly ToolDefinition[]) => DerivedRegistry {
  let derived: DerivedRegistry | undefined;
  return (registry) => {
    if (derived?.registry !== registry)
      derived = {
        registry,
        containers: buildContainers(registry),
        names: new Set(registry.map((t) => t.name)),
        byName: new Map(registry.map((t) => [t.name, t])),
      };
    return derived;
  };
}

/** The request a message belongs to. */
export const scopeOf = (message: Message<unknown>): RequestScope => ({
  requestId: message.requestId,
  conversationId: message.conversationId,
  entityId: message.entityId,
  orgId: message.orgId,
  ...(message.actor ? { actor: message.actor } : {}),
});

/** Runs `work` against the tool registry; its failure answers the caller that the call cannot be checked now. */
export async function guarded<T>(
  log: Logger,
  scope: RequestScope,
  tool: string | undefined,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const code =
      error instanceof RequestFailedError && error.code === 'MCP_UNAVAILABLE'
        ? 'MCP_UNAVAILABLE'
        : 'SERVICE_UNAVAILABLE';
    log.warn({ err: error, requestId: scope.requestId, tool }, 'tool registry unavailable');
    throw new HandlerError(
      code,
      'The tool registry is not available right now, so the call cannot be checked.',
      {
        cause: error,
      },
    );
  }
}
