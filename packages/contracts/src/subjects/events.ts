import type { z } from 'zod';
import { type AgentEvent, AgentEventSchema } from '../events.ts';
import { defineSubject } from '../subject.ts';

export const requestEvents = defineSubject({
  kind: 'stream',
  stream: 'events',
  subject: 'events.{requestId}',
  // The union built from the payload map is typed wider than AgentEvent; this is the same schema, typed exactly.
  schema: AgentEventSchema as unknown as z.ZodType<AgentEvent>,
  description: 'Every event of one request, in causal order; followed by the gateway, stored by the logger.',
});
