import type { MessageContext } from '@munim/bus';
import type { ContainersReply, ContainersRequest, Message } from '@munim/contracts';
import { collapseTools, toWire } from '../containers.ts';
import type { ValidatorContext } from '../context.ts';
import { guarded, scopeOf } from '../registry.ts';

/** The handler of `toolsContainers`: the tools offered to the model, collapsed into containers when many. */
export function containersHandler(ctx: ValidatorContext) {
  const { log, tools, collapse, collapseThreshold } = ctx;
  return async (message: Message<ContainersRequest>, context: MessageContext): Promise<ContainersReply> => {
    const scope = scopeOf(message);
    const list = await guarded(log, scope, undefined, () => tools.list(scope, context.traceparent));
    const wanted = message.data.tools ? new Set(message.data.tools) : undefined;
    const offered = wanted ? list.filter((t) => wanted.has(t.name)) : list;
    const out = collapseTools(offered, {
      mode: message.data.collapse ?? collapse,
      threshold: collapseThreshold,
      ...(message.data.groups ? { groups: message.data.groups } : {}),
    });
    return { collapsed: out.collapsed, containers: out.containers.map(toWire), tools: out.tools };
  };
}
