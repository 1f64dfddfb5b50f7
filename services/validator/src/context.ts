import type { Bus } from '@munim/bus';
import { createToolCatalog, type Logger, type ToolCatalog } from '@munim/kit';
import type { CollapseMode } from './containers.ts';
import type { JsonCorrector } from './correct.ts';
import { registryView } from './registry.ts';
import { SchemaCompiler } from './schema.ts';

/** Settings of the validator (from the environment in main, literal in tests). */
export interface ValidatorConfig {
  /** How long the tool registry is reused before it is fetched again. */
  toolsTtlMs: number;
  toolsRequestTimeoutMs: number;
  /** `TOOL_COLLAPSE` (default `auto`) and its threshold (default 40 tools). */
  collapse?: CollapseMode;
  collapseThreshold?: number;
}

/** What `buildValidator` is given. */
export interface ValidatorDeps {
  bus: Bus;
  log: Logger;
  config: ValidatorConfig;
  /** Where tool definitions come from; the MCP executor's registry (cached) when not given. */
  tools?: ToolCatalog;
  /** The one LLM correction of arguments or blocks still not JSON after repair; skipped when absent. */
  corrector?: JsonCorrector | undefined;
}

/** What every handler of one validator shares. */
export interface ValidatorContext {
  bus: Bus;
  log: Logger;
  tools: ToolCatalog;
  corrector: JsonCorrector | undefined;
  compiler: SchemaCompiler;
  /** The containers, names and definitions of a registry, rebuilt only when it changes. */
  derivedFrom: ReturnType<typeof registryView>;
  collapse: CollapseMode;
  collapseThreshold: number;
}

/** The shared context of a validator built from `deps`. */
export function validatorContext(deps: ValidatorDeps): ValidatorContext {
  const { bus, log, config, corrector } = deps;
  return {
    bus,
    log,
    corrector,
    tools:
      deps.tools ??
      createToolCatalog(bus, { ttlMs: config.toolsTtlMs, timeoutMs: config.toolsRequestTimeoutMs }),
    compiler: new SchemaCompiler(),
    derivedFrom: registryView(),
    collapse: config.collapse ?? 'auto',
    collapseThreshold: config.collapseThreshold ?? 40,
  };
}
