import { z } from 'zod';
import { defineSubject } from '../subject.ts';

/** Which tool's pinned definition an operator accepted or refused. */
export const ToolPinChangedSchema = z.object({
  /** `accepted` or `refused`. */
  reason: z.enum(['accepted', 'refused']),
  /** The server's configured name. */
  server: z.string().min(1).max(64),
  /** The tool's name on its own server. */
  tool: z.string().min(1).max(128),
});
export type ToolPinChanged = z.infer<typeof ToolPinChangedSchema>;

export const toolPinChanged = defineSubject({
  kind: 'broadcast',
  subject: 'broadcast.tool-pins.changed',
  schema: ToolPinChangedSchema,
  description:
    'An operator accepted or refused a changed tool definition (tool_pins); every MCP executor instance ' +
    'reloads its tools now, offering an accepted tool again. Published by the gateway on core NATS.',
});
