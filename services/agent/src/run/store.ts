import { setTimeout } from 'node:timers/promises';
import type { Actor, RequestScope } from '@munim/contracts';
import {
  type AuditEntry,
  type AuditRow,
  appendAudit,
  type BusinessContext,
  type ConversationMessage,
  type Database,
  loadBusinessContext,
  type PendingActionsTable,
  readLockDate,
} from '@munim/db';
import { type Kysely, type RawBuilder, type Selectable, sql, type Transaction } from 'kysely';
import { transient } from './transient.ts';

/** The unique key that numbers a tenant's chats (migration 0017). */
const CHAT_NUMBER_KEY = 'unified_conversations_tenant_chat_number_key';

/** Tries at saving a turn when PostgreSQL fails it for a reason a new try may not meet. */
const TURN_SAVE_ATTEMPTS = 4;

/** The conversation belongs to another entity or org. */
export class ConversationForbiddenError extends Error {
  override name = 'ConversationForbiddenError';
}

/** Where a pending action is in its life, as its row says. */
export type PendingStatus = Selectable<PendingActionsTable>['status'];

export interface PendingAction {
  actionId: string;
  requestId: string;
  tool: string;
  args: Record<string, unknown>;
  argsHash: string;
  tier: number;
  confirmText: string | null;
  question: string;
  callId: string;
  toolCallId: string;
  state: Record<string, unknown>;
  status: PendingStatus;
  expiresAt: Date;
  /** The request that carried the user's approval, once approved. */
  approvedByRequest: string | null;
  /** The user who asked for it; null: the tenant's owner. */
  requestedBy: string | null;
}

/** What the agent keeps in PostgreSQL: conversations, pending confirmations, LLM usage. */
export class AgentStore {
  readonly db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /** Appends a row to the org's audit trail (hash-chained; the database refuses a row that does not continue it). */
  audit(entry: AuditEntry): Promise<AuditRow> {
    return appendAudit(this.db, entry);
  }

  /** The tenant's business context: currency, locale, number system, financial year. */
  businessContext(scope: RequestScope): Promise<BusinessContext> {
    return loadBusinessContext(this.db, scope);
  }

  /** The last day of the tenant's closed books (`YYYY-MM-DD`), or null when none is closed. */
  async lockDate(scope: RequestScope): Promise<string | null> {
    return (await readLockDate(this.db, scope)).lockDate;
  }

  /** A conversation's messages and summary, checking it is the caller's; undefined when new. */
  async conversation(
    scope: RequestScope,
  ): Promise<
    { messages: ConversationMessage[]; summary: string | null; summarizedCount: number } | undefined
  > {
    const row = await this.db
      .selectFrom('unified_conversations')
      .select(['entity_id', 'org_id', 'messages', 'summary', 'summarized_count'])
      .where('id', '=', scope.conversationId)
      .executeTakeFirst();
    if (!row) return undefined;
    if (row.entity_id !== scope.entityId || row.org_id !== scope.orgId) {
      throw new ConversationForbiddenError('This conversation belongs to another account.');
    }
    return { messages: row.messages, summary: row.summary, summarizedCount: row.summarized_count };
  }

  async saveSummary(scope: RequestScope, summary: string, summarizedCount: number): Promise<void> {
    await this.db
      .updateTable('unified_conversations')
      .set({ summary, summarized_count: summarizedCount })
      .where('id', '=', scope.conversationId)
      .where('entity_id', '=', scope.entityId)
      .where('org_id', '=', scope.orgId)
      .where('summarized_count', '<', summarizedCount)
      .execute();
  }

