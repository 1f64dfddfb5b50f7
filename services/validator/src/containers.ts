import type { ContainerVerdict, ToolContainer, ToolDefinition } from '@munim/contracts';
import { isInToolGroup, TOOL_GROUPS } from '@munim/kit';
import { parseArgs } from './args.ts';

export { TOOL_GROUPS };

/** `TOOL_COLLAPSE`: always offer containers, never, or only when the registry is larger than a threshold. */
export type CollapseMode = 'always' | 'auto' | 'never';

/** A container with the definitions of its functions (what the validator keeps; the wire form drops them). */
export interface Container extends ToolContainer {
  tools: ToolDefinition[];
}

/** Names shown in a description or an error before the list is cut with "...". */
const SHOWN = 5;

const CONTAINER_SCHEMA = { type: 'object', properties: {}, additionalProperties: false } as const;

const listed = (names: readonly string[]) =>
  names.length > SHOWN ? `${names.slice(0, SHOWN).join(', ')}, ...` : names.join(', ');

/** One container over any set of tools (a tool group, a skill, a frontend's tools). */
export function makeContainer(name: string, tools: readonly ToolDefinition[], about?: string): Container {
  const functions = tools.map((t) => t.name);
  const what = about ?? `${name.replace(/_/g, ' ')} functions`;
  return {
    name,
    description:
      `Container of ${functions.length} ${what}${functions.length > 0 ? `: ${listed(functions)}` : ''}. ` +
      `Call '${name}' with NO arguments to expand it; its functions can be called from the next step.`,
    inputSchema: { ...CONTAINER_SCHEMA },
    functions,
    tools: [...tools],
  };
}

/** One container per tool group ({@link TOOL_GROUPS}) with tools in the registry (optionally only `groups`). */
export function buildContainers(
  registry: readonly ToolDefinition[],
  groups?: readonly string[],
): Container[] {
  const wanted = groups ? new Set(groups) : undefined;
  const out: Container[] = [];
  for (const group of TOOL_GROUPS) {
    if (wanted && !wanted.has(group.name)) continue;
    const members = registry.filter((t) => isInToolGroup(group, t.name));
    if (members.length > 0) out.push(makeContainer(group.name, members));
  }
  return out;
}

/** The wire form of a container (contracts `ToolContainer`). */
export const toWire = ({ name, description, inputSchema, functions }: Container): ToolContainer => ({
  name,
  description,
  inputSchema,
  functions,
});

/** Whether tools are offered collapsed under a mode: `auto` collapses above `threshold` tools. */
export function shouldCollapse(mode: CollapseMode, toolCount: number, threshold: number): boolean {
  return mode === 'always' || (mode === 'auto' && toolCount > threshold);
}

/** The tools to offer: containers for the grouped ones and the rest as themselves, or all tools as they are. */
export function collapseTools(
  registry: readonly ToolDefinition[],
  opts: { mode: CollapseMode; threshold: number; groups?: readonly string[] },
): { collapsed: boolean; containers: Container[]; tools: ToolDefinition[] } {
  if (!shouldCollapse(opts.mode, registry.length, opts.threshold))
    return { collapsed: false, containers: [], tools: [...registry] };
  const containers = buildContainers(registry, opts.groups);
  const inside = new Set(containers.flatMap((c) => c.functions));
  return { collapsed: true, containers, tools: registry.filter((t) => !inside.has(t.name)) };
}

/** Levenshtein distance, for the closest-name suggestion. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/** The function name closest to `attempt` (case-insensitive), if it is a near miss rather than a guess. */
export function closestName(attempt: string, names: readonly string[]): string | undefined {
  const target = attempt.toLowerCase();
  let best: { name: string; d: number } | undefined;
  for (const name of names) {
    const d = distance(target, name.toLowerCase());
    if (!best || d < best.d) best = { name, d };
  }
  if (!best) return undefined;
  return best.d <= Math.max(2, Math.floor(best.name.length / 3)) ? best.name : undefined;
}

