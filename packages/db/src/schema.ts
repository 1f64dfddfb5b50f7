/**
 * munim's database as kysely sees it. The tables are declared by the service that owns them
 * (`schema/<service>.ts`); each says who else writes it and who only reads it.
 */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type {
  ApprovalDecisionsTable,
  AuditLogTable,
  ConversationChatNumbersTable,
  LlmUsageLogsTable,
  PendingActionsTable,
  StandingApprovalUsesTable,
  UnifiedConversationsTable,
} from './schema/agent.ts';
import type {
  ApiKeysTable,
  ApprovalPoliciesTable,
  AttachmentsTable,
  BusinessContextsTable,
  IntentsTable,
  LlmConfigsTable,
  LockDatesTable,
  QuickSuggestionsTable,
  StandingApprovalsTable,
  TenantUsageTable,
  UserRolesTable,
  UsersTable,
} from './schema/gateway.ts';
import type { FeedbackLogTable, QueryRoutingLogsTable, RequestEventsTable } from './schema/logger.ts';
import type { ToolIdempotencyTable, ToolPinsTable, ToolRegistryTable } from './schema/mcp-executor.ts';
import type {
  MessagingCardsTable,
  MessagingConversationsTable,
  MessagingDeliveriesTable,
  MessagingNoticesTable,
  MessagingRefusalsTable,
  MessagingRepliesTable,
  MessagingStatusesTable,
} from './schema/messaging.ts';
import type { CountryConfigsTable, TaxRulesTable } from './schema/reference.ts';
import type {
  IntentRoutingStatsTable,
  LlmPathPatternsTable,
  ResponseCacheTable,
  RouterRoutesTable,
  RoutingOutcomesTable,
  SuggestedIntentsTable,
} from './schema/router.ts';

export type * from './schema/agent.ts';
export type * from './schema/columns.ts';
export type * from './schema/gateway.ts';
export type * from './schema/logger.ts';
export type * from './schema/mcp-executor.ts';
export type * from './schema/messaging.ts';
export type * from './schema/reference.ts';
export type * from './schema/router.ts';

export interface Database {
  pending_actions: PendingActionsTable;
  request_events: RequestEventsTable;
  query_routing_logs: QueryRoutingLogsTable;
  intents: IntentsTable;
  tool_registry: ToolRegistryTable;
  tool_pins: ToolPinsTable;
  users: UsersTable;
  user_roles: UserRolesTable;
  api_keys: ApiKeysTable;
  audit_log: AuditLogTable;
  approval_policies: ApprovalPoliciesTable;
  unified_conversations: UnifiedConversationsTable;
  llm_usage_logs: LlmUsageLogsTable;
  feedback_log: FeedbackLogTable;
  response_cache: ResponseCacheTable;
  intent_routing_stats: IntentRoutingStatsTable;
  llm_path_patterns: LlmPathPatternsTable;
  suggested_intents: SuggestedIntentsTable;
  tool_idempotency: ToolIdempotencyTable;
  router_routes: RouterRoutesTable;
  routing_outcomes: RoutingOutcomesTable;
  quick_suggestions: QuickSuggestionsTable;
  llm_configs: LlmConfigsTable;
  attachments: AttachmentsTable;
  tenant_usage: TenantUsageTable;
  country_configs: CountryConfigsTable;
  tax_rules: TaxRulesTable;
  business_contexts: BusinessContextsTable;
  lock_dates: LockDatesTable;
  approval_decisions: ApprovalDecisionsTable;
  standing_approvals: StandingApprovalsTable;
  standing_approval_uses: StandingApprovalUsesTable;
  messaging_conversations: MessagingConversationsTable;
  messaging_deliveries: MessagingDeliveriesTable;
  messaging_cards: MessagingCardsTable;
  messaging_statuses: MessagingStatusesTable;
  messaging_refusals: MessagingRefusalsTable;
  messaging_notices: MessagingNoticesTable;
  messaging_replies: MessagingRepliesTable;
  conversation_chat_numbers: ConversationChatNumbersTable;
}

/** Every table the migrations create. */
export const TABLE_NAMES = [
  'request_events',
  'query_routing_logs',
  'intents',
  'tool_registry',
  'unified_conversations',
  'llm_usage_logs',
  'feedback_log',
  'response_cache',
  'intent_routing_stats',
  'llm_path_patterns',
  'suggested_intents',
  'pending_actions',
  'tool_idempotency',
  'router_routes',
  'routing_outcomes',
  'quick_suggestions',
  'llm_configs',
  'attachments',
  'tenant_usage',
  'country_configs',
  'tax_rules',
  'business_contexts',
  'lock_dates',
  'tool_pins',
  'users',
  'user_roles',
  'api_keys',
  'audit_log',
  'approval_policies',
  'approval_decisions',
  'standing_approvals',
  'standing_approval_uses',
  'messaging_conversations',
  'messaging_deliveries',
  'messaging_cards',
  'messaging_statuses',
  'messaging_refusals',
  'messaging_notices',
  'messaging_replies',
  'conversation_chat_numbers',
] as const satisfies readonly (keyof Database)[];

export type RequestEventRow = Selectable<RequestEventsTable>;
export type NewRequestEvent = Insertable<RequestEventsTable>;
export type QueryRoutingLogRow = Selectable<QueryRoutingLogsTable>;
export type NewQueryRoutingLog = Insertable<QueryRoutingLogsTable>;
export type QueryRoutingLogUpdate = Updateable<QueryRoutingLogsTable>;
export type IntentRow = Selectable<IntentsTable>;
export type NewIntent = Insertable<IntentsTable>;
export type ToolRegistryRow = Selectable<ToolRegistryTable>;
export type NewToolRegistryEntry = Insertable<ToolRegistryTable>;
export type ToolPinRow = Selectable<ToolPinsTable>;
export type ConversationRow = Selectable<UnifiedConversationsTable>;
export type NewConversation = Insertable<UnifiedConversationsTable>;
export type LlmUsageLogRow = Selectable<LlmUsageLogsTable>;
export type NewLlmUsageLog = Insertable<LlmUsageLogsTable>;
export type FeedbackRow = Selectable<FeedbackLogTable>;
export type NewFeedback = Insertable<FeedbackLogTable>;
export type ResponseCacheRow = Selectable<ResponseCacheTable>;
export type NewResponseCacheEntry = Insertable<ResponseCacheTable>;
export type IntentRoutingStatsRow = Selectable<IntentRoutingStatsTable>;
export type LlmPathPatternRow = Selectable<LlmPathPatternsTable>;
export type SuggestedIntentRow = Selectable<SuggestedIntentsTable>;