  /**
   * Appends a user turn and the answer, once per request (a redelivered request saving its turn
   * again adds nothing); a new conversation gets its tenant's (entity + org) next chat number.
   */
  async appendTurn(
    scope: RequestScope,
    turn: ConversationMessage[],
    { fresh = false }: { fresh?: boolean } = {},
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.appendTurnOnce(scope, turn, fresh);
      } catch (error) {
        // A connection lost or a transaction PostgreSQL gave up: the same save on a new one
        // succeeds, and a turn saved already is not added again.
        if (!transient(error) || attempt === TURN_SAVE_ATTEMPTS) throw error;
        await setTimeout(100 * 2 ** (attempt - 1));
      }
    }
  }

  /** `fresh`: the conversation is new, so it is inserted without first trying to append to it. */
  private async appendTurnOnce(
    scope: RequestScope,
    turn: ConversationMessage[],
    fresh: boolean,
  ): Promise<void> {
    const requestId = turn.find((m) => m.requestId !== undefined)?.requestId;
    const notYetSaved = requestId
      ? sql<boolean>`not (unified_conversations.messages @> ${JSON.stringify([{ requestId }])}::jsonb)`
      : sql<boolean>`true`;
    const added = fresh
      ? { numUpdatedRows: 0n }
      : await this.db
          .updateTable('unified_conversations')
          .set({
            messages: sql`messages || ${JSON.stringify(turn)}::jsonb`,
            message_count: sql`message_count + ${turn.length}`,
            last_message_preview: (turn.at(-1)?.content ?? '').slice(0, 140),
            updated_at: sql`now()`,
          })
          .where('id', '=', scope.conversationId)
          .where('entity_id', '=', scope.entityId)
          .where('org_id', '=', scope.orgId)
          .where(notYetSaved)
          .executeTakeFirst();
    if (Number(added.numUpdatedRows) === 1) return;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.db.transaction().execute(async (trx) => {
          await lockChatNumbers(trx, scope);
          await insertConversation(trx, scope, turn, notYetSaved);
        });
        return;
      } catch (error) {
        // Only a writer that skipped the lock can take the number first: take the next one.
        if ((error as { constraint?: unknown }).constraint !== CHAT_NUMBER_KEY || attempt === 2) throw error;
      }
    }
  }

  async createPending(
    scope: RequestScope,
    action: Omit<PendingAction, 'status' | 'requestId' | 'approvedByRequest' | 'requestedBy'>,
  ): Promise<void> {
    await this.db
      .insertInto('pending_actions')
      .values({
        action_id: action.actionId,
        request_id: scope.requestId,
        conversation_id: scope.conversationId,
        entity_id: scope.entityId,
        org_id: scope.orgId,
        tool: action.tool,
        args: JSON.stringify(action.args),
        args_hash: action.argsHash,
        tier: action.tier,
        confirm_text: action.confirmText,
        question: action.question,
        call_id: action.callId,
        tool_call_id: action.toolCallId,
        state: JSON.stringify(action.state),
        expires_at: action.expiresAt,
        // Who asked for it: the request's person (no actor: a request from before people).
        requested_by: scope.actor?.userId ?? null,
        requested_roles: scope.actor ? [...scope.actor.roles] : null,
      })
      .execute();
  }

  /** A pending action of the caller's conversation, entity and org, whatever its status. */
  async findPending(scope: RequestScope, actionId: string): Promise<PendingAction | undefined> {
    const row = await this.db
      .selectFrom('pending_actions')
      .selectAll()
      .where('action_id', '=', actionId)
      .where('conversation_id', '=', scope.conversationId)
      .where('entity_id', '=', scope.entityId)
      .where('org_id', '=', scope.orgId)
      .executeTakeFirst();
    return row ? toPending(row) : undefined;
  }

  /**
   * The action the conversation's last answer proposed, while it is still pending: the only one a
   * free-text "yes" may answer (an older proposal, or one answered already, is not).
   */
  async proposedByLastAnswer(scope: RequestScope): Promise<PendingAction | undefined> {
    const conversation = await this.conversation(scope);
    const last = conversation?.messages.findLast((m) => m.role === 'assistant');
    const actionId = last?.metadata?.actionId;
    if (typeof actionId !== 'string') return undefined;
    const pending = await this.findPending(scope, actionId);
    return pending?.status === 'pending' ? pending : undefined;
  }

  /** The action this request approved, once it is under way (a redelivered request finds it). */
  async approvedBy(scope: RequestScope): Promise<PendingAction | undefined> {
    const row = await this.db
      .selectFrom('pending_actions')
      .selectAll()
      .where('conversation_id', '=', scope.conversationId)
      .where('entity_id', '=', scope.entityId)
      .where('org_id', '=', scope.orgId)
      .where('approved_by_request', '=', scope.requestId)
      .where('status', 'in', ['executing', 'executed'])
      .executeTakeFirst();
    return row ? toPending(row) : undefined;
  }

  /** Cancels every still-pending action of the conversation (a new question was asked); their ids. */
  async cancelPending(
    scope: RequestScope,
  ): Promise<{ actionId: string; tool: string; tier: number; argsHash: string }[]> {
    const rows = await this.db
      .updateTable('pending_actions')
      .set({ status: 'cancelled', decided_at: new Date() })
      .where('conversation_id', '=', scope.conversationId)
      .where('entity_id', '=', scope.entityId)
      .where('org_id', '=', scope.orgId)
      .where('status', '=', 'pending')
      .returning(['action_id', 'tool', 'tier', 'args_hash'])
      .execute();
    return rows.map((r) => ({ actionId: r.action_id, tool: r.tool, tier: r.tier, argsHash: r.args_hash }));
  }

  /** Moves an action out of `from`; false when another instance (or answer) got there first. */
  async transition(
    actionId: string,
    from: PendingStatus,
    to: PendingStatus,
    result?: unknown,
    /** With `executing`: the request that carries the user's approval. */
    approvedBy?: string,
    /** With `executing`: the person whose confirmation it is. */
    approver?: Actor,
  ): Promise<boolean> {
    const updated = await this.db
      .updateTable('pending_actions')
      .set({
        status: to,
        decided_at: new Date(),
        // Moving to `executing` is the user's approval: the executor's proof for this one call.
        ...(to === 'executing'
          ? {
              approved_at: sql<Date>`now()`,
              approved_by_request: approvedBy ?? null,
              approved_by: approver?.userId ?? null,
            }
          : {}),
        ...(result === undefined ? {} : { result: JSON.stringify(result) }),
      })
      .where('action_id', '=', actionId)
      .where('status', '=', from)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  }

  async logUsage(entry: {
    scope: RequestScope;
    model: string;
    section: string;
    usage: { input_tokens: number; output_tokens: number; total_tokens: number };
    latencyMs: number;
    status: 'success' | 'error';
    error?: string;
  }): Promise<void> {
    await this.db
      .insertInto('llm_usage_logs')
      .values({
        request_id: entry.scope.requestId,
        entity_id: entry.scope.entityId,
        org_id: entry.scope.orgId,
        model: entry.model,
        section: entry.section,
        input_tokens: entry.usage.input_tokens,
        output_tokens: entry.usage.output_tokens,
        total_tokens: entry.usage.total_tokens,
        latency_ms: Math.round(entry.latencyMs),
        status: entry.status,
        error: entry.error ?? null,
      })
      .execute();
  }
}