/** Keys an LLM uses to say which function it meant when it calls a container with arguments. */
const FUNCTION_KEYS = ['function', 'function_name', 'functionName', 'name', 'tool', 'tool_name', 'method'];
/** Keys that wrap the real arguments one level down. */
const NESTED_KEYS = ['parameters', 'params', 'arguments', 'args', 'input'];

function attemptedFunction(args: Record<string, unknown>): string | undefined {
  for (const key of FUNCTION_KEYS) {
    const value = args[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/** What a call to a container (or to `container.function`) means. */
export type ContainerCheck =
  | { kind: 'none' }
  | { kind: 'expand'; container: Container; functions: ToolDefinition[]; verdict: ContainerVerdict }
  | {
      kind: 'error';
      container: Container;
      response: NonNullable<ContainerVerdict['error']>;
      verdict: ContainerVerdict;
    };

/**
 * Checks a call of a container: a container called with no arguments (absent, null, `{}`, "")
 * expands; called with any argument — flat, nested (`{parameters: {...}}`) or through dot notation
 * (`invoices.get_all_invoices`) — it answers the `container_invocation_error` response naming the
 * first 5 functions, with the closest function name for a near miss. `none` for every other name.
 */
export function checkContainerCall(
  name: string,
  args: unknown,
  containers: readonly Container[],
  rawArgs?: string,
): ContainerCheck {
  const byName = new Map(containers.map((c) => [c.name, c]));
  let container = byName.get(name);
  let dotted: string | undefined;
  if (!container) {
    const dot = name.indexOf('.');
    if (dot <= 0) return { kind: 'none' };
    container = byName.get(name.slice(0, dot));
    if (!container) return { kind: 'none' };
    dotted = name.slice(dot + 1);
  }
  const parsed = parseArgs(args, rawArgs);
  const attempted: Record<string, unknown> = parsed.ok ? parsed.args : { '(arguments)': rawArgs ?? args };
  const hasArgs = !parsed.ok || Object.keys(attempted).length > 0;

  if (!hasArgs && dotted === undefined) {
    const verdict: ContainerVerdict = { name: container.name, expand: true, functions: container.functions };
    return { kind: 'expand', container, functions: container.tools, verdict };
  }

  const functions = container.functions;
  const wanted = dotted ?? attemptedFunction(attempted);
  const suggestion =
    wanted === undefined ? undefined : functions.includes(wanted) ? wanted : closestName(wanted, functions);
  const nested = NESTED_KEYS.find((k) => typeof attempted[k] === 'object' && attempted[k] !== null);
  const cname = container.name;

  let errorMessage: string;
  if (dotted !== undefined) {
    errorMessage = `'${name}' uses dot notation, but '${cname}' is a container function: its functions are not reachable as '${cname}.<function>'.`;
  } else {
    errorMessage = `'${cname}' is a container function that groups related functions. It cannot be called with parameters${nested ? ` (not even nested under '${nested}')` : ''}.`;
  }
  const then =
    suggestion !== undefined
      ? `call '${suggestion}' directly with its own arguments`
      : 'call the individual function you need';
  const retryGuidance =
    functions.length > 0
      ? `This requires TWO separate tool calls: (1) First call '${cname}' with NO arguments to expand it. (2) After expansion succeeds, ${then}. Available functions: ${listed(functions)}`
      : `This requires TWO separate tool calls: (1) First call '${cname}' with NO arguments to expand it. (2) After expansion succeeds, call the individual function you need from the list it returns.`;
  const response: NonNullable<ContainerVerdict['error']> = {
    error_type: 'container_invocation_error',
    container_name: cname,
    attempted_parameters: dotted !== undefined ? { function: dotted, ...attempted } : attempted,
    available_functions: functions,
    error_message:
      suggestion !== undefined && suggestion !== wanted
        ? `${errorMessage} There is no function '${wanted}'; did you mean '${suggestion}'?`
        : errorMessage,
    retry_guidance: retryGuidance,
    ...(suggestion !== undefined ? { suggested_function: suggestion } : {}),
  };
  const verdict: ContainerVerdict = { name: cname, expand: false, functions, error: response };
  return { kind: 'error', container, response, verdict };
}
