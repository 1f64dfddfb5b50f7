import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ErrorInfo } from '@munim/contracts';
import type { Database } from '@munim/db';
import { argsHash } from '@munim/kit';
import { type Kysely, sql } from 'kysely';

/** What the store keeps of a finished call: enough to answer a repeat exactly as the first time. */
export interface StoredOutcome {
  success: boolean;
  result?: unknown;
  error?: ErrorInfo;
  truncated: boolean;
}

/** The state of one write call in the store. */
export type IdempotencyState = 'pending' | 'succeeded' | 'failed' | 'unknown';

/** One write call, as the store identifies it. */
export interface CallIdentity {
  requestId: string;
  callId: string;
  tool: string;
  /** Canonical hash of the arguments ({@link hashArgs}). */
  argsHash: string;
}

/** What {@link IdempotencyStore.claim} found. */
export type Claim =
  /** This instance owns the call and must send it, then record its outcome. */
  | { kind: 'claimed'; key: string }
  /** The call has run (or may have): its stored outcome, not to be sent again. */
  | { kind: 'done'; key: string; state: Exclude<IdempotencyState, 'pending'>; outcome: StoredOutcome | null }
  /** The same call id was used with other arguments. */
  | { kind: 'conflict'; key: string };

/** The idempotency store could not be read or written; a write must not run without it. */
export class IdempotencyStoreError extends Error {
  override name = 'IdempotencyStoreError';
}

export interface IdempotencyStoreOptions {
  db: Kysely<Database>;
  /** Who claims rows (instance id), for diagnosis. */
  owner: string;
  /** How long finished keys are kept (default 24 h). */
  ttlMs?: number | undefined;
  /** How often a waiter looks at a call still in flight elsewhere. */
  pollMs?: number;
}

/** The canonical hash of a call's arguments: the same function the validator hashes them with. */
export const hashArgs = argsHash;

/** The idempotency key of a call: SHA-256 of request id, call id and argument hash. */
export function idempotencyKey(requestId: string, callId: string, argsHash: string): string {
  return createHash('sha256').update(`${requestId}\u0000${callId}\u0000${argsHash}`).digest('hex');
}

/** How long finished keys are kept unless configured: a day. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/**
 * Exactly-once bookkeeping of write calls in PostgreSQL (table `tool_idempotency`). The row is
 * written before the call is sent; whoever inserts it owns the call, everyone else reads its
 * outcome or waits for it while it is in flight.
 */
export class IdempotencyStore {
  readonly #db: Kysely<Database>;
  readonly #owner: string;
  readonly #ttlMs: number;
  readonly #pollMs: number;

  constructor(opts: IdempotencyStoreOptions) {
    this.#db = opts.db;
    this.#owner = opts.owner;
    this.#ttlMs = opts.ttlMs ?? IDEMPOTENCY_TTL_MS;
    this.#pollMs = opts.pollMs ?? 100;
  }

