// Layers of src, lowest first (render < model < run < tool-step < answer < confirmation < turn < app): see README.md.
import type { RunningConsumer } from '@munim/bus';
import { endRequestOnGiveUp } from '@munim/kit';
import { type AgentDeps, agentContext } from './run/context.ts';
import { handleQuery } from './turn/query.ts';

export type { AgentConfig, AgentDeps } from './run/context.ts';
export { AgentError } from './run/errors.ts';

/** The agent: fast-path pipelines and the LLM tool-calling loop, every call through validator and executor. */
export async function buildAgent(deps: AgentDeps) {
  const agent = agentContext(deps);
  const { bus, config } = agent;
  let consumer: RunningConsumer | undefined;

  return {
    async start() {
      consumer = await bus.consume('queryRouted', (message, ctx) => handleQuery(agent, message, ctx), {
        durable: 'agent',
        concurrency: config.concurrency,
        ackWaitMs: config.ackWaitMs ?? 60_000,
        onGiveUp: endRequestOnGiveUp(bus, 'Sorry, I could not finish that request.'),
      });
    },
    async stop() {
      await consumer?.stop();
    },
  };
}
