import { setTimeout as sleep } from 'node:timers/promises';
import { RequestFailedError } from '@munim/bus';
import type { BooksContext, ClosedPeriod, ValidationResult } from '@munim/contracts';
import { correctionAllowance } from '../model/quota.ts';
import { type Run, sameRecords } from '../run/run.ts';
import { validationBooks } from './books-context.ts';

/** More tries of a validation or tool call that no instance answered (timeout, no responder). */
const UNANSWERED_RETRIES = 2;
/** Pause before sending again where no instance was up (times the try). */
const UNANSWERED_PAUSE_MS = 500;

/**
 * Sends a request that is safe to repeat again when no instance answered it (the one that had it
 * died, or none was up for a moment): a validation, or a call the executor runs at most once
 * whatever reaches it twice (a write by its idempotency key, its approval found again).
 */
export async function unlessUnanswered<T>(run: Run, what: string, send: () => Promise<T>): Promise<T> {
  // The events held so far come first: the service asked may emit its own (a validation, a call).
  await run.flush();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof RequestFailedError) || !error.unanswered || attempt > UNANSWERED_RETRIES)
        throw error;
      run.ctx.log.warn(
        { err: error, requestId: run.scope.requestId, attempt },
        `${what} unanswered; sending it again`,
      );
      if (error.code !== 'TIMEOUT') await sleep(UNANSWERED_PAUSE_MS * attempt);
    }
  }
}

/**
 * Asks the validator about one call: the arguments parsed, or the raw text that did not parse.
 * Arguments that are not a JSON object may get its LLM correction, whose tokens are held first in
 * the tenant's quota when one is kept (none otherwise: then it may make none). A write is checked
 * against its country's tax rules and the tenant's closed period, which the request carries.
 */
export async function validate(
  run: Run,
  tool: string,
  args: unknown,
  rawArgs: string | undefined,
  callId: string,
): Promise<ValidationResult> {
  return askValidator(run, tool, args, rawArgs, callId);
}

function askValidator(run: Run, tool: string, args: unknown, rawArgs: string | undefined, callId: string) {
  const send = (correctionTokens: number | undefined) =>
    unlessUnanswered(run, 'validation', async () => {
      // The books and their country's tax rules: what the validator checks a write's tax against;
      // and the closed period (read every time: a lock that cannot be read fails the call, closed).
      const { books, closed } = await validationBooks(run);
      return run.ctx.bus.request(
        'toolValidate',
        run.scope,
        {
          tool,
          callId,
          attempt: run.attempts.get(tool) ?? 1,
          ...(rawArgs === undefined ? { args } : { rawArgs }),
          ...(correctionTokens === undefined ? {} : { correctionTokens }),
          ...withBooks(books),
          ...withLock(closed),
        },
        { timeoutMs: run.ctx.config.validateTimeoutMs, traceparent: run.traceparent },
      );
    });
  const quota = run.ctx.tokenQuota;
  if (!quota) return send(undefined);
  const object = typeof args === 'object' && !Array.isArray(args);
  if (rawArgs === undefined && (object || args === undefined)) return send(0);
  return quota.forCorrections(run.scope, correctionAllowance(rawArgs ?? JSON.stringify(args), 1), send);
}

const withBooks = (books: BooksContext | undefined) => (books ? { books } : {});
const withLock = (closed: ClosedPeriod | undefined) => (closed ? { closedUpTo: closed } : {});

/**
 * Runs a validated call; a write needs `approvalId`, the pending action the user approved. Sent
 * again when its executor died with it: a write then comes back with its stored outcome, or as
 * `unknown` (never sent twice) if the dead one may have sent it.
 */
export async function execute(run: Run, validation: ValidationResult, callId: string, approvalId?: string) {
  const execution = await unlessUnanswered(run, `${validation.tool} call`, () =>
    run.ctx.bus.request(
      'toolExecute',
      run.scope,
      {
        tool: validation.tool,
        args: validation.args ?? {},
        callId,
        isWrite: validation.isWrite,
        argsHash: validation.argsHash,
        ...(approvalId ? { approvalId } : {}),
      },
      { timeoutMs: run.ctx.config.executeTimeoutMs, traceparent: run.traceparent },
    ),
  );
  run.toolResults.push({
    tool: validation.tool,
    input: validation.args,
    ...(execution.success ? { result: execution.result } : { error: execution.error?.message ?? 'failed' }),
    success: execution.success,
    write: validation.isWrite,
  });
  if (validation.isWrite) {
    run.writes.push({
      tool: validation.tool,
      success: execution.success,
      ...(execution.outcome === 'unknown' ? { unknown: true, args: validation.args ?? {} } : {}),
    });
  } else if (execution.success) {
    for (const w of run.uncheckedWrites()) if (sameRecords(validation.tool, w.tool)) w.checked = true;
  }
  return execution;
}
