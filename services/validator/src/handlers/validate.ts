import type { ServeContext } from '@munim/bus';
import type {
  AgentEvent,
  Message,
  ToolDefinition,
  ValidateRequest,
  ValidationResult,
} from '@munim/contracts';
import { argsHash, lazyCounter } from '@munim/kit';
import { trace } from '@opentelemetry/api';
import { parseArgs } from '../args.ts';
import { checkContainerCall } from '../containers.ts';
import type { ValidatorContext } from '../context.ts';
import { CorrectionTokens, type JsonCorrector } from '../correct.ts';
import { guarded, scopeOf } from '../registry.ts';
import { GUARDRAILS, unknownTool, validateCall } from '../validate.ts';

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Validations by tool and verdict. */
const validations = lazyCounter('munim.validations', 'Tool calls checked by the validator');

/**
 * The handler of `toolValidate`: checks one call before it may run. A write's `write_validation`
 * event is published and the verdict answered in the same tick: the event leaves first on this
 * connection, so the stream holds it ahead of anything the caller does next (its `executing_tool`),
 * without waiting for the stream's ack.
 */
export function validateHandler(ctx: ValidatorContext) {
  const { bus, log, tools, compiler, corrector, derivedFrom } = ctx;
  return async (
    message: Message<ValidateRequest>,
    context: ServeContext<ValidationResult>,
  ): Promise<ValidationResult> => {
    const started = performance.now();
    const scope = scopeOf(message);
    let request = message.data;
    let list = await guarded(log, scope, request.tool, () => tools.list(scope, context.traceparent));
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
      definition = await guarded(log, scope, request.tool, () =>
        tools.find(request.tool, scope, context.traceparent),
      );
      list = await guarded(log, scope, request.tool, () => tools.list(scope, context.traceparent));
    }

    let corrected = false;
    const tokens = new CorrectionTokens(request.correctionTokens);
    if (definition) ({ request, corrected } = await correctArgs(corrector, request, definition, tokens));
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
        .emit(scope, writeValidationEvent(outcome, durationMs), context.traceparent)
        .catch((error: unknown) =>
          // The verdict still stands; the caller's own events record the call that follows.
          log.error(
            { err: error, requestId: scope.requestId, tool: request.tool },
            'could not emit write_validation',
          ),
        );
      context.reply(result);
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
  };
}

/** Arguments still not a JSON object after jsonrepair get one LLM correction, within the request's tokens. */
async function correctArgs(
  corrector: JsonCorrector | undefined,
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

/** The `write_validation` event the client sees for a checked write: passed, or blocked and why. */
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