  /**
   * Claims a call, or returns what is known of it. A call pending elsewhere is waited on until it
   * finishes or its deadline passes; then its outcome is `unknown`, never re-sent.
   * `deadlineMs` is how long this claimer may take before others presume it gone.
   */
  async claim(call: CallIdentity, deadlineMs: number, signal?: AbortSignal): Promise<Claim> {
    const key = idempotencyKey(call.requestId, call.callId, call.argsHash);
    try {
      for (;;) {
        const inserted = await this.#db
          .insertInto('tool_idempotency')
          .values({
            key,
            request_id: call.requestId,
            call_id: call.callId,
            tool: call.tool,
            args_hash: call.argsHash,
            state: 'pending',
            owner: this.#owner,
            deadline_at: sql<Date>`now() + ${deadlineMs} * interval '1 millisecond'`,
            expires_at: sql<Date>`now() + ${this.#ttlMs} * interval '1 millisecond'`,
          })
          .onConflict((oc) => oc.doNothing())
          .returning('key')
          .executeTakeFirst();
        if (inserted) return { kind: 'claimed', key };

        const row = await this.#db
          .selectFrom('tool_idempotency')
          .select(['key', 'args_hash', 'state', 'result', sql<boolean>`deadline_at < now()`.as('overdue')])
          .where('request_id', '=', call.requestId)
          .where('call_id', '=', call.callId)
          .executeTakeFirst();
        // Released (proved not to have run) between our insert and this read: claim again.
        if (!row) continue;
        if (row.args_hash !== call.argsHash) return { kind: 'conflict', key: row.key };
        if (row.state !== 'pending') {
          return {
            kind: 'done',
            key,
            state: row.state,
            outcome: (row.result as StoredOutcome | null) ?? null,
          };
        }
        if (row.overdue) {
          // The owner is gone or past its deadline: the call may have run, so it is never sent again.
          await this.#db
            .updateTable('tool_idempotency')
            .set({ state: 'unknown', updated_at: sql`now()` })
            .where('key', '=', row.key)
            .where('state', '=', 'pending')
            .where(sql<boolean>`deadline_at < now()`)
            .execute();
          continue;
        }
        if (signal?.aborted) throw new IdempotencyStoreError('gave up waiting for a call in flight');
        await sleep(this.#pollMs);
      }
    } catch (error) {
      if (error instanceof IdempotencyStoreError) throw error;
      throw new IdempotencyStoreError('the idempotency store is not available', { cause: error });
    }
  }

  /** Records the outcome of a claimed call. */
  async complete(key: string, state: Exclude<IdempotencyState, 'pending'>, outcome: StoredOutcome) {
    await this.#db
      .updateTable('tool_idempotency')
      .set({ state, result: JSON.stringify(outcome), updated_at: sql`now()` })
      .where('key', '=', key)
      .execute();
  }

  /** Moves a claimed call's deadline (before a retry that the store proved safe). */
  async extend(key: string, deadlineMs: number): Promise<void> {
    await this.#db
      .updateTable('tool_idempotency')
      .set({
        deadline_at: sql<Date>`now() + ${deadlineMs} * interval '1 millisecond'`,
        updated_at: sql`now()`,
      })
      .where('key', '=', key)
      .where('state', '=', 'pending')
      .execute();
  }

  /** Forgets a claimed call that provably never reached the tool, so it may be tried again later. */
  async release(key: string): Promise<void> {
    await this.#db
      .deleteFrom('tool_idempotency')
      .where('key', '=', key)
      .where('state', '=', 'pending')
      .execute();
  }

  /** The state of a call by key, if known (for diagnosis and tests). */
  async state(key: string): Promise<IdempotencyState | undefined> {
    const row = await this.#db
      .selectFrom('tool_idempotency')
      .select('state')
      .where('key', '=', key)
      .executeTakeFirst();
    return row?.state;
  }

  /** Deletes keys past their retention; returns how many. */
  async purge(): Promise<number> {
    const result = await this.#db
      .deleteFrom('tool_idempotency')
      .where(sql<boolean>`expires_at < now()`)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** The operations the executor needs of an idempotency store. */
export type IdempotencyBackend = Pick<
  IdempotencyStore,
  'claim' | 'complete' | 'extend' | 'release' | 'state' | 'purge'
>;

interface MemoryRow {
  key: string;
  argsHash: string;
  state: IdempotencyState;
  outcome: StoredOutcome | null;
  deadline: number;
  expires: number;
}

/**
 * The same bookkeeping in this process's memory: exactly once within one instance only. For
 * tests and tools that run an executor without PostgreSQL; a deployment passes a database.
 */
export class MemoryIdempotencyStore implements IdempotencyBackend {
  readonly #rows = new Map<string, MemoryRow>();
  readonly #ttlMs: number;
  readonly #pollMs: number;

  constructor(opts: { ttlMs?: number | undefined; pollMs?: number } = {}) {
    this.#ttlMs = opts.ttlMs ?? IDEMPOTENCY_TTL_MS;
    this.#pollMs = opts.pollMs ?? 50;
  }

  async claim(call: CallIdentity, deadlineMs: number, signal?: AbortSignal): Promise<Claim> {
    const key = idempotencyKey(call.requestId, call.callId, call.argsHash);
    const callKey = `${call.requestId}\u0000${call.callId}`;
    for (;;) {
      const row = this.#rows.get(callKey);
      if (!row) {
        const now = Date.now();
        this.#rows.set(callKey, {
          key,
          argsHash: call.argsHash,
          state: 'pending',
          outcome: null,
          deadline: now + deadlineMs,
          expires: now + this.#ttlMs,
        });
        return { kind: 'claimed', key };
      }
      if (row.argsHash !== call.argsHash) return { kind: 'conflict', key: row.key };
      if (row.state !== 'pending') return { kind: 'done', key, state: row.state, outcome: row.outcome };
      if (row.deadline < Date.now()) {
        row.state = 'unknown';
        continue;
      }
      if (signal?.aborted) throw new IdempotencyStoreError('gave up waiting for a call in flight');
      await sleep(this.#pollMs);
    }
  }

  #find(key: string): [string, MemoryRow] | undefined {
    for (const entry of this.#rows) if (entry[1].key === key) return entry;
    return undefined;
  }

  async complete(key: string, state: Exclude<IdempotencyState, 'pending'>, outcome: StoredOutcome) {
    const row = this.#find(key)?.[1];
    if (row) Object.assign(row, { state, outcome });
  }

  async extend(key: string, deadlineMs: number): Promise<void> {
    const row = this.#find(key)?.[1];
    if (row?.state === 'pending') row.deadline = Date.now() + deadlineMs;
  }

  async release(key: string): Promise<void> {
    const found = this.#find(key);
    if (found?.[1].state === 'pending') this.#rows.delete(found[0]);
  }

  async state(key: string): Promise<IdempotencyState | undefined> {
    return this.#find(key)?.[1].state;
  }

  async purge(): Promise<number> {
    let purged = 0;
    const now = Date.now();
    for (const [callKey, row] of this.#rows) {
      if (row.expires < now) {
        this.#rows.delete(callKey);
        purged += 1;
      }
    }
    return purged;
  }
}
