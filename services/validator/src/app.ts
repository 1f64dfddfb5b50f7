import {
  type Bus,
  HandlerError,
  type MessageContext,
  RequestFailedError,
  type ServeContext,
  type Served,
} from '@munim/bus';
import type {
  AgentEvent,
  ContainersReply,
  ContainersRequest,
  Message,
  RequestScope,
  ToolDefinition,
  ValidateRequest,
  ValidationResult,
} from '@munim/contracts';
import { argsHash, createToolCatalog, type Logger, lazyCounter, type ToolCatalog } from '@munim/kit';
import { trace } from '@opentelemetry/api';
import { parseArgs } from './args.ts';
import { repairBlocks } from './blocks.ts';
import {
  buildContainers,
  type CollapseMode,
  type Container,
  checkContainerCall,
  collapseTools,
  toWire,
} from './containers.ts';
import { CorrectionTokens, type JsonCorrector } from './correct.ts';
import { SchemaCompiler } from './schema.ts';
import { GUARDRAILS, unknownTool, validateCall } from './validate.ts';

export { argsHash, canonicalJson } from '@munim/kit';
export { parseArgs } from './args.ts';
export { BLOCK_GUARDRAILS, BLOCK_SCHEMAS, repairBlocks } from './blocks.ts';
export {
  buildContainers,
  type CollapseMode,
  type Container,
  checkContainerCall,
  collapseTools,
  makeContainer,
  TOOL_GROUPS,
} from './containers.ts';
export { createLlmCorrector, type JsonCorrector } from './correct.ts';
export { CONCEPTS, type Concept, isAmountKey } from './fields.ts';
export { FIELD_QUESTIONS, FIELD_SOURCES, questionsFor } from './guidance.ts';
export { checkJournal } from './journal.ts';
export { type CallRules, rulesFor } from './match.ts';
export { confirmationTier, WRITE_RULES, type WriteRuleSpec } from './rules.ts';
export { SchemaCompiler, strictify } from './schema.ts';
export { GUARDRAILS, unknownTool, validateCall } from './validate.ts';

/** Settings of the validator (from the environment in main, literal in tests). */
export interface ValidatorConfig {
  /** How long the tool registry is reused before it is fetched again. */
  toolsTtlMs: number;
  toolsRequestTimeoutMs: number;
  /** `TOOL_COLLAPSE` (default `auto`) and its threshold (default 40 tools). */
  collapse?: CollapseMode;
  collapseThreshold?: number;
}

export interface ValidatorDeps {
  bus: Bus;
  log: Logger;
  config: ValidatorConfig;
  /** Where tool definitions come from; the MCP executor's registry (cached) when not given. */
  tools?: ToolCatalog;
  /** The one LLM correction of seed 004; skipped when absent (no model configured). */
  corrector?: JsonCorrector | undefined;
}

