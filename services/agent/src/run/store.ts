import { setTimeout } from 'node:timers/promises';
import type { Actor, RequestScope } from '@munim/contracts';
import {
  type AuditEntry,
  type AuditRow,
  appendAudit,
  type BusinessContext,
  type ConversationMessage,
  type Database,
  loadBusinessBooks,
  loadBusinessContext,
  type PendingActionsTable,
  readLockDate,
} from '@munim/db';
import { type Kysely, type RawBuilder, type Selectable, sql } from 'kysely';
import { transient } from './transient.ts';

/** What {@link AgentStore.businessBooks} reads. */
export type BusinessBooks = Awaited<ReturnType<typeof loadBusinessBooks>>;

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

  /** The business context, its country's tax rules, its registration and lock date, in one statement. */
  businessBooks(scope: RequestScope): Promise<BusinessBooks> {
    return loadBusinessBooks(this.db, scope);
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
    const append = async () => {
      const added = await this.db
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
      return Number(added.numUpdatedRows) === 1;
    };
    // A conversation the gateway has just named is inserted first; any other is appended to first.
    if (!fresh && (await append())) return;
    for (let attempt = 0; ; attempt++) {
      try {
        // It exists after all (a racing first turn, or a turn saved again): the turn goes on it.
        if (!(await insertConversation(this.db, scope, turn, notYetSaved))) await append();
        return;
      } catch (error) {
        // An agent from before the chat number counter took the number at the same time: the next one.
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
/**
 * Inserts a conversation with its tenant's next chat number, in one statement: the tenant's
 * counter row, locked by the update, orders first turns arriving together, and starts from the
 * highest number given so far. False when the conversation exists already (nothing is numbered):
 * but a first turn racing this one for the same id gets the turn appended, as the conflict's update.
 */
async function insertConversation(
  db: Kysely<Database>,
  scope: RequestScope,
  turn: ConversationMessage[],
  notYetSaved: RawBuilder<boolean>,
): Promise<boolean> {
  const firstUser = turn.find((m) => m.role === 'user')?.content ?? 'New chat';
  const { entityId, orgId, conversationId } = scope;
  const highest = sql`(select coalesce(max(chat_number), 0) from unified_conversations where entity_id = ${entityId} and org_id = ${orgId})`;
  const result = await sql`
    with numbered as (
      insert into conversation_chat_numbers as n (entity_id, org_id, last_number)
      select ${entityId}, ${orgId}, ${highest} + 1
      where not exists (select 1 from unified_conversations where id = ${conversationId})
      on conflict (entity_id, org_id) do update set last_number = greatest(n.last_number, ${highest}) + 1
      returning last_number
    )
    insert into unified_conversations
      (id, entity_id, org_id, chat_number, chat_name, messages, message_count, last_message_preview)
    select ${conversationId}, ${entityId}, ${orgId}, last_number, ${firstUser.slice(0, 60)},
      ${JSON.stringify(turn)}::jsonb, ${turn.length}, ${(turn.at(-1)?.content ?? '').slice(0, 140)}
    from numbered
    on conflict (id) do update set
      messages = unified_conversations.messages || excluded.messages,
      message_count = unified_conversations.message_count + excluded.message_count,
      last_message_preview = excluded.last_message_preview,
      updated_at = now()
    where unified_conversations.entity_id = ${entityId} and unified_conversations.org_id = ${orgId}
      and ${notYetSaved}`.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
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
