import { randomBytes, randomUUID } from 'node:crypto';
import { Bus } from '@munim/bus';
import { type AgentEvent, isWriteTool, type RequestScope, type ToolDefinition } from '@munim/contracts';
import { toolList } from '@munim/demo-books';
import { createLogger } from '@munim/kit';
import { connect } from '@nats-io/transport-node';

export const log = createLogger('test', 'silent');

/** A bus on a fresh subject prefix, with its streams; `cleanup` deletes them. */
export async function testBus(service: 'validator' | 'agent' | 'mcp-executor' = 'agent') {
  const nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
  const bus = await Bus.create({ nc, prefix: `t${randomBytes(5).toString('hex')}`, service });
  await bus.ensureStreams();
  return {
    bus,
    cleanup: async () => {
      for (const key of ['work', 'events'] as const)
        await bus.jsm.streams.delete(bus.streamName(key)).catch(() => {});
      await bus.nc.drain();
    },
  };
}

export const newScope = (): RequestScope => ({
  requestId: randomUUID(),
  conversationId: 'conv-1',
  entityId: 'entity-1',
  orgId: 'org-1',
});

/** Records the events of one request as they are published on its subject. */
export function recordEvents(bus: Bus, requestId: string): { events: AgentEvent[]; stop(): void } {
  const events: AgentEvent[] = [];
  const sub = bus.nc.subscribe(bus.subject('requestEvents', { requestId }), {
    callback: (_err, msg) => void events.push((msg.json() as { data: AgentEvent }).data),
  });
  return { events, stop: () => sub.unsubscribe() };
}

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
