// The conversation and feedback shapes were defined in subjects/conversations.ts before HTTP shapes
// had a folder; they are re-exported here so this folder lists every route family.
import { TenantQuerySchema } from '../subjects/conversations.ts';

export {
  ConversationListQuerySchema,
  ConversationListSchema,
  ConversationParamsSchema,
  ConversationSchema,
  FeedbackRequestSchema,
  FeedbackResponseSchema,
  TenantQuerySchema,
} from '../subjects/conversations.ts';

/** `?entityId&orgId` and nothing else: the query of a route on one of a tenant's resources. */
export const TenantScopeQuerySchema = TenantQuerySchema.strict();