/**
 * Serialises the new conversations of one tenant until the transaction ends: each computes its
 * number after the last one committed, where two reading the same maximum at once would collide.
 */
async function lockChatNumbers(trx: Transaction<Database>, scope: RequestScope): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext('unified_conversations.chat_number'), hashtext(${scope.entityId} || chr(31) || ${scope.orgId}))`.execute(
    trx,
  );
}

/** Inserts a conversation with the tenant's next number; an existing one (a racing first turn) gets the turn. */
async function insertConversation(
  trx: Transaction<Database>,
  scope: RequestScope,
  turn: ConversationMessage[],
  notYetSaved: RawBuilder<boolean>,
): Promise<void> {
  const firstUser = turn.find((m) => m.role === 'user')?.content ?? 'New chat';
  await trx
    .insertInto('unified_conversations')
    .values({
      id: scope.conversationId,
      entity_id: scope.entityId,
      org_id: scope.orgId,
      chat_number: sql<number>`(select coalesce(max(chat_number), 0) + 1 from unified_conversations where entity_id = ${scope.entityId} and org_id = ${scope.orgId})`,
      chat_name: firstUser.slice(0, 60),
      messages: JSON.stringify(turn),
      message_count: turn.length,
      last_message_preview: (turn.at(-1)?.content ?? '').slice(0, 140),
    })
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet({
          messages: sql`unified_conversations.messages || excluded.messages`,
          message_count: sql`unified_conversations.message_count + excluded.message_count`,
          last_message_preview: sql`excluded.last_message_preview`,
          updated_at: sql`now()`,
        })
        .where('unified_conversations.entity_id', '=', scope.entityId)
        .where('unified_conversations.org_id', '=', scope.orgId)
        .where(notYetSaved),
    )
    .execute();
}

function toPending(row: {
  action_id: string;
  request_id: string;
  tool: string;
  args: Record<string, unknown>;
  args_hash: string;
  tier: number;
  confirm_text: string | null;
  question: string;
  call_id: string;
  tool_call_id: string;
  state: Record<string, unknown>;
  status: PendingStatus;
  expires_at: Date;
  approved_by_request: string | null;
  requested_by: string | null;
}): PendingAction {
  return {
    actionId: row.action_id,
    requestId: row.request_id,
    tool: row.tool,
    args: row.args,
    argsHash: row.args_hash,
    tier: row.tier,
    confirmText: row.confirm_text,
    question: row.question,
    callId: row.call_id,
    toolCallId: row.tool_call_id,
    state: row.state,
    status: row.status,
    expiresAt: row.expires_at,
    approvedByRequest: row.approved_by_request,
    requestedBy: row.requested_by,
  };
}