export interface Validator {
  start(): Promise<void>;
  stop(): Promise<void>;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Validations by tool and verdict. */
const validations = lazyCounter('munim.validations', 'Tool calls checked by the validator');

/** The `write_validation` event of seed 000 §5.1/§5.2 for a checked write. */
function writeValidationEvent(outcome: Omit<ValidationResult, 'durationMs'>, durationMs: number): AgentEvent {
  if (outcome.status === 'passed') {
    return {
      type: 'write_validation',
      payload: {
        tool: outcome.tool,
        status: 'passed',
        fields_validated: outcome.fieldsValidated,
        duration_ms: durationMs,
      },
    };
  }
  return {
    type: 'write_validation',
    payload: {
      tool: outcome.tool,
      status: 'blocked',
      missing_fields: outcome.missingFields,
      errors: outcome.issues,
      message: outcome.message,
      duration_ms: durationMs,
    },
  };
}

/**
 * The validator: answers `toolValidate` for every tool call before it may run, and emits a
 * `write_validation` event for each write it checks (seed 000 §5).
 */
export async function buildValidator(deps: ValidatorDeps): Promise<Validator> {
  const { bus, log, config, corrector } = deps;
  const tools =
    deps.tools ??
    createToolCatalog(bus, { ttlMs: config.toolsTtlMs, timeoutMs: config.toolsRequestTimeoutMs });
  const collapse = config.collapse ?? 'auto';
  const threshold = config.collapseThreshold ?? 40;
  const compiler = new SchemaCompiler();
  const served: Served[] = [];
  let toolsChanged: ReturnType<Bus['listen']> | undefined;
  // Containers and names are rebuilt only when the registry array changes (a refresh yields a new one).
  let derived:
    | {
        registry: readonly ToolDefinition[];
        containers: Container[];
        names: ReadonlySet<string>;
        byName: ReadonlyMap<string, ToolDefinition>;
      }
    | undefined;
  const derivedFrom = (registry: readonly ToolDefinition[]) => {
    if (derived?.registry !== registry)
      derived = {
        registry,
        containers: buildContainers(registry),
        names: new Set(registry.map((t) => t.name)),
        byName: new Map(registry.map((t) => [t.name, t])),
      };
    return derived;
  };

  const scopeOf = (message: Message<unknown>): RequestScope => ({
    requestId: message.requestId,
    conversationId: message.conversationId,
    entityId: message.entityId,
    orgId: message.orgId,
  });

  async function guarded<T>(
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

  /** Seed 004: arguments still not a JSON object after jsonrepair get one LLM correction. */
  async function correctArgs(
    request: ValidateRequest,
    definition: ToolDefinition,
    tokens: CorrectionTokens,
  ): Promise<{ request: ValidateRequest; corrected: boolean }> {
    if (!corrector) return { request, corrected: false };
    const parsed = parseArgs(request.args, request.rawArgs);
    if (parsed.ok) return { request, corrected: false };
    const text =
      request.rawArgs ?? (typeof request.args === 'string' ? request.args : JSON.stringify(request.args));
    const fixed = await corrector.correct({
      text: text ?? '',
      errors: [parsed.issue.message],
      schema: definition.inputSchema,
      what: `set of arguments for the tool ${definition.name}`,
      tokens,
    });
    if (typeof fixed !== 'object' || fixed === null || Array.isArray(fixed))
      return { request, corrected: false };
    const { rawArgs: _raw, ...rest } = request;
    return { request: { ...rest, args: fixed }, corrected: true };
  }

  /**
   * Checks one call. A write's `write_validation` event is published and the verdict answered in
   * the same tick: the event leaves first on this connection, so the stream holds it ahead of
   * anything the caller does next (its `executing_tool`), without waiting for the stream's ack.
   */
  async function validate(
    message: Message<ValidateRequest>,
    ctx: ServeContext<ValidationResult>,
  ): Promise<ValidationResult> {
    const started = performance.now();
    const scope = scopeOf(message);
    let request = message.data;
    let list = await guarded(scope, request.tool, () => tools.list(scope, ctx.traceparent));
    let definition = derivedFrom(list).byName.get(request.tool);

    if (!definition) {
      const check = checkContainerCall(
        request.tool,
        request.args,
        derivedFrom(list).containers,
        request.rawArgs,
      );
      if (check.kind !== 'none') {
        const parsed = parseArgs(request.args, request.rawArgs);
        const result: ValidationResult = {
          tool: request.tool,
          status: 'blocked',
          isWrite: false,
          missingFields: [],
          fieldsValidated: [],
          issues: [],
          message:
            check.kind === 'expand'
              ? `'${check.container.name}' expanded. Its functions can be called from the next step: ${check.container.functions.join(', ')}.`
              : `${check.response.error_message} ${check.response.retry_guidance}`,
          suggestedTools: check.kind === 'expand' ? check.container.functions : [],
          tier: 0,
          argsHash: argsHash(parsed.ok ? parsed.args : {}),
          guardrails: check.kind === 'error' ? [GUARDRAILS.containerInvocationError] : [],
          durationMs: round2(performance.now() - started),
          container: check.verdict,
        };
        log.info(
          { requestId: scope.requestId, tool: request.tool, expand: check.kind === 'expand' },
          'container call checked',
        );
        return result;
      }
      // Not a container either: the registry may have changed since it was cached.
      definition = await guarded(scope, request.tool, () => tools.find(request.tool, scope, ctx.traceparent));
      list = await guarded(scope, request.tool, () => tools.list(scope, ctx.traceparent));
    }

    let corrected = false;
    const tokens = new CorrectionTokens(request.correctionTokens);
    if (definition) ({ request, corrected } = await correctArgs(request, definition, tokens));
    const available = derivedFrom(list).names;
    const checked = definition
      ? validateCall(definition, request, compiler, available)
      : unknownTool(request);
    const outcome = corrected
      ? { ...checked, guardrails: [GUARDRAILS.jsonLlmCorrected, ...checked.guardrails] }
      : checked;
    const durationMs = round2(performance.now() - started);
    if (outcome.status === 'blocked') {
      // The block is visible in the trace as an event of this hop's span.
      trace.getActiveSpan()?.addEvent(outcome.isWrite ? 'write_preflight_block' : 'tool_call_blocked', {
        'munim.tool': request.tool,
        'munim.missing_fields': outcome.missingFields.join(','),
        'munim.attempt': request.attempt,
      });
    }
    validations().add(1, { 'munim.tool': request.tool, 'munim.validation.status': outcome.status });
    const result = {
      ...outcome,
      durationMs,
      ...(tokens.usage ? { correctionUsage: tokens.usage } : {}),
    };
    if (outcome.isWrite) {
      const emitted = bus
        .emit(scope, writeValidationEvent(outcome, durationMs), ctx.traceparent)
        .catch((error: unknown) =>
          // The verdict still stands; the caller's own events record the call that follows.
          log.error(
            { err: error, requestId: scope.requestId, tool: request.tool },
            'could not emit write_validation',
          ),
        );
      ctx.reply(result);
      // Answered; the check stays in flight (for shutdown) until the stream has its event.
      await emitted;
    }
    log.info(
      {
        requestId: scope.requestId,
        tool: request.tool,
        callId: request.callId,
        attempt: request.attempt,
        status: outcome.status,
        missing: outcome.missingFields,
        issues: outcome.issues.length,
        guardrails: outcome.guardrails,
        durationMs,
      },
      'tool call validated',
    );
    return result;
  }

  async function containers(
    message: Message<ContainersRequest>,
    ctx: MessageContext,
  ): Promise<ContainersReply> {
    const scope = scopeOf(message);
    const list = await guarded(scope, undefined, () => tools.list(scope, ctx.traceparent));
    const wanted = message.data.tools ? new Set(message.data.tools) : undefined;
    const offered = wanted ? list.filter((t) => wanted.has(t.name)) : list;
    const out = collapseTools(offered, {
      mode: message.data.collapse ?? collapse,
      threshold,
      ...(message.data.groups ? { groups: message.data.groups } : {}),
    });
    return { collapsed: out.collapsed, containers: out.containers.map(toWire), tools: out.tools };
  }

  return {
    async start() {
      // The executor's notice of a changed registry: refetch now rather than at the end of the TTL;
      // changed schemas then hash differently and are recompiled on their next call.
      toolsChanged = bus.listen('toolsChanged', (message) => {
        tools.invalidate();
        log.info({ ...message.data }, 'tool registry changed; refetching');
      });
      served.push(
        bus.serve('toolValidate', validate),
        bus.serve('toolsContainers', containers),
        bus.serve('answerBlocks', async (message) => {
          const tokens = new CorrectionTokens(message.data.correctionTokens);
          const out = await repairBlocks(message.data.text, { corrector, tokens });
          if (out.guardrails.length > 0)
            log.info({ requestId: message.requestId, blocks: out.blocks }, 'answer blocks corrected');
          return tokens.usage ? { ...out, correctionUsage: tokens.usage } : out;
        }),
      );
      await bus.flush();
    },
    async stop() {
      toolsChanged?.unsubscribe();
      await Promise.all(served.map((s) => s.stop()));
    },
  };
}
