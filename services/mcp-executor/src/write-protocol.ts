import type { ExecuteRequest, Message, RequestScope } from '@munim/contracts';
import type { Logger } from '@munim/kit';
import type { ApprovalBackend } from './approvals.ts';
import {
  type Emit,
  failure,
  notFound,
  type Outcome,
  retryEvent,
  SESSION_WAIT_MS,
  type ToolCaller,
  UNAVAILABLE,
} from './call.ts';
import { neverReachedTool } from './errors.ts';
import { type Claim, hashArgs, type IdempotencyBackend } from './idempotency.ts';

/** Where the idempotency key travels in a call's `_meta`. */
export const IDEMPOTENCY_META_KEY = 'munim/idempotency-key';

const NOT_APPROVED = 'This change was not approved by the user, so it was not made.';

/** What the agent (and through it the LLM) is told when a write may or may not have run. */
export const unknownOutcomeMessage = (tool: string) =>
  `${tool} was sent to the accounting system but no answer came back, so it may or may not have been applied. ` +
  'It will not be sent again. Check with a read tool (list or get the records it would have created or ' +
  'changed) before saying anything about it to the user.';

/** One write call, as the protocol needs it. */
export interface WriteCall extends Pick<ExecuteRequest, 'tool' | 'args' | 'callId' | 'approvalId'> {
  scope: RequestScope;
  /** The operator's policy exempts the tool from the user's confirmation (tier 0). */
  exempt: boolean;
  /** The service that asked for the call, for the security log. */
  service: Message<ExecuteRequest>['service'];
}

/** What the protocol tells its caller while a write runs. */
export interface WriteHooks {
  /** Called once the write may run, before it is claimed and sent. */
  onApproved?: () => void;
  /** Publishes an event of the request during the call (a retry). */
  emit: Emit;
}

/** Settings of a {@link WriteProtocol}. */
export interface WriteProtocolOptions {
  caller: ToolCaller;
  idempotency: IdempotencyBackend;
  approvals: ApprovalBackend;
  log: Logger;
  writeTimeoutMs: number;
  /** Margin past a write's timeout before other instances presume its sender gone. */
  graceMs: number;
  /** Aborted when this instance stops: waits on writes in flight elsewhere end. */
  stopping: AbortSignal;
}

/**
 * Writes, exactly once and only when approved. The approval is checked first; the idempotency key
 * is stored before the call is sent; a repeat gets the stored outcome; a call with no answer is
 * `unknown` and never re-sent; a retry happens only when the failure proves the call never
 * reached the tool.
 */
export class WriteProtocol {
  readonly #opts: WriteProtocolOptions;

  constructor(opts: WriteProtocolOptions) {
    this.#opts = opts;
  }

  /** Runs one write; every failure is an outcome, except an approval store that cannot be read. */
  async run(call: WriteCall, hooks: WriteHooks): Promise<Outcome> {
    // One entry for both steps, so no caller can send a write it has not had approved.
    if (!call.exempt && !(await this.#approved(call))) return failure('WRITE_NOT_APPROVED', NOT_APPROVED);
    hooks.onApproved?.();
    return this.#once(call, hooks.emit);
  }

  /** Whether the user approved exactly this call (tenant, tool, arguments, request and call); a refusal is logged. */
  async #approved(call: WriteCall): Promise<boolean> {
    const { scope, tool, callId } = call;
    const verdict = await this.#opts.approvals.use({
      approvalId: call.approvalId,
      requestId: scope.requestId,
      callId,
      tool,
      argsHash: hashArgs(call.args),
      entityId: scope.entityId,
      orgId: scope.orgId,
    });
    if (verdict.ok) return true;
    this.#opts.log.warn(
      {
        requestId: scope.requestId,
        tool,
        callId,
        approvalId: call.approvalId,
        entityId: scope.entityId,
        orgId: scope.orgId,
        reason: verdict.reason,
        service: call.service,
      },
      'security: write refused without approval',
    );
    return false;
  }

  async #once(call: WriteCall, emit: Emit): Promise<Outcome> {
    const { caller, idempotency, log, writeTimeoutMs: timeoutMs, graceMs, stopping } = this.#opts;
    const { tool, args, scope, callId } = call;
    const deadlineMs = SESSION_WAIT_MS + timeoutMs + graceMs;
    const unknownOutcome = failure('TOOL_OUTCOME_UNKNOWN', unknownOutcomeMessage(tool));
    let claim: Claim;
    try {
      claim = await idempotency.claim(
        { requestId: scope.requestId, callId, tool, argsHash: hashArgs(args) },
        deadlineMs,
        stopping,
      );
    } catch (error) {
      if (stopping.aborted) {
        return failure(
          'SERVICE_UNAVAILABLE',
          `${tool} is still running elsewhere; this executor is stopping.`,
        );
      }
      log.error({ err: error, tool, callId }, 'idempotency store unavailable; write not sent');
      return failure('SERVICE_UNAVAILABLE', `${tool} was not sent: its safety record could not be written.`);
    }
    if (claim.kind === 'conflict') {
      return failure(
        'CONFLICT',
        `Call ${callId} was already made with other arguments; it is not run again with these.`,
      );
    }
    if (claim.kind === 'done') {
      log.info({ tool, callId, state: claim.state }, 'write answered from the idempotency store');
      const stored = claim.state === 'unknown' || !claim.outcome ? unknownOutcome : claim.outcome;
      return { ...stored, outcome: claim.state, replayed: true };
    }
    const { key } = claim;
    const settle = async (state: 'succeeded' | 'failed' | 'unknown', outcome: Outcome): Promise<Outcome> => {
      try {
        await idempotency.complete(key, state, outcome);
      } catch (error) {
        // The row stays pending; once its deadline passes, others report the call as unknown.
        log.error({ err: error, tool, callId, state }, 'could not record a write outcome');
      }
      return { ...outcome, outcome: state };
    };
    const release = async (outcome: Outcome): Promise<Outcome> => {
      await idempotency
        .release(key)
        .catch((error: unknown) => log.error({ err: error, tool, callId }, 'could not release a write'));
      return outcome;
    };
    const meta = { [IDEMPOTENCY_META_KEY]: key };
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      const sent = await caller.send(tool, args, timeoutMs, attempt, scope, meta);
      if (sent.kind === 'no_session') return release(failure('MCP_UNAVAILABLE', UNAVAILABLE));
      if (sent.kind === 'answer') {
        const outcome = caller.answered(tool, sent.raw, true);
        return settle(outcome.success ? 'succeeded' : 'failed', outcome);
      }
      if (sent.failure === 'tool_not_found') return release(notFound(tool));
      if (sent.failure === 'protocol') return settle('failed', caller.protocolFailure(sent.error));
      if (sent.failure === 'transport' && neverReachedTool(sent.error)) {
        if (attempt === 2) return release(failure('MCP_UNAVAILABLE', UNAVAILABLE));
        try {
          await idempotency.extend(key, deadlineMs);
        } catch {
          return release(failure('MCP_UNAVAILABLE', UNAVAILABLE));
        }
        await emit(retryEvent(tool, 2));
        continue;
      }
      // Timed out, or the connection broke after the request left: the write may have run.
      return settle('unknown', unknownOutcome);
    }
    return release(failure('MCP_UNAVAILABLE', UNAVAILABLE));
  }
}
