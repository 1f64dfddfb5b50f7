import { type Bus, HandlerError, type MessageContext, RequestFailedError } from '@munim/bus';
import type { AgentEvent, Message, RequestScope, ValidateRequest, ValidationResult } from '@munim/contracts';
import { createToolCatalog, type Logger, type ToolCatalog } from '@munim/kit';
import { SchemaCompiler } from './schema.ts';
import { unknownTool, validateCall } from './validate.ts';

export { parseArgs } from './args.ts';
export { argsHash, canonicalJson } from './canonical.ts';
export { FIELD_SOURCES } from './guidance.ts';
export { AMOUNT_FIELDS, CONFIRMATION_TIERS, confirmationTier, WRITE_TOOL_RULES } from './rules.ts';
export { SchemaCompiler, strictify } from './schema.ts';
export { GUARDRAILS, unknownTool, validateCall } from './validate.ts';

/** Settings of the validator (from the environment in main, literal in tests). */
export interface ValidatorConfig {
  /** How long the tool registry is reused before it is fetched again. */
  toolsTtlMs: number;
  toolsRequestTimeoutMs: number;
}

export interface ValidatorDeps {
  bus: Bus;
  log: Logger;
  config: ValidatorConfig;
  /** Where tool definitions come from; the MCP executor's registry (cached) when not given. */
  tools?: ToolCatalog;
}

export interface Validator {
  start(): Promise<void>;
  stop(): Promise<void>;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

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
  const { bus, log, config } = deps;
  const tools =
    deps.tools ??
    createToolCatalog(bus, { ttlMs: config.toolsTtlMs, timeoutMs: config.toolsRequestTimeoutMs });
  const compiler = new SchemaCompiler();
  const inFlight = new Set<Promise<unknown>>();
  let subscription: ReturnType<Bus['serve']> | undefined;

  async function validate(message: Message<ValidateRequest>, ctx: MessageContext): Promise<ValidationResult> {
    const started = performance.now();
    const request = message.data;
    const scope: RequestScope = {
      requestId: message.requestId,
      conversationId: message.conversationId,
      entityId: message.entityId,
      orgId: message.orgId,
    };
    let definition: Awaited<ReturnType<ToolCatalog['find']>>;
    let available: Set<string>;
    try {
      definition = await tools.find(request.tool, scope, ctx.traceparent);
      available = new Set((await tools.list(scope, ctx.traceparent)).map((t) => t.name));
    } catch (error) {
      const code =
        error instanceof RequestFailedError && error.code === 'MCP_UNAVAILABLE'
          ? 'MCP_UNAVAILABLE'
          : 'SERVICE_UNAVAILABLE';
      log.warn({ err: error, requestId: scope.requestId, tool: request.tool }, 'tool registry unavailable');
      throw new HandlerError(
        code,
        'The tool registry is not available right now, so the call cannot be checked.',
        {
          cause: error,
        },
      );
    }

    const outcome = definition
      ? validateCall(definition, request, compiler, available)
      : unknownTool(request);
    const durationMs = round2(performance.now() - started);
    if (outcome.isWrite) {
      await bus
        .emit(scope, writeValidationEvent(outcome, durationMs), ctx.traceparent)
        .catch((error: unknown) =>
          // The verdict still stands; the caller's own events record the call that follows.
          log.error(
            { err: error, requestId: scope.requestId, tool: request.tool },
            'could not emit write_validation',
          ),
        );
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
    return { ...outcome, durationMs };
  }

  return {
    async start() {
      subscription = bus.serve('toolValidate', (message, ctx) => {
        const work = validate(message, ctx);
        inFlight.add(work);
        void work.finally(() => inFlight.delete(work)).catch(() => undefined);
        return work;
      });
    },
    async stop() {
      await subscription?.drain().catch(() => undefined);
      await Promise.allSettled([...inFlight]);
    },
  };
}
