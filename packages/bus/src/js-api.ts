import { JetStreamApiCodes, JetStreamApiError, type JetStreamClient } from '@nats-io/jetstream';
import { errors, type MsgHdrs, PermissionViolationError } from '@nats-io/nats-core';
import type { BusLogger } from './core.ts';

/** nats-server's JetStream error codes munim acts on, besides those nats.js names. */
const JS_CODES = {
  /** JSClusterNotAvailErr: JetStream system temporarily unavailable (a cluster electing its leaders). */
  temporarilyUnavailable: 10008,
  /** JSConsumerNameExistErr: consumer name already in use (with another configuration). */
  consumerNameInUse: 10013,
  /** JSStreamNameExistErr: stream name already in use (with another configuration). */
  streamNameInUse: 10058,
  /** JSStreamSubjectOverlapErr: subjects overlap with an existing stream. */
  subjectsOverlap: 10065,
  /** JSConsumerExistingActiveErr: consumer already exists and is still active. */
  consumerActive: 10105,
  /** JSConsumerAlreadyExists: a create of an existing consumer with another configuration. */
  consumerExists: 10148,
  /** JSStreamWrongLastSequenceErr: a publish's expected last (subject) sequence did not hold. */
  wrongLastSequence: 10071,
} as const;

/** How long a JetStream call made while serving a request is made again while no leader answers. */
export const FAILOVER_RETRY_MS = 20_000;

/** How long stream and consumer management may wait out a cluster's elections at start. */
export const STREAM_SETTLE_MS = 30_000;

/** The error, or one of its causes, that satisfies `test`. */
function findCause<T extends Error>(error: unknown, test: (e: Error) => e is T): T | undefined {
  let e = error;
  for (let depth = 0; e instanceof Error && depth < 4; depth += 1) {
    if (test(e)) return e;
    e = e.cause;
  }
  return undefined;
}

const isApiError = (e: Error): e is JetStreamApiError => e instanceof JetStreamApiError;

/** The JetStream API error code of an error (or its cause), if it is one. */
function apiCode(error: unknown): number | undefined {
  return findCause(error, isApiError)?.code;
}

/** No one answered: no responder on the subject (a request error with that cause). */
export function isNoResponders(error: unknown): boolean {
  const found = findCause(
    error,
    (e): e is Error =>
      e instanceof errors.NoRespondersError || (e instanceof errors.RequestError && e.isNoResponders()),
  );
  return found !== undefined;
}

/**
 * A JetStream error worth another try: no answer, no responder (nats.js reports a JetStream
 * request without one as "jetstream is not enabled", with the no-responders error as its cause),
 * or JetStream temporarily unavailable while a cluster elects its leaders.
 */
export function isTransient(error: unknown): boolean {
  if (isNoResponders(error)) return true;
  const found = findCause(
    error,
    (e): e is Error =>
      e instanceof errors.TimeoutError ||
      (e instanceof JetStreamApiError && (e.code === JS_CODES.temporarilyUnavailable || e.status === 503)),
  );
  return found !== undefined;
}

const isPermissionViolation = (e: Error): e is PermissionViolationError =>
  e instanceof PermissionViolationError;

/** The server refused a publish (a JetStream API call) this NATS user is not allowed. */
export function isPermissionDenied(error: unknown): boolean {
  return findCause(error, isPermissionViolation) !== undefined;
}

/** A stream, consumer or message that is not there. */
export function isNotFound(error: unknown): boolean {
  const code = apiCode(error);
  return (
    code === JetStreamApiCodes.StreamNotFound ||
    code === JetStreamApiCodes.ConsumerNotFound ||
    code === JetStreamApiCodes.NoMessageFound
  );
}

/** A create that lost the race to another instance, which made the same name first. */
export function isAlreadyMade(error: unknown): boolean {
  const code = apiCode(error);
  return (
    code === JS_CODES.streamNameInUse ||
    code === JS_CODES.consumerNameInUse ||
    code === JS_CODES.consumerActive ||
    code === JS_CODES.consumerExists
  );
}

/**
 * While a stream's replicas change, nats-server 2.9 can refuse an update of it as "subjects
 * overlap with an existing stream" (the stream itself): worth another try after a pause.
 */
export function isSubjectsOverlap(error: unknown): boolean {
  return apiCode(error) === JS_CODES.subjectsOverlap;
}

/** Whether a stored config has some value other than `wanted`'s (only `wanted`'s keys count). */
export function differs(config: object, wanted: Record<string, unknown>): boolean {
  const current = config as Record<string, unknown>;
  return Object.entries(wanted).some(
    ([key, value]) => JSON.stringify(current[key]) !== JSON.stringify(value),
  );
}

/**
 * A JetStream API call, made again while it goes unanswered or JetStream is briefly unavailable
 * (a cluster electing a stream, consumer or meta leader does not answer), or fails in a way
 * `alsoTransient` accepts, up to a bound.
 */
export async function jsApi<T>(
  what: string,
  call: () => Promise<T>,
  timeoutMs = STREAM_SETTLE_MS,
  alsoTransient?: (error: unknown) => boolean,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      const transient = isTransient(error) || Boolean(alsoTransient?.(error));
      if (!transient || Date.now() > deadline) {
        if (attempt > 1 && error instanceof Error)
          error.message = `${what}: ${error.message} (after ${attempt} tries)`;
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 250 * attempt)));
    }
  }
}

/** `call`'s result, or undefined when what it looks up is not there. */
export async function orNotFound<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * A JetStream publish that rides out a cluster's failover: while the stream has no leader (its
 * server died and the others are electing one) a publish finds no responder or goes unanswered,
 * so it is sent again, with the same `msgID`, until {@link FAILOVER_RETRY_MS} have passed. The
 * stream's duplicate window makes a retry of a publish that did land a no-op.
 */
/** What munim's JetStream publishes set: always a message id, and trace headers. */
export interface JsPublishOptions {
  msgID: string;
  headers: MsgHdrs;
  /** Stored only if the subject's last message has this sequence (0: the subject is empty). */
  expect?: { lastSubjectSequence: number };
}

/** A publish refused because its expected last sequence did not hold. */
export function isWrongLastSequence(error: unknown): boolean {
  return apiCode(error) === JS_CODES.wrongLastSequence;
}

export async function publishRetrying(
  js: JetStreamClient,
  log: BusLogger | undefined,
  subject: string,
  data: Uint8Array,
  opts: JsPublishOptions,
) {
  const deadline = Date.now() + FAILOVER_RETRY_MS;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await js.publish(subject, data, opts);
    } catch (error) {
      if (!isTransient(error) || Date.now() >= deadline) throw error;
      if (attempt === 1)
        log?.warn({ err: error, subject }, 'JetStream publish not acknowledged; trying again');
      await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 100 * 2 ** attempt)));
    }
  }
}
