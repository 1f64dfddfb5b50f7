import type { ToolContainer } from '@munim/contracts';
import type { ChatCompletionFunctionTool } from '../model/llm.ts';
import type { Run } from '../run/run.ts';
import { validate } from './requests.ts';

/** The tools offered to the LLM, and the containers that stand for whole groups of them (fewer tool definitions in the prompt). */
export interface Offer {
  offered: Set<string>;
  containers: Map<string, ToolContainer>;
}

/**
 * What the LLM is offered for the routed tools: the validator collapses many tools
 * into one container per group; when it cannot be asked, the tools as they are.
 */
export async function offerFor(run: Run, routed: string[]): Promise<Offer> {
  const registry = await run.ctx.tools.list(run.scope, run.traceparent);
  const known = new Set(registry.map((t) => t.name));
  const selected = routed.filter((name) => known.has(name));
  const offering = await run.ctx.bus
    .request(
      'toolsContainers',
      run.scope,
      { tools: selected },
      { timeoutMs: run.ctx.config.validateTimeoutMs, traceparent: run.traceparent },
    )
    .catch((error: unknown) => {
      run.ctx.log.warn(
        { err: error, requestId: run.scope.requestId },
        'containers unavailable; offering tools as they are',
      );
      return undefined;
    });
  const collapsed = offering?.collapsed === true;
  return {
    offered: new Set(collapsed ? (offering?.tools ?? []).map((t) => t.name) : selected),
    containers: new Map(collapsed ? (offering?.containers ?? []).map((c) => [c.name, c]) : []),
  };
}

/** The function definitions of an offer, read afresh each turn as containers expand. */
export async function offeredTools(run: Run, { offered, containers }: Offer) {
  const registry = await run.ctx.tools.list(run.scope, run.traceparent);
  const byName = new Map(registry.map((t) => [t.name, t]));
  return (): ChatCompletionFunctionTool[] => [
    ...[...containers.values()].map((c) => ({
      type: 'function' as const,
      function: { name: c.name, description: c.description, parameters: c.inputSchema },
    })),
    ...[...offered].flatMap((name) => {
      const def = byName.get(name);
      if (!def) return [];
      return [
        {
          type: 'function' as const,
          function: { name, description: def.description ?? name, parameters: def.inputSchema },
        },
      ];
    }),
  ];
}

/** A call to a container: expand it (its tools are offered from the next turn) or explain the mistake. */
export async function containerCall(run: Run, call: { name: string; arguments: string }, offer: Offer) {
  let args: unknown;
  let rawArgs: string | undefined;
  try {
    args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch {
    rawArgs = call.arguments;
  }
  const verdict = (await validate(run, call.name, args, rawArgs, run.nextCallId())).container;
  if (verdict?.expand) {
    offer.containers.delete(call.name);
    for (const f of verdict.functions) offer.offered.add(f);
    return JSON.stringify({ success: true, expanded: call.name, functions: verdict.functions });
  }
  run.guardrails.add('container_invocation_error');
  return JSON.stringify(
    verdict?.error ?? { error_type: 'container_invocation_error', container_name: call.name },
  );
}
