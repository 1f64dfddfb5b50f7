import { AgentEventSchema } from '../events.ts';
import { defineSubject } from '../subject.ts';

export const requestEvents = defineSubject({
  kind: 'stream',
  stream: 'events',
  subject: 'events.{requestId}',
  schema: AgentEventSchema,
  description: 'Every event of one request, in causal order; followed by the gateway, stored by the logger.',
});
