import type { RequestScope, ToolDefinition } from '@munim/contracts';
import type { ConversationMessage, Database } from '@munim/db';
import type { Kysely } from 'kysely';
import { type ConversationContext, NO_CONVERSATION } from './route.ts';
import { groupsOfQuery, groupsOfTool } from './tool-groups.ts';

/** Where the router learns what came before a query in its conversation. */
export interface ConversationSource {
  /** The conversation so far; {@link NO_CONVERSATION} when there is none or it cannot be read. */
  load(scope: RequestScope, registry: readonly ToolDefinition[]): Promise<ConversationContext>;
}

/** Messages of the conversation the router looks back over. */
const LOOKBACK = 10;

/**
 * The context of a conversation from its stored messages (newest last): the tool groups of the
 * newest assistant turn that used tools (or, failing that, the groups its user message named).
 */
export function contextFromMessages(
  messages: readonly ConversationMessage[],
  pendingAction: boolean,
  registry: readonly ToolDefinition[] = [],
): ConversationContext {
  const turns = messages.filter((m) => m.role === 'user').length;
  const describe = new Map(registry.map((t) => [t.name, `${t.title ?? ''} ${t.description ?? ''}`]));
  let previousGroups: string[] = [];
  for (let i = messages.length - 1; i >= 0 && previousGroups.length === 0; i--) {
    const message = messages[i] as ConversationMessage;
    if (message.role === 'assistant') {
      const tools = message.metadata?.tools;
      if (Array.isArray(tools)) {
        const groups = tools
          .filter((t): t is string => typeof t === 'string')
          .flatMap((t) => groupsOfTool(t, describe.get(t)));
        previousGroups = [...new Set(groups)];
      }
    } else if (message.role === 'user') {
      previousGroups = groupsOfQuery(message.content);
    }
  }
  if (turns === 0 && !pendingAction) return NO_CONVERSATION;
  return { previousGroups, pendingAction, turns };
}

/**
 * The conversations the agent stores (`unified_conversations`) and its pending confirmations
 * (`pending_actions`), scoped by entity and org. A read that fails degrades to no history.
 */
export function dbConversationSource(
  db: Kysely<Database>,
  onError?: (error: unknown) => void,
): ConversationSource {
  return {
    async load(scope, registry) {
      try {
        // One statement for both: the conversation's messages, and whether a confirmation awaits.
        const row = await db
          .selectNoFrom((eb) => [
            eb
              .selectFrom('unified_conversations')
              .select('messages')
              .where('id', '=', scope.conversationId)
              .where('entity_id', '=', scope.entityId)
              .where('org_id', '=', scope.orgId)
              .where('is_deleted', '=', false)
              .as('messages'),
            eb
              .exists(
                eb
                  .selectFrom('pending_actions')
                  .select('action_id')
                  .where('conversation_id', '=', scope.conversationId)
                  .where('entity_id', '=', scope.entityId)
                  .where('org_id', '=', scope.orgId)
                  .where('status', '=', 'pending')
                  .where('expires_at', '>', new Date()),
              )
              .as('pending'),
          ])
          .executeTakeFirstOrThrow();
        const messages = Array.isArray(row?.messages) ? row.messages.slice(-LOOKBACK) : [];
        return contextFromMessages(messages, row.pending === true, registry);
      } catch (error) {
        onError?.(error);
        return NO_CONVERSATION;
      }
    },
  };
}
