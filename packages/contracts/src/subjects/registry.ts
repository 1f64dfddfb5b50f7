import { z } from 'zod';
import { defineSubject } from '../subject.ts';

/** What changed in the MCP executor's tool registry. */
export const ToolsChangedSchema = z.object({
  /** Why the registry was reloaded: `connected`, `list_changed`, `periodic`, … */
  reason: z.string().max(100),
  added: z.array(z.string().max(128)),
  removed: z.array(z.string().max(128)),
  /** Tools whose description, input schema, annotations or write flag changed. */
  changed: z.array(z.string().max(128)),
  /** Number of tools in the registry after the change. */
  total: z.number().int().nonnegative(),
});
export type ToolsChanged = z.infer<typeof ToolsChangedSchema>;

export const toolsChanged = defineSubject({
  kind: 'broadcast',
  subject: 'broadcast.tools.changed',
  schema: ToolsChangedSchema,
  description:
    'The tool registry changed (tools added, removed or redefined); the validator recompiles its schemas. ' +
    'Published by the MCP executor on core NATS to every listening instance.',
});
