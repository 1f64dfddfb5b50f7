import { type Logger, lazyCounter } from '@munim/kit';
import type { BreakerState, Breakers, Taken } from './breaker.ts';
import { type Llm, LlmError, type LlmTurn } from './llm.ts';

/** Why a call moved to the next configuration. */
export type FailoverReason =
  | 'rate_limited'
  | 'server_error'
  | 'auth'
  | 'not_found'
  | 'timeout'
  | 'stalled'
  | 'connection'
  | 'circuit_open';

const failovers = lazyCounter('munim.llm.failovers', 'Model calls moved to a fallback configuration');
const breakerChanges = lazyCounter('munim.llm.breaker.transitions', 'Model endpoint circuit state changes');

/**
 * Whether another endpoint may succeed where this one failed: it could not be reached, was too slow
 * or stalled, was overloaded (429, 5xx, 408), refused this endpoint's key (401, 403: another has its
 * own) or has no such model (404). Null for a failure the same messages would meet anywhere (400,
 * 413, 422: a bad request, a content filter), and for a failure that is not the model's.
 */
export function failoverReason(error: unknown): Exclude<FailoverReason, 'circuit_open'> | null {
  if (!(error instanceof LlmError)) return null;
  if (error.kind === 'stalled') return 'stalled';
  if (error.kind === 'timeout') return 'timeout';
  if (error.kind === 'connection') return 'connection';
  const status = error.status;
  if (error.kind !== 'status' || status === undefined) return null;
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  if (status === 408) return 'timeout';
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  return null;
}

/** One configuration a turn may use: its client and the row's defaults (null: the environment's model). */
export interface Candidate {
  llm: Llm;
  configId: number | null;
  temperature: number | null;
  maxTokens: number | null;
}

/** The key a candidate's circuit is kept under. */
const endpointOf = (candidate: Candidate) => candidate.llm.endpoint ?? candidate.llm.label;

/** What a person reading the answer is told when what they saw is taken back. */
const restartReason = (next: Candidate | undefined) =>
  next
    ? `The model stopped answering; answered by ${next.llm.label} instead.`
    : 'The model stopped answering.';

/** Reports each change of a circuit's state as a log line and a metric. */
export function breakerReporter(log: Logger) {
  return (endpoint: string, from: BreakerState, to: BreakerState) => {
    breakerChanges().add(1, { 'munim.llm.endpoint': endpoint, 'munim.llm.breaker.state': to });
    const line = { endpoint, from, to };
    if (to === 'open') log.warn(line, 'model endpoint keeps failing: its circuit is open');
    else log.info(line, to === 'closed' ? 'model endpoint answers again' : 'probing model endpoint');
  };
}

/**
 * One turn over `chain` (the default configuration, then its fallbacks in order): each candidate is
 * tried at most once, with the same messages and tools. A candidate whose circuit is open is
 * skipped while a later one may be called; when none may, the next is tried all the same (nothing
 * else could answer: a single model, or a list whose endpoints all failed lately, is never refused
 * untried). Text a failed candidate streamed is taken back (`onRestart`) before the next one
 * answers; when none answers, the turn fails with an `LlmError` and nothing it streamed is left.
 */
export async function failoverTurn(
  chain: readonly Candidate[],
  input: Parameters<Llm['turn']>[0],
  breakers: Breakers,
  log: Logger,
): Promise<{ turn: LlmTurn; candidate: Candidate }> {
  /** Counts and logs a move from `from` to `to` (-1: none left). */
  const moved = (from: Candidate, to: number, reason: FailoverReason, error?: unknown) => {
    const next = chain[to];
    const line = {
      from: from.llm.label,
      fromConfigId: from.configId,
      to: next?.llm.label ?? null,
      toConfigId: next?.configId ?? null,
      reason,
      ...(error instanceof LlmError ? { status: error.status, error: error.message } : {}),
    };
    if (next) {
      failovers().add(1, { 'munim.llm.from': from.llm.label, 'munim.llm.to': next.llm.label, reason });
      log.warn(line, 'model failed over');
    } else log.warn(line, 'model failed; no configuration left to fail over to');
  };
  /** The candidate to call from `from` on, the ones skipped for an open circuit named; -1: none left. */
  const pick = (from: number): { at: number; forced: boolean } => {
    for (let i = from; i < chain.length; i++) {
      if (!breakers.allows(endpointOf(chain[i]!))) continue;
      for (let j = from; j < i; j++) moved(chain[j]!, i, 'circuit_open');
      return { at: i, forced: false };
    }
    return { at: from < chain.length ? from : -1, forced: true };
  };
  let last: LlmError | undefined;
  let { at, forced } = pick(0);
  while (at !== -1) {
    const candidate = chain[at]!;
    const endpoint = endpointOf(candidate);
    const taken: Taken | null = forced ? 'forced' : breakers.acquire(endpoint);
    // Another turn took the probe since: this one goes on to the next.
    if (!taken) {
      const next = pick(at + 1);
      moved(candidate, next.at, 'circuit_open');
      ({ at, forced } = next);
      continue;
    }
    let sent = false;
    try {
      const turn = await candidate.llm.turn({
        ...input,
        // A row's max_tokens caps every tier's budget; its temperature is the default.
        maxTokens: candidate.maxTokens ? Math.min(input.maxTokens, candidate.maxTokens) : input.maxTokens,
        ...(input.temperature === undefined && candidate.temperature !== null
          ? { temperature: candidate.temperature }
          : {}),
        ...(input.onText
          ? {
              onText: (text: string) => {
                sent = true;
                return input.onText!(text);
              },
            }
          : {}),
      });
      breakers.succeeded(endpoint);
      return { turn: { ...turn, label: candidate.llm.label }, candidate };
    } catch (error) {
      const reason = failoverReason(error);
      if (reason === null) {
        breakers.released(endpoint, taken);
        // The model's own refusal after text went out: never a half-answer.
        if (sent && error instanceof LlmError) await input.onRestart?.(restartReason(undefined));
        throw error;
      }
      breakers.failed(endpoint, taken);
      last = error as LlmError;
      const next = pick(at + 1);
      moved(candidate, next.at, reason, error);
      if (sent) await input.onRestart?.(restartReason(chain[next.at]));
      ({ at, forced } = next);
    }
  }
  // The chain is never empty and its last candidate is always tried: a failure is known here.
  throw new LlmError(`no model configuration answered; the last: ${last?.message}`, last?.status, {
    cause: last,
    kind: last?.kind,
  });
}
