// Layers of src, lowest first (render < model < run < tool-step < answer < confirmation < turn < app): see README.md.
import type { RunningConsumer } from '@munim/bus';
import { endRequestOnGiveUp } from '@munim/kit';
import { expireApprovals } from './confirmation/approval-flow.ts';
import { type AgentDeps, agentContext } from './run/context.ts';
import { abandonedAfterMs, settleOnGiveUp, sweepAbandoned } from './turn/abandoned.ts';
import { handleQuery } from './turn/query.ts';

export type { AgentConfig, AgentDeps } from './run/context.ts';
export { AgentError } from './run/errors.ts';

/** The agent: fast-path pipelines and the LLM tool-calling loop, every call through validator and executor. */
export async function buildAgent(deps: AgentDeps) {
  const agent = agentContext(deps);
  const { bus, config } = agent;
  let consumer: RunningConsumer | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  const ackWaitMs = config.ackWaitMs ?? 60_000;

  return {
    async start() {
      consumer = await bus.consume('queryRouted', (message, ctx) => handleQuery(agent, message, ctx), {
        durable: 'agent',
        concurrency: config.concurrency,
        ackWaitMs,
        onGiveUp: settleOnGiveUp(agent, endRequestOnGiveUp(bus, 'Sorry, I could not finish that request.')),
      });
      // A confirmed write whose every delivery died is settled (never run again) and its request ended.
      const abandonedMs = abandonedAfterMs(ackWaitMs, config.executeTimeoutMs);
      // …and a write left waiting for approvers past its window expires, on the trail.
      sweeper = setInterval(() => {
        sweepAbandoned(agent, abandonedMs).catch((error: unknown) =>
          agent.log.warn({ err: error }, 'could not settle abandoned confirmed writes'),
        );
        expireApprovals(agent).catch((error: unknown) =>
          agent.log.warn({ err: error }, 'could not expire unanswered approvals'),
        );
      }, ackWaitMs);
      sweeper.unref();
    },
    async stop() {
      clearInterval(sweeper);
      await consumer?.stop();
    },
  };
}
