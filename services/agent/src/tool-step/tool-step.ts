import type { ValidationResult } from '@munim/contracts';
import { isRecord, mayProposeWrites } from '@munim/contracts';
import type { ChatCompletionMessageParam } from '../model/llm.ts';
import type { Run } from '../run/run.ts';
import { execute, validate } from './requests.ts';

/** Records per page injected into list calls. */
const PAGE_SIZE = 50;

/** Why a write did not run where no one could confirm it. */
const UNCONFIRMABLE =
  'A change to the books needs your confirmation, and it cannot be asked for here, so it was not made.';

/** Why a write was not even put to a person who may only read. */
const READ_ONLY = 'The person asking may only read these books (viewer): no change was proposed or made.';

/** How one tool call ended: blocked by the validator, refused to a reader, waiting for the user, or run. */
export type ToolStep =
  | { kind: 'blocked'; validation: ValidationResult }
  | { kind: 'read_only'; validation: ValidationResult }
  | { kind: 'confirm'; validation: ValidationResult; callId: string }
  | { kind: 'executed'; success: boolean; content: unknown; error?: string };

/**
 * List tools get an explicit first page, so every list
 * answer says which page it is and "show more" can ask for the next one.
 */
async function withPagination(run: Run, tool: string, args: unknown): Promise<unknown> {
  if (!isRecord(args) || 'Page' in args) return args;
  const def = (await run.ctx.tools.list(run.scope, run.traceparent)).find((t) => t.name === tool);
  const properties = def?.inputSchema.properties;
  if (def?.isWrite || !isRecord(properties) || !('Page' in properties)) return args;
  return {
    ...args,
    Page: 1,
    ...('PageSize' in properties && !('PageSize' in args) ? { PageSize: PAGE_SIZE } : {}),
  };
}

/** Validate; then either stop for confirmation or execute. Nothing runs without passing the validator. */
export async function toolStep(
  run: Run,
  tool: string,
  rawArguments: string | Record<string, unknown>,
  opts: { mayConfirm: boolean },
): Promise<ToolStep> {
  const attempt = (run.attempts.get(tool) ?? 0) + 1;
  run.attempts.set(tool, attempt);
  if (attempt > 1 && run.blocked.has(tool)) {
    await run.emit({
      type: 'tool_retry',
      payload: { tool, attempt, reason: 'Previous attempt blocked by pre-flight validation' },
    });
  }
  const callId = run.nextCallId();
  let args: unknown;
  let rawArgs: string | undefined;
  if (typeof rawArguments === 'string') {
    try {
      args = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
    } catch {
      rawArgs = rawArguments;
    }
  } else {
    args = rawArguments;
  }
  args = await withPagination(run, tool, args);
  const validation = await validate(run, tool, args, rawArgs, callId);
  for (const g of validation.guardrails) if (g !== 'write_preflight_block') run.guardrails.add(g);
  // A viewer reads only: no write of theirs is put to anyone, checked for its fields, or run.
  if (validation.isWrite && !mayProposeWrites(run.scope.actor)) {
    run.guardrails.add('read_only_write_refused');
    run.toolResults.push({ tool, input: args, error: READ_ONLY, success: false, write: true });
    return { kind: 'read_only', validation };
  }
  if (validation.status === 'blocked') {
    run.blocked.set(tool, validation);
    run.blockedInARow.set(tool, (run.blockedInARow.get(tool) ?? 0) + 1);
    run.toolResults.push({
      tool,
      input: args,
      error: validation.message,
      success: false,
      write: validation.isWrite,
    });
    return { kind: 'blocked', validation };
  }
  run.blocked.delete(tool);
  run.blockedInARow.delete(tool);
  // Every write the policy does not exempt (tier 0) is put to the user; where nobody can be asked
  // (a fast-path pipeline, the agent's own checks) it does not run at all.
  if (validation.isWrite && validation.tier !== 0) {
    if (opts.mayConfirm) return { kind: 'confirm', validation, callId };
    run.guardrails.add('unconfirmable_write_refused');
    const refused = { ...validation, status: 'blocked' as const, message: UNCONFIRMABLE };
    run.toolResults.push({ tool, input: args, error: refused.message, success: false, write: true });
    return { kind: 'blocked', validation: refused };
  }
  const execution = await execute(run, validation, callId);
  return {
    kind: 'executed',
    success: execution.success,
    content: execution.success ? execution.result : { error: execution.error?.message ?? 'The tool failed.' },
    ...(execution.success ? {} : { error: execution.error?.message ?? 'failed' }),
  };
}

/** What the LLM is told about one executed or blocked call. */
export function toolContent(step: ToolStep, offered: Set<string>): string {
  if (step.kind === 'blocked') {
    const v = step.validation;
    // A tool named in the guidance is offered next turn even if routing had filtered it out.
    for (const suggested of v.suggestedTools) offered.add(suggested);
    return JSON.stringify({
      success: false,
      error: {
        type: 'VALIDATION_ERROR',
        message: v.message,
        missing_fields: v.missingFields,
        details: v.issues,
      },
    });
  }
  if (step.kind === 'executed') {
    return JSON.stringify(step.success ? step.content : { success: false, error: step.error });
  }
  return JSON.stringify({ success: false, error: 'awaiting confirmation' });
}

/** A tool message for a call the agent did not run, saying why. */
export function notRun(toolCallId: string, type: string, message: string): ChatCompletionMessageParam {
  return {
    role: 'tool',
    tool_call_id: toolCallId,
    content: JSON.stringify({ success: false, error: { type, message } }),
  };
}
