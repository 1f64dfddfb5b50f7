import { isWriteTool, type ToolDefinition } from '@munim/contracts';
import { toolList } from '@munim/demo-books';
import { createLogger } from '@munim/kit';

export const log = createLogger('test', 'silent');

export { newScope, recordEvents } from '@munim/bus/testing';

/** The demo books' tools as the MCP executor's registry reports them. */
export function demoBooksDefinitions(): ToolDefinition[] {
  return toolList().map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as Record<string, unknown>,
    annotations: tool.annotations,
    isWrite: isWriteTool(tool.name, tool.annotations),
  }));
}
